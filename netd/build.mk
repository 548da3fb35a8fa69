# netd/: agentbox-netd, the host-side daemon of `network = proxy` (DESIGN.md "Network by
# name").  This part: the DNS answerer's wire code and the address policy, pure code
# with unit tests (sanitized, like the others) and a libFuzzer target.
NETD_DNS_SRCS := netd/dns.c netd/addr.c
NETD_DNS_HDRS := netd/dns.h netd/addr.h
NETD_DNS_OBJS := $(NETD_DNS_SRCS:%.c=$(B)/%.o)

# A static pattern rule: these objects only, beside any other netd/ rule.
$(NETD_DNS_OBJS): $(B)/netd/%.o: netd/%.c $(NETD_DNS_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<
ALL += $(NETD_DNS_OBJS)

NETD_DNS_TESTS := $(B)/tests/netd_dns $(B)/tests/netd_addr
$(NETD_DNS_TESTS): $(B)/tests/%: tests/unit/%.c $(NETD_DNS_SRCS) $(NETD_DNS_HDRS) tests/tap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Itests -Inetd $(LDFLAGS) -o $@ $< $(NETD_DNS_SRCS)
UNIT_TESTS += $(NETD_DNS_TESTS)

# make fuzz; seeds in tests/fuzz/seeds/fuzz_netd_dns/ (FUZZ_FLAGS: policy/build.mk).
$(B)/fuzz/fuzz_netd_dns: tests/fuzz/fuzz_netd_dns.c $(NETD_DNS_SRCS) $(NETD_DNS_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Inetd -o $@ $< $(NETD_DNS_SRCS)
FUZZERS += $(B)/fuzz/fuzz_netd_dns
