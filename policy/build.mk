# policy/: the policy language.  Two static archives, both -fPIC (they end up inside
# pam_agentbox.so):
#   $(PLAN_LIB)   plan parse/serialise, pattern matcher, ab_policy_free, ab_digest_hex:
#                 no external library, so agentbox-shell can link it statically;
#   $(POLICY_LIB) everything; link with $(POLICY_LIBS) (inih, nettle).  It holds netd/'s
#                 pure host-rule and CIDR parsers (POLICY_NETD_SRCS: no libpsl), so the
#                 policy and agentbox-netd read allow_host and allow_private alike.
# Unit tests link sanitized copies ($(B)/san/...) so ASan/UBSan see inside the library.

POLICY_PLAN_SRCS := policy/compiled.c policy/digest_hex.c \
                    policy/pattern.c policy/prefilter.c policy/maskset.c policy/plan.c
POLICY_SRCS      := $(POLICY_PLAN_SRCS) policy/diag.c policy/digest.c policy/parse.c \
                    policy/load.c policy/proxy.c
POLICY_NETD_SRCS := netd/host.c netd/addr.c
POLICY_HDRS      := policy/policy.h policy/internal.h policy/prefilter.h policy/pset.h \
                    netd/host.h netd/addr.h $(UTIL_HDRS)
POLICY_CFLAGS    := $(shell pkg-config --cflags inih nettle) -Inetd
POLICY_LIBS      := $(shell pkg-config --libs inih nettle)

PLAN_LIB         := $(B)/libabplan.a
POLICY_LIB       := $(B)/libabpolicy.a
PLAN_LIB_SAN     := $(B)/san/libabplan.a
POLICY_LIB_SAN   := $(B)/san/libabpolicy.a

POLICY_OBJS      := $(POLICY_SRCS:policy/%.c=$(B)/policy/%.o) \
                    $(POLICY_NETD_SRCS:netd/%.c=$(B)/netd/%.o)
POLICY_PLAN_OBJS := $(POLICY_PLAN_SRCS:policy/%.c=$(B)/policy/%.o)
POLICY_SAN_OBJS  := $(POLICY_SRCS:policy/%.c=$(B)/san/policy/%.o) \
                    $(POLICY_NETD_SRCS:netd/%.c=$(B)/san/netd/%.o)
POLICY_PLAN_SAN_OBJS := $(POLICY_PLAN_SRCS:policy/%.c=$(B)/san/policy/%.o)

$(B)/policy $(B)/san/policy $(B)/san/netd:
	mkdir -p $@

$(B)/san/netd/%.o: netd/%.c $(POLICY_HDRS) | $(B)/san/netd
	$(CC) $(CFLAGS) $(SAN) -Inetd -c -o $@ $<

$(B)/policy/%.o: policy/%.c $(POLICY_HDRS) | $(B)/policy
	$(CC) $(CFLAGS) $(POLICY_CFLAGS) -c -o $@ $<

$(B)/san/policy/%.o: policy/%.c $(POLICY_HDRS) | $(B)/san/policy
	$(CC) $(CFLAGS) $(SAN) $(POLICY_CFLAGS) -c -o $@ $<

# rm first: ar would otherwise keep members of objects that no longer exist.
$(PLAN_LIB): $(POLICY_PLAN_OBJS)
	rm -f $@ && $(AR) rcs $@ $^
$(POLICY_LIB): $(POLICY_OBJS)
	rm -f $@ && $(AR) rcs $@ $^
$(PLAN_LIB_SAN): $(POLICY_PLAN_SAN_OBJS)
	rm -f $@ && $(AR) rcs $@ $^
$(POLICY_LIB_SAN): $(POLICY_SAN_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

ALL += $(PLAN_LIB) $(POLICY_LIB)

# The default policy: installed only if absent, so an edited one survives
# "make install"; otherwise the new one goes beside it as agentbox.conf.dist.
.PHONY: install-policy uninstall-policy
install-policy:
	install -d -m 0755 -o root -g root $(DESTDIR)$(SYSCONFDIR)/agentbox \
	  $(DESTDIR)$(SYSCONFDIR)/agentbox/policy.d
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/agentbox/agentbox.conf ]; then \
	  install -m 0644 -o root -g root policy/agentbox.conf \
	    $(DESTDIR)$(SYSCONFDIR)/agentbox/agentbox.conf.dist && \
	  echo "install-policy: kept the existing $(SYSCONFDIR)/agentbox/agentbox.conf;" \
	    "the shipped one is $(SYSCONFDIR)/agentbox/agentbox.conf.dist"; \
	else \
	  install -m 0644 -o root -g root policy/agentbox.conf \
	    $(DESTDIR)$(SYSCONFDIR)/agentbox/agentbox.conf; \
	fi

# Leaves an edited agentbox.conf and any policy.d/ files in place (they are the admin's);
# removes the shipped copy when it is unchanged.
uninstall-policy:
	rm -f $(DESTDIR)$(SYSCONFDIR)/agentbox/agentbox.conf.dist
	@if cmp -s policy/agentbox.conf $(DESTDIR)$(SYSCONFDIR)/agentbox/agentbox.conf; then \
	  rm -f $(DESTDIR)$(SYSCONFDIR)/agentbox/agentbox.conf; \
	else \
	  [ ! -e $(DESTDIR)$(SYSCONFDIR)/agentbox/agentbox.conf ] || \
	  echo "uninstall-policy: kept the edited $(SYSCONFDIR)/agentbox/agentbox.conf"; \
	fi
	-rmdir $(DESTDIR)$(SYSCONFDIR)/agentbox/policy.d $(DESTDIR)$(SYSCONFDIR)/agentbox 2>/dev/null

INSTALL   += install-policy
UNINSTALL += uninstall-policy

# agentbox check, built alone for its tests (the agentbox binary is admin/build.mk's).
$(B)/tests/policy-check: tests/unit/policy_check_main.c admin/check.c admin/hostrules.c \
    admin/cmd.h netd/hostcheck.c $(POLICY_LIB_SAN) $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Inetd -o $@ tests/unit/policy_check_main.c admin/check.c \
	  admin/hostrules.c netd/hostcheck.c $(POLICY_LIB_SAN) $(UTIL_LIB_SAN) $(POLICY_LIBS) \
	  $(shell pkg-config --libs libpsl)

# Unit tests (no root needed; as root the ownership cases run too).
POLICY_TESTS := $(B)/tests/test_pattern $(B)/tests/test_plan $(B)/tests/test_policy \
                $(B)/tests/test_maskset
# test_policy checks the digest against an independent SHA-256: OpenSSL's.
$(B)/tests/test_policy: ORACLE_LIBS := $(shell pkg-config --libs libcrypto)
$(POLICY_TESTS): $(B)/tests/%: tests/unit/%.c tests/tap.h $(POLICY_LIB_SAN) $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(POLICY_CFLAGS) -o $@ $< $(POLICY_LIB_SAN) $(UTIL_LIB_SAN) $(POLICY_LIBS) \
	  $(ORACLE_LIBS)
tests/unit/policy_check.t tests/unit/policy_check_keys.t: $(B)/tests/policy-check
UNIT_TESTS += $(POLICY_TESTS) tests/unit/policy_check.t tests/unit/policy_check_keys.t

# libFuzzer targets (make fuzz; seeds in tests/fuzz/seeds/NAME/).  The library sources
# are compiled into each fuzzer so the sanitizers and coverage see inside them.
FUZZ_CC    ?= clang
FUZZ_FLAGS := -g -O1 -std=gnu11 -Wall -Wextra -Werror -fno-omit-frame-pointer \
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Ipolicy -Ilib
POLICY_FUZZERS := $(B)/fuzz/fuzz_policy $(B)/fuzz/fuzz_pattern $(B)/fuzz/fuzz_plan
$(POLICY_FUZZERS): $(B)/fuzz/%: tests/fuzz/%.c $(POLICY_SRCS) $(POLICY_NETD_SRCS) \
    $(POLICY_HDRS) $(UTIL_SRCS) $(UTIL_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(POLICY_CFLAGS) -o $@ $< $(POLICY_SRCS) $(POLICY_NETD_SRCS) \
	  $(UTIL_SRCS) $(POLICY_LIBS)
FUZZERS += $(POLICY_FUZZERS)
