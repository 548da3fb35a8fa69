/*
 * netd/host.h: host names, IP literals and the allow/deny rules of `network = proxy`.
 *
 * Pure functions on bytes: no lookups, no I/O (the public-suffix check in hostcheck.c is
 * the one exception, and it is kept out of this file so the PAM module never links libpsl).
 * Every function returns 0 or -errno and never prints.
 */
#ifndef AB_NETD_HOST_H
#define AB_NETD_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AB_NETD_NAME_MAX 253	/* RFC 1035 §2.3.4: 255 octets on the wire, 253 as text */
#define AB_NETD_LABEL_MAX 63
#define AB_NETD_RULE_TEXT_MAX 300	/* a name, brackets, a prefix and a port fit */

enum ab_netd_host_kind {
	AB_NETD_HOST_NAME,	/* LDH name, lower case, no final dot */
	AB_NETD_HOST_IPV4,	/* also an IPv4-mapped IPv6 literal (::ffff:a.b.c.d) */
	AB_NETD_HOST_IPV6,
};

struct ab_netd_host {
	enum ab_netd_host_kind kind;
	/* Normal form: the lower-case name, or inet_ntop's text of the address (IPv6
	 * without brackets). This is what rules compare and what records print. */
	char text[AB_NETD_NAME_MAX + 1];
	uint8_t addr[16];	/* network order; IPv4 in addr[0..3] */
	bool mapped;		/* written as ::ffff:a.b.c.d: matched as the IPv4 address */
};

/*
 * Parse one host as written in an authority, a Host header, SNI or a rule: a name, a
 * strict dotted-quad IPv4 literal, or a bracketed IPv6 literal ("[2001:db8::1]").
 * Names: LDH labels of 1..63 octets, no leading or trailing hyphen, at most 253 octets,
 * one optional final dot (dropped), folded to lower case; the last label must not be
 * all digits. Refused (-EINVAL): anything libc's inet_aton would read as an address but
 * that is not a strict dotted quad ("127.1", "0x7f.1", "0177.0.0.1", "2130706433",
 * "0x7f000001"): they are how a request names loopback without saying so; IPv6 zone ids
 * ("%eth0"), an unbracketed IPv6 literal, empty labels, non-ASCII (write IDNs as
 * A-labels, "xn--..."), underscores and every other byte outside LDH.
 */
int ab_netd_host_parse(const char *s, size_t len, struct ab_netd_host *out);

/*
 * Split an authority "HOST[:PORT]" (no userinfo, nothing after the port) and parse both.
 * PORT is 1..65535 in decimal without a sign or leading zero. When the authority has no
 * port: *port = default_port, or -EINVAL when default_port is 0 (port required).
 * Returns 0, or -EINVAL for anything else.
 */
int ab_netd_authority_parse(const char *s, size_t len, uint16_t default_port,
			    struct ab_netd_host *host, uint16_t *port);

enum ab_netd_rule_kind {
	AB_NETD_RULE_NAME,	/* exactly this name */
	AB_NETD_RULE_WILDCARD,	/* "*.BASE": names strictly below BASE, not BASE itself */
	AB_NETD_RULE_IPV4,	/* an address or a CIDR, only when written as one */
	AB_NETD_RULE_IPV6,
};

struct ab_netd_rule {
	enum ab_netd_rule_kind kind;
	bool deny;		/* deny_host: wins over every allow */
	uint16_t port;		/* 443 unless written */
	uint8_t prefix;		/* CIDR length; 32 or 128 for a single address */
	uint8_t addr[16];
	char base[AB_NETD_NAME_MAX + 1];	/* NAME: the name; WILDCARD: BASE */
	char text[AB_NETD_RULE_TEXT_MAX + 1];	/* as written, for the audit record */
};

#define AB_NETD_DEFAULT_PORT 443

/*
 * Parse one rule: "NAME[:PORT]", "*.NAME[:PORT]", "A.B.C.D[/LEN][:PORT]",
 * "[IPV6[/LEN]][:PORT]". The wildcard is only ever the whole first label ("*.*.x",
 * "a*.x", "*x.x" and a bare "*" are refused) and never applies to an IP literal. A CIDR
 * with host bits set ("10.0.0.1/8") is refused as ambiguous. 0, or -EINVAL with *why
 * (when WHY is not NULL) set to a static phrase saying what is wrong.
 * This is syntax only: ab_netd_rule_check adds the public-suffix test.
 */
int ab_netd_rule_parse(const char *text, bool deny, struct ab_netd_rule *out,
		       const char **why);

/* Whether RULE covers HOST:PORT (true/false; no errors). */
bool ab_netd_rule_match(const struct ab_netd_rule *rule, const struct ab_netd_host *host,
			uint16_t port);

struct ab_netd_verdict {
	bool allow;
	size_t index;		/* the deciding rule, or SIZE_MAX for the default deny */
	const char *rule;	/* its text, or NULL for the default deny */
};

/*
 * Decide HOST:PORT against RULES[0..n): any matching deny rule denies (the first one is
 * named), else the first matching allow rule allows, else deny by default. Always
 * fills *v; returns 0.
 */
int ab_netd_decide(const struct ab_netd_rule *rules, size_t n,
		   const struct ab_netd_host *host, uint16_t port, struct ab_netd_verdict *v);

/*
 * Check-time validation (hostcheck.c, linked only into `agentbox check` and the daemon:
 * it needs libpsl). A wildcard whose BASE is a public suffix of either section of the
 * Public Suffix List (PSL_TYPE_ANY: ICANN "com", "co.uk" and private "github.io",
 * "s3.amazonaws.com" alike, because each name below a private suffix belongs to someone
 * else too) is refused. Returns 0, -EINVAL (refused), or -ENOENT when no list could be
 * loaded (callers fail closed).
 */
struct ab_netd_suffixes;
int ab_netd_suffixes_open(struct ab_netd_suffixes **out);
void ab_netd_suffixes_free(struct ab_netd_suffixes *s);
int ab_netd_rule_check(const struct ab_netd_suffixes *s, const struct ab_netd_rule *rule);

#endif /* AB_NETD_HOST_H */
