# netd/: the pure core of agentbox-netd, the host-side daemon of `network = proxy`
# (DESIGN.md "Network by name"): request heads (http.c), host names and rules (host.c),
# the public-suffix check (hostcheck.c, libpsl: linked only into `agentbox check` and
# the daemon, never the PAM module), the TLS ClientHello's SNI (sni.c), the box's DNS
# answerer's wire code (dns.c) and the address policy (addr.c).  netd/README.md says
# what each decides and what is next.

NETD_SRCS      := netd/host.c netd/http.c netd/sni.c netd/dns.c netd/addr.c
NETD_PSL_SRCS  := netd/hostcheck.c
NETD_HDRS      := netd/host.h netd/http.h netd/sni.h netd/dns.h netd/addr.h
NETD_PSL_CFLAGS := $(shell pkg-config --cflags libpsl)
NETD_PSL_LIBS  := $(shell pkg-config --libs libpsl)
# The base-URL credential gateway (gateway.c, its TLS client tls.c, credential files
# cred.c): OpenSSL 3, linked only into the daemon and its tests.
NETD_GW_SRCS   := netd/gateway.c netd/tls.c netd/cred.c
NETD_GW_HDRS   := netd/gateway.h netd/tls.h netd/cred.h
NETD_SSL_CFLAGS := $(shell pkg-config --cflags openssl)
NETD_SSL_LIBS  := $(shell pkg-config --libs openssl)

NETD_LIB       := $(B)/libabnetd.a
NETD_OBJS      := $(NETD_SRCS:netd/%.c=$(B)/netd/%.o) $(NETD_PSL_SRCS:netd/%.c=$(B)/netd/%.o) \
	$(NETD_GW_SRCS:netd/%.c=$(B)/netd/%.o)

$(B)/netd:
	mkdir -p $@

$(B)/netd/%.o: netd/%.c $(NETD_HDRS) $(NETD_GW_HDRS) | $(B)/netd
	$(CC) $(CFLAGS) $(NETD_PSL_CFLAGS) $(NETD_SSL_CFLAGS) -Inetd -c -o $@ $<

$(NETD_LIB): $(NETD_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

ALL += $(NETD_LIB)

# Unit tests (no root): the sources are compiled into each test with the sanitizers.
NETD_TESTS := $(B)/tests/netd_http $(B)/tests/netd_host $(B)/tests/netd_sni \
	$(B)/tests/netd_dns $(B)/tests/netd_addr
$(NETD_TESTS): $(B)/tests/%: tests/unit/%.c tests/tap.h tests/unit/netd_feed.h \
    $(NETD_SRCS) $(NETD_PSL_SRCS) $(NETD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(NETD_PSL_CFLAGS) -Inetd -Itests -Itests/unit -o $@ $< \
	  $(NETD_SRCS) $(NETD_PSL_SRCS) $(NETD_PSL_LIBS)
UNIT_TESTS += $(NETD_TESTS)

# The gateway's tests: a fake upstream TLS server on 127.0.0.1 (test CA made with the
# openssl CLI at run time), so they need threads and libssl.
NETD_GW_TESTS := $(B)/tests/netd_gateway $(B)/tests/netd_gateway_cred
$(NETD_GW_TESTS): $(B)/tests/%: tests/unit/%.c tests/tap.h $(NETD_SRCS) $(NETD_GW_SRCS) \
    $(NETD_HDRS) $(NETD_GW_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(NETD_SSL_CFLAGS) -pthread -Inetd -Itests -Itests/unit -o $@ $< \
	  $(NETD_SRCS) $(NETD_GW_SRCS) $(NETD_SSL_LIBS)
UNIT_TESTS += $(NETD_GW_TESTS)

# libFuzzer targets (make fuzz; seeds in tests/fuzz/seeds/NAME/); FUZZ_CC and FUZZ_FLAGS
# come from policy/build.mk.
NETD_FUZZERS := $(B)/fuzz/fuzz_netd_http $(B)/fuzz/fuzz_netd_host $(B)/fuzz/fuzz_netd_sni \
	$(B)/fuzz/fuzz_netd_dns
$(NETD_FUZZERS): $(B)/fuzz/%: tests/fuzz/%.c tests/unit/netd_feed.h $(NETD_SRCS) \
    $(NETD_PSL_SRCS) $(NETD_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(NETD_PSL_CFLAGS) -Inetd -Itests/unit -o $@ $< $(NETD_SRCS) \
	  $(NETD_PSL_SRCS) $(NETD_PSL_LIBS)
FUZZERS += $(NETD_FUZZERS)
