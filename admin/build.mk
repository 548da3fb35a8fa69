# admin/: agentbox(8), the admin tool (enroll, unenroll, check, doctor, sessions), and
# the pam-auth-update profile it activates.  Linked with the policy archive.

ADMIN_SRCS    := $(sort $(wildcard admin/*.c))
ADMIN_OBJS    := $(ADMIN_SRCS:%.c=$(B)/%.o)
ADMIN_LIBS     = $(call pkg,--libs audit libacl pam)
ADMIN_BIN     := $(B)/agentbox
PAM_PROFILE   := admin/agentbox.pam-config
PAM_CONFIGS   ?= /usr/share/pam-configs
$(call objs-in,admin): CPPFLAGS_DIR = -I$(B)/admin -Inetd -Imaskd -Ipam_module -DAB_PAMDIR='"$(PAMDIR)"'
$(call objs-in,admin): PKG_CFLAGS_DIR = $(call pkg,--cflags audit libacl pam)

# The profile as a C string, so enroll can write it where make install did not.
$(B)/admin/pam_profile.h: $(PAM_PROFILE)
	@mkdir -p $(@D)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&\\n"/' $< > $@.tmp && mv $@.tmp $@
$(B)/admin/pam.o $(B)/san/admin/pam.o: $(B)/admin/pam_profile.h

# check's public-suffix test (netd/hostcheck.c, libpsl): never in the policy library,
# which the PAM module links.  The audit scope rule (pam_module/auditscope.c) is the
# module's and ours: the module checks what we load.
# A persistent box's end (maskd/boxend.c, with maskd/audit.c's sender) is shared with
# the module and agentbox-maskd.
ADMIN_SHARED  := $(B)/netd/hostcheck.o $(B)/pam_module/auditscope.o $(B)/maskd/boxend.o \
                 $(B)/maskd/audit.o
$(ADMIN_BIN): $(ADMIN_OBJS) $(ADMIN_SHARED) $(POLICY_LIB) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(ADMIN_OBJS) $(ADMIN_SHARED) $(POLICY_LIB) \
	  $(UTIL_LIB) $(POLICY_LIBS) $(ADMIN_LIBS) $(NETD_PSL_LIBS)

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
