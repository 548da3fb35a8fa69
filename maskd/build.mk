# maskd/: the live-mask enforcer (issue 12): fanotify permission events on the session's
# mounts, decided by the mask set and by the history of names (maskd/README.md).
# agentbox-maskd is the standalone entry for tests and measurements until the PAM hand-off.

MASKD_SRCS  := maskd/group.c maskd/history.c maskd/decide.c maskd/enforce.c
MASKD_HDRS  := maskd/maskd.h $(POLICY_HDRS)
MASKD_OBJS  := $(MASKD_SRCS:maskd/%.c=$(B)/maskd/%.o)
MASKD_LIB   := $(B)/libabmaskd.a
MASKD_BIN   := $(B)/agentbox-maskd

$(B)/maskd:
	mkdir -p $@

$(B)/maskd/%.o: maskd/%.c $(MASKD_HDRS) | $(B)/maskd
	$(CC) $(CFLAGS) -Imaskd -c -o $@ $<

$(MASKD_LIB): $(MASKD_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(MASKD_BIN): maskd/main.c $(MASKD_LIB) $(PLAN_LIB) $(UTIL_LIB) $(MASKD_HDRS)
	$(CC) $(CFLAGS) -Imaskd $(LDFLAGS) -o $@ maskd/main.c $(MASKD_LIB) $(PLAN_LIB) $(UTIL_LIB)

# The agent's side of the e2e test: one named open-like operation per run.
$(B)/tests/maskd-try: tests/maskd-try.c | $(B)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

ALL += $(MASKD_LIB) $(MASKD_BIN)

# Unit tests (no root): decide.c and history.c with the sanitizers.
MASKD_TESTS := $(B)/tests/test_maskd_decide $(B)/tests/test_maskd_history
$(MASKD_TESTS): $(B)/tests/%: tests/unit/%.c tests/tap.h maskd/decide.c maskd/history.c \
    $(MASKD_HDRS) $(PLAN_LIB_SAN) $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Imaskd -Itests -o $@ $< maskd/decide.c maskd/history.c \
	  $(PLAN_LIB_SAN) $(UTIL_LIB_SAN)
UNIT_TESTS += $(MASKD_TESTS)

tests/e2e/maskd_enforce.t: $(MASKD_BIN) $(B)/tests/maskd-try
ROOT_TESTS += tests/e2e/maskd_enforce.t
ROOT_TEST_DEPS += $(MASKD_BIN) $(B)/tests/maskd-try
