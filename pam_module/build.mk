# pam_module/: pam_agentbox.so, the privileged half, and agentbox-init, a session's pid 1.
# Every .c here is part of the module except init.c, which is agentbox-init alone; and
# netd/proto.c, the hand-off message of network = proxy (netd.c), shared with the daemon;
# maskd/group.c and maskd/handoff.c, the live masks' groups and hand-off (livemask.c);
# maskd/audit.c, the one sender of agentbox's own audit records (auditrec.c's too);
# maskd/boxend.c, a persistent box's end (box.c's, agentbox stop's, agentbox-maskd's).
PAM_SRCS := $(filter-out pam_module/init.c,$(sort $(wildcard pam_module/*.c))) netd/proto.c \
            maskd/group.c maskd/handoff.c maskd/audit.c maskd/boxend.c
PAM_OBJS := $(PAM_SRCS:%.c=$(B)/%.o)
PAM_SO   := $(B)/pam_agentbox.so
AB_INIT  := $(B)/agentbox-init
PAM_LIBS  = $(call pkg,--libs pam audit)
$(call objs-in,pam_module): CPPFLAGS_DIR = -Inetd -Imaskd
$(call objs-in,pam_module): PKG_CFLAGS_DIR = $(call pkg,--cflags pam audit)

ALL       += $(PAM_SO) $(AB_INIT)
INSTALL   += install-pam
UNINSTALL += uninstall-pam

# The policy archive is linked in statically; the version script exports pam_sm_* only.
$(PAM_SO): $(PAM_OBJS) $(POLICY_LIB) $(UTIL_LIB) pam_module/pam_agentbox.map
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=pam_module/pam_agentbox.map \
	  -Wl,--no-undefined -o $@ $(PAM_OBJS) $(POLICY_LIB) $(UTIL_LIB) $(POLICY_LIBS) $(PAM_LIBS)

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

# ASan/UBSan copy for tests/e2e/pam_retval.t: the whole open/close path of an enrolled
# session under the sanitizers (valgrind 3.19 knows neither open_tree nor move_mount).
PAM_SAN_SO := $(B)/san/pam_agentbox.so
$(PAM_SAN_SO): $(PAM_SRCS:%.c=$(B)/san/%.o) $(POLICY_LIB_SAN) $(UTIL_LIB_SAN) \
    pam_module/pam_agentbox.map
	$(CC) -shared $(SAN) $(LDFLAGS) -Wl,--version-script=pam_module/pam_agentbox.map \
	  -o $@ $(filter %.o,$^) $(POLICY_LIB_SAN) $(UTIL_LIB_SAN) $(POLICY_LIBS) $(PAM_LIBS)

# bench/session-start compares the shared `none` netns with a fresh one per login: the
# module's sources compiled again with AB_NETNS_FRESH_NONE.  The normal objects are
# prerequisites only for their dependency files: a header that changes one rebuilds it.
$(B)/bench/pam_agentbox_freshnet.so: $(PAM_OBJS) $(POLICY_LIB) $(UTIL_LIB) \
    pam_module/pam_agentbox.map
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Inetd -Imaskd -DAB_NETNS_FRESH_NONE $(call pkg,--cflags pam audit) -shared \
	  $(LDFLAGS) -Wl,--version-script=pam_module/pam_agentbox.map -o $@ $(PAM_SRCS) \
	  $(POLICY_LIB) $(UTIL_LIB) $(POLICY_LIBS) $(PAM_LIBS)
