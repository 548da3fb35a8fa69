/*
 * The address policy (addr.c): may this session dial this resolved address?  Pure
 * classification and matching; the host's own addresses come from a snapshot taken
 * separately (ab_netd_addr_host_list), so tests pass lists of their own.
 */
#ifndef AB_NETD_ADDR_H
#define AB_NETD_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Why an address is not an ordinary public one; the name goes in the audit record. */
enum ab_netd_addr_class {
	AB_NETD_ADDR_PUBLIC = 0,
	AB_NETD_ADDR_UNSPECIFIED,	/* 0.0.0.0, :: (Linux dials its own host for them) */
	AB_NETD_ADDR_LOOPBACK,		/* 127/8, ::1 */
	AB_NETD_ADDR_LINKLOCAL,		/* 169.254/16, fe80::/10 */
	AB_NETD_ADDR_METADATA,		/* cloud instance metadata services: see addr.c */
	AB_NETD_ADDR_PRIVATE,		/* RFC 1918; 64:ff9b:1::/48 local-use NAT64 */
	AB_NETD_ADDR_CGNAT,		/* 100.64/10 (RFC 6598) */
	AB_NETD_ADDR_ULA,		/* fc00::/7 (RFC 4193) */
	AB_NETD_ADDR_MULTICAST,		/* 224/4, ff00::/8 */
	AB_NETD_ADDR_BROADCAST,		/* 255.255.255.255 */
	AB_NETD_ADDR_DOCUMENTATION,	/* TEST-NET-1..3, 2001:db8::/32, 3fff::/20 */
	AB_NETD_ADDR_RESERVED,		/* the rest of the IANA special-purpose registries */
	AB_NETD_ADDR_HOST,		/* one of the host's own addresses */
	AB_NETD_ADDR_NCLASSES
};

/* An address (prefix == 32 or 128) or a network; family AF_INET or AF_INET6. */
struct ab_netd_cidr {
	int family;
	unsigned prefix;
	uint8_t addr[16];	/* network byte order; 4 bytes used for AF_INET */
};

/* What one session may dial besides public addresses. */
struct ab_netd_addr_policy {
	const struct ab_netd_cidr *allow;	/* allow_private = CIDR ... */
	size_t nallow;
	const struct ab_netd_cidr *host;	/* the host's own addresses, /32 and /128 */
	size_t nhost;
};

/* A short lower-case name for cls ("loopback", "metadata", ...); never NULL. */
const char *ab_netd_addr_class_name(enum ab_netd_addr_class cls);

/*
 * Classify ss (AF_INET or AF_INET6; the port and scope are ignored).  An IPv6 address
 * that carries an IPv4 one (mapped ::ffff:a.b.c.d, translated ::ffff:0:a.b.c.d,
 * compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32) is judged
 * by that IPv4 address (Teredo: by the worse of server and client).  Returns 0 and *cls,
 * or -EAFNOSUPPORT.
 */
int ab_netd_addr_classify(const struct sockaddr_storage *ss, enum ab_netd_addr_class *cls);

/*
 * Parse one allow_private entry, strictly: ADDRESS/LENGTH, the address as inet_pton(3)
 * takes it (IPv4: four decimal parts, so no "10.1/8" shorthand, no octal or hex), the
 * length in decimal without leading zeros, no host bits set ("10.1.2.3/8" is a typo or
 * a misunderstanding: refused, not silently widened), no IPv4-mapped IPv6 (write the
 * IPv4 form: mapped addresses are judged as IPv4).  Returns 0 or -EINVAL.
 */
int ab_netd_cidr_parse(const char *s, struct ab_netd_cidr *out);

/* 1 if ss lies in c, else 0 (also for a family mismatch).  Embedded IPv4 is not unwrapped. */
int ab_netd_cidr_match(const struct ab_netd_cidr *c, const struct sockaddr_storage *ss);

/*
 * Whether the session may dial ss, the address it will actually connect to.  Returns 0
 * (dialable) or -EACCES (refused), with *cls the address's class either way, so the
 * audit record can say "public", "private, allowed by allow_private" or why not; or
 * -EAFNOSUPPORT.  A public address is dialable unless it is one of the host's own.
 * allow_private lifts a refusal when an entry covers the address (embedded IPv4 is
 * judged in its IPv4 form), with two limits: loopback, metadata and the host's own
 * addresses are lifted only by an entry naming exactly that address (/32 or /128), so a
 * wide test range never opens the host's services or the metadata service by accident;
 * unspecified, multicast and broadcast are never dialable.
 */
int ab_netd_addr_check(const struct ab_netd_addr_policy *p, const struct sockaddr_storage *ss,
		       enum ab_netd_addr_class *cls);

/*
 * Snapshot the host's own addresses (getifaddrs(3), every interface, up or not) as /32
 * and /128 entries in a new array *out of *n; free(3) it.  Returns 0 or -errno.
 */
int ab_netd_addr_host_list(struct ab_netd_cidr **out, size_t *n);

#endif /* AB_NETD_ADDR_H */
