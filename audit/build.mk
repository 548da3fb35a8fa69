# audit/: agentbox-audit, the review tool (audit/rules* are the audit-rules work's).
# Installed in SBINDIR: it reads /var/log/audit (root or group adm), like ausearch.

AUDIT_SRCS  := audit/logline.c audit/group.c audit/auparse.c audit/analyze.c audit/complete.c \
               audit/output.c audit/net.c
AUDIT_LIBS  := $(shell pkg-config --libs audit auparse)
AUDIT_OBJS  := $(AUDIT_SRCS:%.c=$(B)/%.o)
AUDIT_SAN   := $(B)/tests/agentbox-audit-san

$(B)/audit/%.o: audit/%.c audit/review.h $(UTIL_HDRS) | $(B)/config.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/agentbox-audit: $(AUDIT_OBJS) $(B)/audit/main.o $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(AUDIT_LIBS)

# The same program with ASan+UBSan: the unit tests feed it hostile logs.
$(AUDIT_SAN): $(AUDIT_SRCS) audit/main.c audit/review.h $(UTIL_LIB_SAN) | $(B)/config.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(AUDIT_SRCS) audit/main.c $(UTIL_LIB_SAN) \
	  $(AUDIT_LIBS)

$(B)/tests/unit/audit_record: tests/unit/audit_record.c $(AUDIT_SRCS) audit/review.h tests/tap.h \
    $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Iaudit -Itests $(LDFLAGS) -o $@ $< $(AUDIT_SRCS) $(UTIL_LIB_SAN) \
	  $(AUDIT_LIBS)

# The review's session, domain and net view tables made small, so a few records fill them.
$(B)/tests/unit/audit_bookkeeping: tests/unit/audit_bookkeeping.c $(AUDIT_SRCS) audit/review.h tests/tap.h \
    $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -DMAX_SESSIONS=8 -DMAX_DOMAINS=8 -DAB_NETVIEW_MAX=8 -Iaudit -Itests $(LDFLAGS) -o $@ $< \
	  $(AUDIT_SRCS) $(UTIL_LIB_SAN) $(AUDIT_LIBS)

# Fixture recorder (tests/fixtures/gen/record): provokes real Landlock, seccomp and DAC
# records as the test user abt_aud1.
$(B)/tests/record-session: tests/fixtures/gen/record-session.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(shell pkg-config --libs audit libseccomp)

# Fixture recorder (tests/fixtures/gen/net-record): agentbox-netd's records, sent through
# libaudit to the host's auditd as the daemon sends them (net-recorded.log).
$(B)/tests/net-record: tests/fixtures/gen/net-record.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(shell pkg-config --libs audit)

$(B)/fuzz/fuzz_audit: tests/fuzz/fuzz_audit.c $(AUDIT_SRCS) audit/review.h $(UTIL_SRCS) $(UTIL_HDRS)
	@mkdir -p $(@D)
	clang -g -O1 -std=gnu11 -Iaudit -Ilib -I$(B) -fsanitize=fuzzer,address,undefined \
	  -DAB_SLOTS=64 -DAB_WINDOW=32 \
	  -o $@ $< $(AUDIT_SRCS) $(UTIL_SRCS) $(AUDIT_LIBS)

ALL            += $(B)/agentbox-audit
AUDIT_T        := tests/unit/audit_review.t tests/unit/audit_hostile.t \
                  tests/unit/audit_engines.t tests/unit/audit_oracle.t \
                  tests/unit/audit_sessions.t tests/unit/audit_net.t
UNIT_TESTS     += $(B)/tests/unit/audit_record $(B)/tests/unit/audit_bookkeeping $(AUDIT_T)
# The scripts run the sanitizer build of the program: make it before prove runs them.
$(AUDIT_T): $(AUDIT_SAN)
ROOT_TESTS     += tests/e2e/audit_live.t tests/e2e/audit_session.t
# One million denied opens against the host's auditd as enroll tunes it (5-15 minutes).
ROOT_TESTS     += tests/e2e/audit_storm.t
ROOT_TEST_DEPS += $(B)/agentbox-audit $(AUDIT_SAN) $(B)/tests/record-session $(B)/try-op
FUZZERS        += $(B)/fuzz/fuzz_audit
INSTALL        += install-audit
UNINSTALL      += uninstall-audit

.PHONY: install-audit uninstall-audit
install-audit: $(B)/agentbox-audit
	install -D -m 0755 $(B)/agentbox-audit $(DESTDIR)$(SBINDIR)/agentbox-audit

uninstall-audit:
	rm -f $(DESTDIR)$(SBINDIR)/agentbox-audit
