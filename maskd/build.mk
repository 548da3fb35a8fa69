# maskd/: the live-mask enforcer: fanotify permission events on the session's mounts,
# decided by the mask set and by the history of names (maskd/README.md).
# agentbox-maskd is the standalone entry for tests and measurements until the PAM
# hand-off.  Its tests are tests/build.mk's.
MASKD_SRCS := $(filter-out maskd/main.c maskd/daemon.c,$(sort $(wildcard maskd/*.c)))
MASKD_LIB  := $(B)/libabmaskd.a
MASKD_BIN  := $(B)/agentbox-maskd
$(call objs-in,maskd): CPPFLAGS_DIR = -Imaskd

$(MASKD_LIB): $(MASKD_SRCS:%.c=$(B)/%.o)
$(MASKD_BIN): $(B)/maskd/main.o $(B)/maskd/daemon.o $(MASKD_LIB) $(PLAN_LIB) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

ALL += $(MASKD_LIB) $(MASKD_BIN)
