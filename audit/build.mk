# audit/: agentbox-audit, the review tool.  (The audit rules for enrolled users are
# admin/auditrules.c's and admin/auditconf.c's.)
# Installed in SBINDIR: it reads /var/log/audit (root or group adm), like ausearch.

# Every .c here but main.c and suggest.c: what the unit test and the fuzzer link with
# their own main.  suggest.c judges denials against a user's policy, so it and the
# program link the policy library (and netd/host.c's rule parser, which it holds).
AUDIT_SRCS  := $(filter-out audit/main.c audit/suggest.c,$(sort $(wildcard audit/*.c)))
AUDIT_LIBS   = $(call pkg,--libs audit auparse)
AUDIT_SAN   := $(B)/tests/agentbox-audit-san
$(B)/audit/suggest.o $(B)/san/audit/suggest.o: CPPFLAGS_DIR = -Inetd

$(B)/agentbox-audit: $(AUDIT_SRCS:%.c=$(B)/%.o) $(B)/audit/suggest.o $(B)/audit/main.o \
    $(POLICY_LIB) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(AUDIT_LIBS) $(POLICY_LIBS)

# The same program with ASan+UBSan: the unit tests feed it hostile logs.
$(AUDIT_SAN): $(AUDIT_SRCS:%.c=$(B)/san/%.o) $(B)/san/audit/suggest.o $(B)/san/audit/main.o \
    $(POLICY_LIB_SAN) $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $^ $(AUDIT_LIBS) $(POLICY_LIBS)

ALL       += $(B)/agentbox-audit
INSTALL   += install-audit
UNINSTALL += uninstall-audit

.PHONY: install-audit uninstall-audit
install-audit: $(B)/agentbox-audit
	install -D -m 0755 $(B)/agentbox-audit $(DESTDIR)$(SBINDIR)/agentbox-audit

uninstall-audit:
	rm -f $(DESTDIR)$(SBINDIR)/agentbox-audit
