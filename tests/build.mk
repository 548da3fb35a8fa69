# tests/: the one registry of tests (prove runs UNIT_TESTS, then as root ROOT_TESTS),
# the programs they run, and the fuzzers.  Test sources see every component's headers.
$(call objs-in,tests): CPPFLAGS_DIR = -Itests -Itests/unit -Ipam_module -Ishell -Iaudit \
                                      -Iadmin -Inetd -Imaskd -I$(B)/shell -I$(B)/admin
$(call objs-in,tests): PKG_CFLAGS_DIR = $(call pkg,--cflags inih nettle libseccomp pam audit \
                                        libpsl)
T  := $(B)/tests
TS := $(B)/san/tests/unit

# --- Unit tests: no root (as root the ownership cases run too); sanitized programs.
# Every tests/unit/*.t; a script that needs a program built names it below.
# SAN_TESTS: a main in tests/unit/ linked with the objects and archives named below.
NETD_TESTS := $(T)/netd_http $(T)/netd_host $(T)/netd_sni $(T)/netd_dns $(T)/netd_addr \
              $(T)/netd_gateway $(T)/netd_gateway_cred $(T)/netd_proto \
              $(T)/netd_proto_decode $(T)/netd_rules $(T)/netd_polcache
SAN_TESTS  := $(T)/test_lib $(T)/test_pattern $(T)/test_plan $(T)/test_policy \
              $(T)/test_maskset $(T)/test_pam_prefilter $(T)/test_entry $(T)/test_shell \
              $(T)/unit/audit_record $(T)/unit/audit_bookkeeping $(B)/san/admin/admin_util \
              $(NETD_TESTS) $(T)/test_maskd_decide $(T)/test_maskd_history $(T)/netd_record \
              $(T)/test_maskd_handoff $(T)/test_grants $(T)/test_maskd_record \
              $(T)/test_maskd_warm
UNIT_TESTS += $(SAN_TESTS) $(T)/test_pam_load $(sort $(wildcard tests/unit/*.t))

# lib/ alone: hostile bytes through the text helpers.
$(T)/test_lib: $(TS)/test_lib.o
# The policy language alone.  test_policy checks the digest against an independent
# SHA-256: OpenSSL's.
# The mask set's prefilter must never reject a name the real matcher accepts.
$(T)/test_pattern $(T)/test_plan $(T)/test_policy $(T)/test_maskset \
$(T)/test_pam_prefilter $(T)/test_grants: $(T)/%: $(TS)/%.o $(POLICY_LIB_SAN)
$(T)/test_policy: TEST_LIBS = $(call pkg,--libs libcrypto)
# pam_module/entry.c alone: which entry command lines run the agent's login shell.
$(T)/test_entry: $(TS)/test_entry.o $(B)/san/pam_module/entry.o $(B)/san/pam_module/sessfail.o
# shell/ objects without main.c (env.c, plan_check.c, ...).
$(T)/test_shell: $(TS)/test_shell.o $(SHELL_LIB_OBJS:$(B)/%=$(B)/san/%) $(PLAN_LIB_SAN)
$(T)/test_shell: TEST_LIBS = $(SECCOMP_LIBS)
# maskd/'s decision and history of names, without fanotify.
$(T)/test_maskd_decide $(T)/test_maskd_history: $(T)/%: $(TS)/%.o \
    $(B)/san/maskd/decide.o $(B)/san/maskd/history.o $(B)/san/maskd/events.o $(PLAN_LIB_SAN)
# maskd/'s record of each denial: its windows, counts and losses, through a fake sink.
$(T)/test_maskd_record: $(TS)/test_maskd_record.o $(B)/san/maskd/record.o
$(T)/test_maskd_record: TEST_LIBS = -laudit
# maskd/'s warm set: its list, and (as root) what it agrees to open.
$(T)/test_maskd_warm: $(TS)/test_maskd_warm.o $(B)/san/maskd/warm.o
# maskd/'s hand-off message (pam_agentbox -> agentbox-maskd).
$(T)/test_maskd_handoff: $(TS)/test_maskd_handoff.o $(B)/san/maskd/handoff.o $(POLICY_LIB_SAN)
# audit/ without main.c.
$(T)/unit/audit_record: $(TS)/audit_record.o $(AUDIT_SRCS:%.c=$(B)/san/%.o)
$(T)/unit/audit_record: TEST_LIBS = $(AUDIT_LIBS)
# audit/ with its session and domain tables made small, so a few records fill them:
# the same sources, sanitized, in their own directory.
AUDIT_SMALL := $(AUDIT_SRCS:%.c=$(B)/san/small/%.o)
$(AUDIT_SMALL): $(B)/san/small/%.o: %.c | $(B)/config.h $(B)/pkgs.ok
	@mkdir -p $(@D)
	$(COMPILE_SAN)
$(AUDIT_SMALL) $(TS)/audit_bookkeeping.o: CPPFLAGS_DIR = -Itests -Iaudit -DMAX_SESSIONS=8 \
    -DMAX_DOMAINS=8 -DAB_NETVIEW_MAX=8
$(T)/unit/audit_bookkeeping: $(TS)/audit_bookkeeping.o $(AUDIT_SMALL)
$(T)/unit/audit_bookkeeping: TEST_LIBS = $(AUDIT_LIBS)
# admin/'s pure helpers.
$(B)/san/admin/admin_util: $(TS)/admin_util.o $(addprefix $(B)/san/admin/,util.o \
    auditconf.o auditrules.o user.o sshd.o acl.o jsonl.o) $(B)/san/pam_module/auditscope.o \
    $(POLICY_LIB_SAN)
$(B)/san/admin/admin_util: TEST_LIBS = $(ADMIN_LIBS)

# netd/'s core: one truth table per decision.
$(NETD_TESTS): $(T)/%: $(TS)/%.o $(NETD_SRCS:%.c=$(B)/san/%.o)
$(NETD_TESTS): TEST_LIBS = $(NETD_LIBS)
# The daemon's record folding, with its own object (it needs libaudit and pthreads).
$(T)/netd_record: $(TS)/netd_record.o $(B)/san/netd/record.o $(NETD_SRCS:%.c=$(B)/san/%.o)
$(T)/netd_record: TEST_LIBS = $(NETD_LIBS) $(NETD_DAEMON_LIBS)

# lib/'s archive goes last: the others use it.
$(SAN_TESTS): $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(filter-out $(UTIL_LIB_SAN),$(filter %.o %.a,$^)) \
	  $(UTIL_LIB_SAN) $(POLICY_LIBS) $(TEST_LIBS)

# The module alone: dlopen, exports, return codes without root.
$(TS)/test_pam_load.o: CPPFLAGS_DIR = -Itests -DAB_PAM_SO='"$(abspath $(PAM_SO))"'
$(T)/test_pam_load: $(TS)/test_pam_load.o $(PAM_SO)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $< -ldl $(call pkg,--libs pam)

# agentbox check, built alone (the agentbox binary is admin/build.mk's).
$(T)/policy-check: $(TS)/policy_check_main.o $(B)/san/admin/check.o \
    $(B)/san/admin/hostrules.o $(B)/san/netd/hostcheck.o $(POLICY_LIB_SAN) $(UTIL_LIB_SAN)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(POLICY_LIBS) $(NETD_PSL_LIBS)

# Test driver: applies the shell's mechanisms to a plan described on the command line
# (no PAM world needed) and execs a command; shell/ objects without main.c, plus the
# table (seccomp.o) for --export-seccomp.
$(T)/shell-apply: $(B)/tests/unit/shell-apply.o $(SHELL_LIB_OBJS) $(B)/shell/seccomp.o $(PLAN_LIB) \
    $(UTIL_LIB)
	$(CC) $(CFLAGS) -static-pie $(LDFLAGS) -o $@ $^ $(SECCOMP_STATIC)

# try-op runs inside confined sessions: static too, so it needs nothing from the world.
ALL += $(B)/try-op
$(B)/try-op: $(B)/tests/try-op.o
	$(CC) $(CFLAGS) -static-pie $(LDFLAGS) -o $@ $<

tests/unit/policy_check.t tests/unit/policy_check_keys.t: $(T)/policy-check
tests/unit/shell-confine.t: $(T)/shell-apply $(B)/try-op
tests/unit/try-op.t: $(B)/try-op
# The scripts run the sanitizer build of the program.
$(wildcard tests/unit/audit_*.t): $(AUDIT_SAN)
# audit_suggest.t checks the drop-in with agentbox check.
tests/unit/audit_suggest.t: $(B)/agentbox $(B)/agentbox-audit
# man-options.t runs each program's --help.
tests/unit/man-options.t: $(B)/agentbox $(B)/agentbox-audit

# --- Root tests: every tests/e2e/*.t (su, sudo, ssh, tmux, the demo and the Debian
# package in an overlay of the host) and the escape suite, tests/escape/*.t.
ROOT_TESTS     += $(sort $(wildcard tests/e2e/*.t)) $(sort $(wildcard tests/escape/*.t))
ROOT_TEST_DEPS += $(PAM_SO) $(AB_INIT) $(PAM_SAN_SO) $(T)/pam_try $(T)/pam_try_san \
                  $(B)/agentbox-shell $(T)/shell-apply $(B)/try-op $(B)/agentbox-audit \
                  $(AUDIT_SAN) $(T)/record-session $(ADMIN_BIN) $(B)/escape/esc \
                  $(MASKD_BIN) $(T)/maskd-try $(NETD_BIN) $(NETD_SAN) $(T)/netd-box \
                  $(T)/fail-syscall

# netd-box plays the PAM side of a proxy-mode login for tests/e2e/netd_daemon.t.
$(T)/netd-box: $(B)/tests/netd-box.o $(B)/netd/proto.o $(POLICY_LIB) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(POLICY_LIBS)

# pam_try gives the root tests the module's exact verdicts; the _san copy runs the
# sanitized module (tests/e2e/pam_retval.t).
$(T)/pam_try: $(B)/tests/unit/pam_try.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -ldl $(call pkg,--libs pam)
$(T)/pam_try_san: $(TS)/pam_try.o
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $< -ldl $(call pkg,--libs pam)

# Fixture recorder (tests/fixtures/gen/record): provokes real Landlock, seccomp and DAC
# records as the test user abt_aud1.
$(T)/record-session: $(B)/tests/fixtures/gen/record-session.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(call pkg,--libs audit libseccomp)

# Fixture recorder (tests/fixtures/gen/net-record): agentbox-netd's records sent through
# libaudit to the host's auditd, for tests/fixtures/net-recorded.log (made by hand).
$(T)/net-record: $(B)/tests/fixtures/gen/net-record.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(call pkg,--libs audit)

# maskd_enforce.t's agent: one named open-like operation per run.
$(T)/maskd-try: $(B)/tests/maskd-try.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

# A program with one syscall made to fail (seccomp), for fail-closed paths no real
# condition reaches alone (maskd_world.t: a reader agentbox-maskd cannot watch).
$(T)/fail-syscall: $(B)/tests/fail-syscall.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(call pkg,--libs libseccomp)

# The escape suite's attack program runs inside the box, as the agent: normal flags
# (sanitizer runtimes would only add noise there).
$(B)/escape/esc: $(B)/tests/escape/esc.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

# --- libFuzzer targets (make fuzz; seeds in tests/fuzz/seeds/NAME/): the library
# sources compiled in the fuzz flavour, so the sanitizers and coverage see inside them.
# The review's fuzzer runs with small tables, to reach their limits.
NETD_FUZZ := $(B)/fuzz/fuzz_netd_http $(B)/fuzz/fuzz_netd_host $(B)/fuzz/fuzz_netd_sni \
             $(B)/fuzz/fuzz_netd_dns $(B)/fuzz/fuzz_netd_proto
FUZZ_BINS := $(B)/fuzz/fuzz_policy $(B)/fuzz/fuzz_pattern $(B)/fuzz/fuzz_plan \
             $(B)/fuzz/fuzz_audit $(NETD_FUZZ)
FUZZERS   += $(FUZZ_BINS)
$(FUZZ_BINS): $(UTIL_SRCS:%.c=$(B)/fuzz/%.o)
$(B)/fuzz/fuzz_policy $(B)/fuzz/fuzz_pattern $(B)/fuzz/fuzz_plan: $(POLICY_SRCS:%.c=$(B)/fuzz/%.o) \
    $(POLICY_NETD_SRCS:%.c=$(B)/fuzz/%.o)
$(B)/fuzz/fuzz_policy $(B)/fuzz/fuzz_pattern $(B)/fuzz/fuzz_plan: FUZZ_LIBS = $(POLICY_LIBS)
$(B)/fuzz/fuzz_audit: $(AUDIT_SRCS:%.c=$(B)/fuzz/%.o)
$(B)/fuzz/fuzz_audit: FUZZ_LIBS = $(AUDIT_LIBS)
$(NETD_FUZZ): $(NETD_SRCS:%.c=$(B)/fuzz/%.o)
$(NETD_FUZZ): FUZZ_LIBS = $(NETD_LIBS)
$(B)/fuzz/audit/%.o $(B)/fuzz/tests/fuzz/fuzz_audit.o: CPPFLAGS_DIR = -Iaudit \
    -DAB_SLOTS=64 -DAB_WINDOW=32
$(FUZZ_BINS): $(B)/fuzz/%: $(B)/fuzz/tests/fuzz/%.o
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^ $(FUZZ_LIBS)
