# pam_module/: pam_agentbox.so, the privileged half, and agentbox-init, a session's pid 1.
PAM_SRCS := $(addprefix pam_module/,pam_agentbox.c world.c mask.c netns.c \
            reaper.c planfile.c auditrec.c entry.c sessfail.c netd.c) netd/proto.c
PAM_OBJS := $(PAM_SRCS:%.c=$(B)/%.o)
PAM_SO   := $(B)/pam_agentbox.so
AB_INIT  := $(B)/agentbox-init
PAM_PKGS := pam audit

PAM_TEST_LOAD := $(B)/tests/test_pam_load
PAM_TEST_PREFILTER := $(B)/tests/test_pam_prefilter
PAM_TRY       := $(B)/tests/pam_try
PAM_E2E       := tests/e2e/pam_retval.t tests/e2e/pam_failclosed.t tests/e2e/pam_entry.t \
                 tests/e2e/pam_mask_variants.t tests/e2e/pam_mask_nested.t tests/e2e/netd_pam.t

# Built once the policy archive exists (policy/build.mk defines POLICY_LIB).
ifneq ($(POLICY_LIB),)
ALL            += $(PAM_SO) $(AB_INIT)
UNIT_TESTS     += $(PAM_TEST_LOAD) $(PAM_TEST_PREFILTER)
ROOT_TESTS     += $(wildcard $(PAM_E2E))
ROOT_TEST_DEPS += $(PAM_SO) $(AB_INIT) $(PAM_TRY)
INSTALL        += install-pam
UNINSTALL      += uninstall-pam
endif

$(B)/pam_module/%.o: pam_module/%.c pam_module/module.h pam_module/compat.h \
		policy/policy.h netd/proto.h $(B)/config.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Inetd $(shell pkg-config --cflags $(PAM_PKGS)) -c -o $@ $<

# The policy archive is linked in statically; the version script exports pam_sm_* only.
$(PAM_SO): $(PAM_OBJS) $(POLICY_LIB) $(UTIL_LIB) pam_module/pam_agentbox.map
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=pam_module/pam_agentbox.map \
	  -Wl,--no-undefined -o $@ $(PAM_OBJS) $(POLICY_LIB) $(UTIL_LIB) $(POLICY_LIBS) \
	  $(shell pkg-config --libs $(PAM_PKGS))

# agentbox-init is static: no ld.so work at every login (it runs with an empty
# environment, so there is nothing for the loader to honour anyway).  On x86_64 it has
# no C library at all (init.c says why); it must then need no relocation either.
ifeq ($(shell $(CC) -dumpmachine | cut -d- -f1),x86_64)
$(AB_INIT): pam_module/init.c | $(B)
	$(CC) $(CFLAGS) -DAB_INIT_FREESTANDING -ffreestanding -fno-stack-protector \
	  -nostdlib -static-pie $(LDFLAGS) -o $@ $<
	@if readelf -rW $@ | grep -q 'R_X86_64'; then \
	  echo "$@: relocations in a binary without a loader" >&2; rm -f $@; exit 1; fi
else
$(AB_INIT): pam_module/init.c | $(B)
	$(CC) $(CFLAGS) -static-pie $(LDFLAGS) -o $@ $<
endif

.PHONY: install-pam uninstall-pam
install-pam: $(PAM_SO) $(AB_INIT)
	install -d $(DESTDIR)$(PAMDIR) $(DESTDIR)$(LIBEXECDIR)/agentbox
	install -m 0644 $(PAM_SO) $(DESTDIR)$(PAMDIR)/pam_agentbox.so
	install -m 0755 $(AB_INIT) $(DESTDIR)$(LIBEXECDIR)/agentbox/agentbox-init

# The shared `network = none` namespace is pinned by a bind mount on the live host;
# sessions still in it keep it alive after the unmount.
uninstall-pam:
	rm -f $(DESTDIR)$(PAMDIR)/pam_agentbox.so $(DESTDIR)$(LIBEXECDIR)/agentbox/agentbox-init
	-rmdir $(DESTDIR)$(LIBEXECDIR)/agentbox 2>/dev/null
	@if [ -z "$(DESTDIR)" ] && [ -e /run/agentbox-netns/none ]; then \
	  umount /run/agentbox-netns/none 2>/dev/null; rm -f /run/agentbox-netns/none; \
	  rmdir /run/agentbox-netns 2>/dev/null; fi; true

# Tests: the module alone (dlopen, exports, return codes without root) and pam_try,
# which the root e2e tests use to get the module's exact verdicts.
$(PAM_TEST_LOAD): tests/unit/test_pam_load.c tests/tap.h $(PAM_SO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Itests -DAB_PAM_SO='"$(abspath $(PAM_SO))"' $(LDFLAGS) \
	  -o $@ $< -ldl $(shell pkg-config --libs pam)

$(PAM_TRY): tests/unit/pam_try.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -ldl $(shell pkg-config --libs pam)

# bench/session-start compares the shared `none` netns with a fresh one per login.
$(B)/bench/pam_agentbox_freshnet.so: $(PAM_SRCS) pam_module/module.h pam_module/compat.h \
		$(POLICY_LIB) $(UTIL_LIB) pam_module/pam_agentbox.map $(B)/config.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Inetd -DAB_NETNS_FRESH_NONE $(shell pkg-config --cflags $(PAM_PKGS)) -shared \
	  $(LDFLAGS) -Wl,--version-script=pam_module/pam_agentbox.map -o $@ $(PAM_SRCS) \
	  $(POLICY_LIB) $(UTIL_LIB) $(POLICY_LIBS) $(shell pkg-config --libs $(PAM_PKGS))

# ASan/UBSan copies for tests/e2e/pam_retval.t: the whole open/close path of an enrolled
# session under the sanitizers (valgrind 3.19 knows neither open_tree nor move_mount).
PAM_SAN_SO  := $(B)/san/pam_agentbox.so
PAM_TRY_SAN := $(B)/tests/pam_try_san
PAM_SAN_OBJS := $(PAM_SRCS:%.c=$(B)/san/%.o)
ifneq ($(POLICY_LIB),)
ROOT_TEST_DEPS += $(PAM_SAN_SO) $(PAM_TRY_SAN)
endif

$(B)/san/pam_module/%.o: pam_module/%.c pam_module/module.h pam_module/compat.h \
		policy/policy.h netd/proto.h $(B)/config.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Inetd $(shell pkg-config --cflags $(PAM_PKGS)) -c -o $@ $<

# netd/proto.c (the hand-off message, shared with the daemon) in the sanitized module.
$(B)/san/netd/proto.o: netd/proto.c netd/proto.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -c -o $@ $<

$(PAM_SAN_SO): $(PAM_SAN_OBJS) $(POLICY_LIB_SAN) $(UTIL_LIB_SAN) pam_module/pam_agentbox.map
	$(CC) -shared $(SAN) $(LDFLAGS) -Wl,--version-script=pam_module/pam_agentbox.map \
	  -o $@ $(PAM_SAN_OBJS) $(POLICY_LIB_SAN) $(UTIL_LIB_SAN) $(POLICY_LIBS) $(shell pkg-config --libs $(PAM_PKGS))

$(PAM_TRY_SAN): tests/unit/pam_try.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $< -ldl $(shell pkg-config --libs pam)

# The mask set's prefilter (policy/) must never reject a name the real matcher accepts.
$(PAM_TEST_PREFILTER): tests/unit/test_pam_prefilter.c policy/prefilter.h tests/tap.h \
		$(POLICY_LIB_SAN) $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Itests $(LDFLAGS) -o $@ $< $(POLICY_LIB_SAN) $(UTIL_LIB_SAN) \
	  $(POLICY_LIBS)
