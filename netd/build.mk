# netd/: the pure core of agentbox-netd, the host-side daemon of `network = proxy`
# (DESIGN.md "Network by name"): request heads (http.c), host names and rules (host.c),
# the public-suffix check (hostcheck.c, libpsl: linked only into `agentbox check` and
# the daemon, never the PAM module), the TLS ClientHello's SNI (sni.c), the box's DNS
# answerer's wire code (dns.c), the address policy (addr.c) and the PAM -> daemon
# hand-off message (proto.c, also linked into the PAM module).  netd/README.md says
# what each decides and what is next.  The base-URL credential gateway (gateway.c), its
# TLS client (tls.c, OpenSSL 3) and credential files (cred.c) are the daemon's only.
# Its tests and fuzzers are tests/build.mk's.

NETD_SRCS      := $(sort $(wildcard netd/*.c))
NETD_LIB       := $(B)/libabnetd.a
NETD_PSL_LIBS   = $(call pkg,--libs libpsl)
NETD_LIBS       = $(call pkg,--libs libpsl openssl) -pthread
$(call objs-in,netd): CPPFLAGS_DIR = -Inetd
$(call objs-in,netd): PKG_CFLAGS_DIR = $(call pkg,--cflags libpsl openssl)

$(NETD_LIB): $(NETD_SRCS:%.c=$(B)/%.o)

ALL += $(NETD_LIB)
