# policy/: the policy language.  Two static archives, both -fPIC (they end up inside
# pam_agentbox.so):
#   $(PLAN_LIB)   plan parse/serialise, pattern matcher, ab_policy_free, ab_digest_hex:
#                 no external library, so agentbox-shell can link it statically;
#   $(POLICY_LIB) everything; link with $(POLICY_LIBS) (inih, nettle).  It holds netd/'s
#                 pure host-rule and CIDR parsers (POLICY_NETD_SRCS: no libpsl), so the
#                 policy and agentbox-netd read allow_host and allow_private alike.
# Both use lib/'s $(UTIL_LIB): link it after them.
# Unit tests link sanitized copies ($(B)/san/...) so ASan/UBSan see inside the library.

POLICY_PLAN_SRCS := policy/compiled.c policy/digest_hex.c policy/grants.c \
                    policy/pattern.c policy/prefilter.c policy/maskset.c policy/plan.c
POLICY_SRCS      := $(sort $(wildcard policy/*.c))
POLICY_NETD_SRCS := netd/host.c netd/addr.c
POLICY_LIBS       = $(call pkg,--libs inih nettle)
$(call objs-in,policy): CPPFLAGS_DIR = -Inetd
$(call objs-in,policy): PKG_CFLAGS_DIR = $(call pkg,--cflags inih nettle)

PLAN_LIB         := $(B)/libabplan.a
POLICY_LIB       := $(B)/libabpolicy.a
PLAN_LIB_SAN     := $(B)/san/libabplan.a
POLICY_LIB_SAN   := $(B)/san/libabpolicy.a

$(PLAN_LIB):       $(POLICY_PLAN_SRCS:%.c=$(B)/%.o)
$(PLAN_LIB_SAN):   $(POLICY_PLAN_SRCS:%.c=$(B)/san/%.o)
$(POLICY_LIB):     $(POLICY_SRCS:%.c=$(B)/%.o) $(POLICY_NETD_SRCS:%.c=$(B)/%.o)
$(POLICY_LIB_SAN): $(POLICY_SRCS:%.c=$(B)/san/%.o) $(POLICY_NETD_SRCS:%.c=$(B)/san/%.o)

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
