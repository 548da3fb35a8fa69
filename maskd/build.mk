# maskd/: the live-mask enforcer: fanotify permission events on the session's mounts,
# decided by the mask set and by the history of names (maskd/README.md).
# The daemon (daemon.c) takes sessions from pam_agentbox; its tests are tests/build.mk's.
MASKD_SRCS := $(filter-out maskd/main.c maskd/daemon.c,$(sort $(wildcard maskd/*.c)))
MASKD_LIB  := $(B)/libabmaskd.a
MASKD_BIN  := $(B)/agentbox-maskd
$(call objs-in,maskd): CPPFLAGS_DIR = -Imaskd

$(MASKD_LIB): $(MASKD_SRCS:%.c=$(B)/%.o)
$(MASKD_BIN): $(B)/maskd/main.o $(B)/maskd/daemon.o $(MASKD_LIB) $(PLAN_LIB) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -laudit

ALL += $(MASKD_LIB) $(MASKD_BIN)

# make install: the daemon (tools/start-services and the Debian unit start it).  Every
# enrolled login is refused while it is not running.
.PHONY: install-maskd uninstall-maskd
install-maskd: $(MASKD_BIN)
	install -D -m 0755 -o root -g root $(MASKD_BIN) $(DESTDIR)$(SBINDIR)/agentbox-maskd
uninstall-maskd:
	rm -f $(DESTDIR)$(SBINDIR)/agentbox-maskd
INSTALL += install-maskd
UNINSTALL += uninstall-maskd
