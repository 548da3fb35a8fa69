# admin/: agentbox(8), the admin tool (enroll, unenroll, check, doctor, sessions), and
# the pam-auth-update profile it activates.  Linked with the policy archive.

ADMIN_SRCS    := $(sort $(wildcard admin/*.c))
ADMIN_OBJS    := $(ADMIN_SRCS:admin/%.c=$(B)/admin/%.o)
ADMIN_PKGS    := audit libacl
ADMIN_CFLAGS  := $(shell pkg-config --cflags $(ADMIN_PKGS)) -I$(B)/admin -Inetd \
                 -DAB_PAMDIR='"$(PAMDIR)"'
ADMIN_LIBS    := $(shell pkg-config --libs $(ADMIN_PKGS))
ADMIN_BIN     := $(B)/agentbox
PAM_PROFILE   := admin/agentbox.pam-config
PAM_CONFIGS   ?= /usr/share/pam-configs

$(B)/admin:
	mkdir -p $@

# The profile as a C string, so enroll can write it where make install did not.
$(B)/admin/pam_profile.h: $(PAM_PROFILE) | $(B)/admin
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&\\n"/' $< > $@.tmp && mv $@.tmp $@

$(B)/admin/%.o: admin/%.c admin/admin.h admin/cmd.h policy/policy.h $(B)/config.h \
		$(B)/admin/pam_profile.h | $(B)/admin
	$(CC) $(CFLAGS) $(ADMIN_CFLAGS) -c -o $@ $<

# check's public-suffix test (netd/hostcheck.c, libpsl): never in the policy library,
# which the PAM module links.
$(ADMIN_BIN): $(ADMIN_OBJS) $(B)/netd/hostcheck.o $(POLICY_LIB) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(ADMIN_OBJS) $(B)/netd/hostcheck.o $(POLICY_LIB) \
	  $(UTIL_LIB) $(POLICY_LIBS) $(ADMIN_LIBS) $(shell pkg-config --libs libpsl)

ALL += $(ADMIN_BIN)

.PHONY: install-admin uninstall-admin
# The profile is installed, never activated: enroll activates it (pam-auth-update
# --enable agentbox), because a module in every session stack before any user is
# enrolled would only add risk.
install-admin: $(ADMIN_BIN)
	install -D -m 0755 -o root -g root $(ADMIN_BIN) $(DESTDIR)$(SBINDIR)/agentbox
	install -D -m 0644 -o root -g root $(PAM_PROFILE) $(DESTDIR)$(PAM_CONFIGS)/agentbox

# An active profile is taken out of the stacks before its file goes, so pam-auth-update
# never regenerates common-session from a profile that no longer exists.
uninstall-admin:
	@if [ -z "$(DESTDIR)" ] && [ -e $(PAM_CONFIGS)/agentbox ] && \
	    command -v pam-auth-update >/dev/null && grep -qs pam_agentbox /etc/pam.d/common-session; then \
	  echo "pam-auth-update --package --remove agentbox"; \
	  DEBIAN_FRONTEND=noninteractive pam-auth-update --package --remove agentbox; fi
	rm -f $(DESTDIR)$(SBINDIR)/agentbox $(DESTDIR)$(PAM_CONFIGS)/agentbox

INSTALL   += install-admin
UNINSTALL += uninstall-admin

ROOT_TESTS     += tests/e2e/admin.t tests/e2e/admin_sessions.t
ROOT_TEST_DEPS += $(ADMIN_BIN)

# Unit test of the pure helpers, sanitized, no root.
ADMIN_UNIT_SRCS := admin/util.c admin/auditconf.c admin/auditrules.c admin/user.c admin/sshd.c admin/acl.c
ADMIN_UNIT_OBJS := $(ADMIN_UNIT_SRCS:admin/%.c=$(B)/san/admin/%.o)

$(B)/san/admin:
	mkdir -p $@

$(B)/san/admin/%.o: admin/%.c admin/admin.h policy/policy.h $(B)/config.h | $(B)/san/admin
	$(CC) $(CFLAGS) $(SAN) $(ADMIN_CFLAGS) -c -o $@ $<

$(B)/san/admin/admin_util: tests/unit/admin_util.c $(ADMIN_UNIT_OBJS) $(POLICY_LIB_SAN) $(UTIL_LIB_SAN) | $(B)/san/admin
	$(CC) $(CFLAGS) $(SAN) $(ADMIN_CFLAGS) -Iadmin $(LDFLAGS) -o $@ $< $(ADMIN_UNIT_OBJS) \
	    $(POLICY_LIB_SAN) $(UTIL_LIB_SAN) $(POLICY_LIBS) $(ADMIN_LIBS)

UNIT_TESTS += $(B)/san/admin/admin_util
