# netd/: agentbox-netd, the host-side daemon of `network = proxy` (DESIGN.md "Network by
# name"), and its pure core: request heads (http.c), host names and rules (host.c), the
# public-suffix check (hostcheck.c, libpsl: linked only into `agentbox check` and the
# daemon, never the PAM module), the TLS ClientHello's SNI (sni.c), the box's DNS
# answerer's wire code (dns.c), the address policy (addr.c), the session-open message
# (proto.c, shared with the PAM module's sending side), the session's rules and
# decisions (rules.c) and the base-URL credential gateway (gateway.c, its OpenSSL TLS
# client tls.c, credential files cred.c).  netd/README.md says what each does.  Tests and fuzzers:
# tests/build.mk.

# The daemon's own files (threads, audit, sockets): not in the core archive.
NETD_DAEMON_SRCS := netd/main.c netd/session.c netd/conn.c netd/resolve.c netd/dnsserve.c \
                    netd/record.c netd/loader.c netd/gwconn.c
NETD_SRCS      := $(filter-out $(NETD_DAEMON_SRCS),$(sort $(wildcard netd/*.c)))
NETD_LIB       := $(B)/libabnetd.a
NETD_PSL_LIBS   = $(call pkg,--libs libpsl)
NETD_LIBS       = $(call pkg,--libs libpsl openssl) -pthread
NETD_DAEMON_LIBS = $(call pkg,--libs audit libcap-ng openssl) -lpthread
NETD_BIN       := $(B)/agentbox-netd
$(call objs-in,netd): CPPFLAGS_DIR = -Inetd
$(call objs-in,netd): PKG_CFLAGS_DIR = $(call pkg,--cflags libpsl audit libcap-ng openssl)

$(NETD_LIB): $(NETD_SRCS:%.c=$(B)/%.o)

$(NETD_BIN): $(NETD_DAEMON_SRCS:%.c=$(B)/%.o) $(NETD_LIB) $(POLICY_LIB) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(NETD_LIB) $(POLICY_LIB) $(UTIL_LIB) \
	  $(POLICY_LIBS) $(NETD_PSL_LIBS) $(NETD_DAEMON_LIBS)

ALL += $(NETD_LIB) $(NETD_BIN)

# The daemon under ASan+UBSan, for AB_NETD=$(B)/san/agentbox-netd prove
# tests/e2e/netd_daemon.t (with ASAN_OPTIONS=detect_leaks=0: LeakSanitizer cannot
# ptrace a process that changed its uid).
NETD_SAN := $(B)/san/agentbox-netd
$(NETD_SAN): $(NETD_DAEMON_SRCS:%.c=$(B)/san/%.o) $(NETD_SRCS:%.c=$(B)/san/%.o) \
    $(POLICY_LIB_SAN) $(UTIL_LIB_SAN)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(filter %.o,$^) $(POLICY_LIB_SAN) \
	  $(UTIL_LIB_SAN) $(POLICY_LIBS) $(NETD_PSL_LIBS) $(NETD_DAEMON_LIBS)

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
