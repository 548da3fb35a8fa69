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

NETD_LIB       := $(B)/libabnetd.a
NETD_OBJS      := $(NETD_SRCS:netd/%.c=$(B)/netd/%.o) $(NETD_PSL_SRCS:netd/%.c=$(B)/netd/%.o)

$(B)/netd:
	mkdir -p $@

$(B)/netd/%.o: netd/%.c $(NETD_HDRS) | $(B)/netd
	$(CC) $(CFLAGS) $(NETD_PSL_CFLAGS) -Inetd -c -o $@ $<

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

# The session-open message (proto.c): shared with the PAM module's sending side, so it
# needs only libc and lib/ (the user-name rule).
NETD_PROTO_SRCS := netd/proto.c
NETD_PROTO_HDRS := netd/proto.h

# agentbox-netd, the daemon: main.c's loop plus one file per mechanism.
NETD_DAEMON_SRCS := netd/main.c netd/session.c netd/conn.c netd/resolve.c netd/loader.c \
	netd/dnsserve.c netd/record.c netd/rules.c
NETD_DAEMON_HDRS := netd/daemon.h netd/record.h netd/rules.h netd/loader.h $(NETD_PROTO_HDRS)
NETD_DAEMON_OBJS := $(NETD_DAEMON_SRCS:netd/%.c=$(B)/netd/%.o) \
	$(NETD_PROTO_SRCS:netd/%.c=$(B)/netd/%.o)
NETD_DAEMON_LIBS := $(shell pkg-config --libs audit libcap-ng) -lpthread
NETD_BIN := $(B)/agentbox-netd

$(NETD_DAEMON_OBJS): $(NETD_DAEMON_HDRS) $(POLICY_HDRS)

$(NETD_BIN): $(NETD_DAEMON_OBJS) $(NETD_LIB) $(POLICY_LIB) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(NETD_DAEMON_OBJS) $(NETD_LIB) $(POLICY_LIB) \
	  $(UTIL_LIB) $(POLICY_LIBS) $(NETD_PSL_LIBS) $(NETD_DAEMON_LIBS)

ALL += $(NETD_BIN)

# tests/netd-box: the PAM side of a proxy-mode login, for the daemon's root tests.
NETD_BOX := $(B)/tests/netd-box
$(NETD_BOX): tests/netd-box.c $(NETD_PROTO_SRCS) $(NETD_PROTO_HDRS) $(POLICY_LIB) $(UTIL_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Inetd $(LDFLAGS) -o $@ $< $(NETD_PROTO_SRCS) $(POLICY_LIB) \
	  $(UTIL_LIB) $(POLICY_LIBS)
ROOT_TEST_DEPS += $(NETD_BIN) $(NETD_BOX)

# The daemon's pure parts, unit-tested with the sanitizers.
NETD_DAEMON_TESTS := $(B)/tests/netd_proto $(B)/tests/netd_rules $(B)/tests/netd_record
$(B)/tests/netd_proto: tests/unit/netd_proto.c $(NETD_PROTO_SRCS) $(NETD_PROTO_HDRS) \
    tests/tap.h $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Inetd -Itests -o $@ $< $(NETD_PROTO_SRCS) $(UTIL_LIB_SAN)
$(B)/tests/netd_rules: tests/unit/netd_rules.c netd/rules.c netd/rules.h $(NETD_SRCS) \
    $(NETD_PSL_SRCS) $(NETD_HDRS) tests/tap.h $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(NETD_PSL_CFLAGS) -Inetd -Itests -o $@ $< netd/rules.c \
	  $(NETD_SRCS) $(NETD_PSL_SRCS) $(UTIL_LIB_SAN) $(NETD_PSL_LIBS)
$(B)/tests/netd_record: tests/unit/netd_record.c netd/record.c netd/record.h netd/rules.c \
    $(NETD_SRCS) $(NETD_PSL_SRCS) $(NETD_HDRS) tests/tap.h $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(NETD_PSL_CFLAGS) -Inetd -Itests -o $@ $< netd/record.c \
	  netd/rules.c $(NETD_SRCS) $(NETD_PSL_SRCS) $(UTIL_LIB_SAN) $(NETD_PSL_LIBS) \
	  $(NETD_DAEMON_LIBS)
UNIT_TESTS += $(NETD_DAEMON_TESTS)
ROOT_TESTS += tests/e2e/netd_daemon.t

$(B)/fuzz/fuzz_netd_proto: tests/fuzz/fuzz_netd_proto.c $(NETD_PROTO_SRCS) $(NETD_PROTO_HDRS) \
    $(UTIL_SRCS) $(UTIL_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Inetd -o $@ $< $(NETD_PROTO_SRCS) $(UTIL_SRCS)
FUZZERS += $(B)/fuzz/fuzz_netd_proto

# make install: the daemon, and (a real install, not a staged DESTDIR one) its system
# user, so the daemon can start right after.  The Debian package creates the user in
# its postinst instead (debian/agentbox.postinst).  Never removed by uninstall: files a
# removed uid owned would be inherited by the next user to get it.
NETD_USER := agentbox-netd
.PHONY: install-netd uninstall-netd
install-netd: $(NETD_BIN)
	install -D -m 0755 -o root -g root $(NETD_BIN) $(DESTDIR)$(SBINDIR)/agentbox-netd
	@if [ -z "$(DESTDIR)" ] && ! getent passwd $(NETD_USER) >/dev/null; then \
	  echo "install-netd: creating the system user $(NETD_USER)"; \
	  useradd --system --user-group --no-create-home --home-dir /nonexistent \
	    --shell /usr/sbin/nologin --comment "agentbox egress proxy" $(NETD_USER); \
	fi
uninstall-netd:
	rm -f $(DESTDIR)$(SBINDIR)/agentbox-netd
INSTALL += install-netd
UNINSTALL += uninstall-netd
