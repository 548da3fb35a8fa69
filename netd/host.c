/*
 * netd/host.c: host names, IP literals, rules and the allow/deny decision.
 *
 * Strict on purpose: one spelling per host. libc reads "127.1", "0x7f.1", "0177.0.0.1"
 * and "2130706433" as 127.0.0.1 (inet_aton(3)), so a lax parser lets a request name
 * loopback while a rule sees a harmless-looking name. Such spellings are refused, not
 * normalised: nothing legitimate sends them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "host.h"

#define AB_NETD_STR2(x) #x
#define AB_NETD_STR(x) AB_NETD_STR2(x)

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char
lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Decimal 0..max without sign or leading zero; whole of s[0..len). */
static int
parse_dec(const char *s, size_t len, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (len == 0 || len > 5 || (len > 1 && s[0] == '0'))
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
parse_port(const char *s, size_t len, uint16_t *port)
{
	unsigned long v;

	if (parse_dec(s, len, 65535, &v) != 0 || v == 0)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

/* Strict dotted quad: four decimal parts 0..255, no leading zeros. */
static int
parse_ipv4(const char *s, size_t len, uint8_t addr[4])
{
	size_t part = 0, start = 0;
	unsigned long v;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (part == 4 || parse_dec(s + start, i - start, 255, &v) != 0)
			return -EINVAL;
		addr[part++] = (uint8_t)v;
		start = i + 1;
	}
	return part == 4 ? 0 : -EINVAL;
}

static void
set_ipv4(struct ab_netd_host *h, const uint8_t a[4])
{
	h->kind = AB_NETD_HOST_IPV4;
	memset(h->addr, 0, sizeof(h->addr));
	memcpy(h->addr, a, 4);
	inet_ntop(AF_INET, a, h->text, sizeof(h->text));
}

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* The text between the brackets of an IPv6 literal; inet_pton refuses zone ids. */
static int
parse_ipv6(const char *s, size_t len, struct ab_netd_host *h)
{
	char buf[INET6_ADDRSTRLEN];
	uint8_t a[16];

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET6, buf, a) != 1)
		return -EINVAL;
	if (memcmp(a, v4mapped, sizeof(v4mapped)) == 0) {
		set_ipv4(h, a + 12);
		h->mapped = true;
		return 0;
	}
	h->kind = AB_NETD_HOST_IPV6;
	memcpy(h->addr, a, 16);
	inet_ntop(AF_INET6, a, h->text, sizeof(h->text));
	return 0;
}

/* One LDH label (RFC 952/1123): 1..63 octets, no hyphen at either end. */
static bool
label_ok(const char *s, size_t len)
{
	if (len == 0 || len > AB_NETD_LABEL_MAX || s[0] == '-' || s[len - 1] == '-')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = lower(s[i]);

		if (!(is_digit(c) || (c >= 'a' && c <= 'z') || c == '-'))
			return false;
	}
	return true;
}

/* Would libc take this for an IPv4 address?  Then only the strict quad is accepted. */
static bool
libc_reads_as_ipv4(const char *s, size_t len)
{
	char buf[AB_NETD_NAME_MAX + 2];
	struct in_addr a;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return inet_aton(buf, &a) != 0;
}

static int
parse_name(const char *s, size_t len, struct ab_netd_host *h)
{
	size_t start = 0, last = 0;
	bool numeric = true;

	if (len > 0 && s[len - 1] == '.')
		len--;	/* "example.com." and "example.com" are one name */
	if (len == 0 || len > AB_NETD_NAME_MAX)
		return -EINVAL;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (!label_ok(s + start, i - start))
			return -EINVAL;
		last = start;
		start = i + 1;
	}
	for (size_t i = last; i < len; i++)
		numeric = numeric && is_digit(s[i]);
	/* RFC 3696 §2: no all-numeric top-level label; inet_aton forms end in one too. */
	if (numeric || libc_reads_as_ipv4(s, len))
		return -EINVAL;
	h->kind = AB_NETD_HOST_NAME;
	for (size_t i = 0; i < len; i++)
		h->text[i] = lower(s[i]);
	h->text[len] = '\0';
	return 0;
}

int
ab_netd_host_parse(const char *s, size_t len, struct ab_netd_host *out)
{
	struct ab_netd_host h;
	uint8_t a[4];
	int r;

	memset(&h, 0, sizeof(h));
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']')
		r = parse_ipv6(s + 1, len - 2, &h);
	else if (parse_ipv4(s, len, a) == 0) {
		set_ipv4(&h, a);
		r = 0;
	} else
		r = parse_name(s, len, &h);
	if (r != 0)
		return r;
	*out = h;
	return 0;
}

/* Where the host part of an authority ends: after "]" for IPv6, else at the last ':'. */
static size_t
host_end(const char *s, size_t len)
{
	const char *p;

	if (len > 0 && s[0] == '[') {
		p = memchr(s, ']', len);
		return p != NULL ? (size_t)(p - s) + 1 : len;
	}
	p = memchr(s, ':', len);
	return p != NULL ? (size_t)(p - s) : len;
}

int
ab_netd_authority_parse(const char *s, size_t len, uint16_t default_port,
			struct ab_netd_host *host, uint16_t *port)
{
	size_t end = host_end(s, len);
	struct ab_netd_host h;
	uint16_t p = default_port;

	if (ab_netd_host_parse(s, end, &h) != 0)
		return -EINVAL;
	if (end < len) {
		if (s[end] != ':' || parse_port(s + end + 1, len - end - 1, &p) != 0)
			return -EINVAL;
	} else if (default_port == 0)
		return -EINVAL;
	*host = h;
	*port = p;
	return 0;
}

/* "/LEN" after an address: 0..max, written without a leading zero. */
static int
split_prefix(const char *s, size_t *len, unsigned max, uint8_t *prefix)
{
	const char *slash = memchr(s, '/', *len);
	unsigned long v;

	if (slash == NULL) {
		*prefix = (uint8_t)max;
		return 0;
	}
	if (parse_dec(slash + 1, *len - (size_t)(slash - s) - 1, max, &v) != 0)
		return -EINVAL;
	*len = (size_t)(slash - s);
	*prefix = (uint8_t)v;
	return 0;
}

static bool
prefix_equal(const uint8_t *a, const uint8_t *b, unsigned bits)
{
	unsigned bytes = bits / 8, rest = bits % 8;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));

	if (memcmp(a, b, bytes) != 0)
		return false;
	return rest == 0 || ((a[bytes] ^ b[bytes]) & mask) == 0;
}

/* An address rule: "A.B.C.D[/LEN]" or "[V6[/LEN]]" (the host part of the rule). */
static int
parse_ip_rule(const char *s, size_t len, struct ab_netd_rule *r)
{
	bool v6 = len >= 2 && s[0] == '[' && s[len - 1] == ']';
	struct ab_netd_host h;
	size_t alen = v6 ? len - 2 : len;
	const char *a = v6 ? s + 1 : s;

	memset(&h, 0, sizeof(h));
	if (split_prefix(a, &alen, v6 ? 128 : 32, &r->prefix) != 0)
		return -EINVAL;
	if (v6 ? parse_ipv6(a, alen, &h) != 0 : parse_ipv4(a, alen, h.addr) != 0)
		return -EINVAL;
	if (v6 && h.mapped) {
		/* [::ffff:a.b.c.d/LEN] is the IPv4 rule a.b.c.d/(LEN-96). */
		if (r->prefix < 96)
			return -EINVAL;
		r->prefix = (uint8_t)(r->prefix - 96);
	}
	r->kind = (v6 && !h.mapped) ? AB_NETD_RULE_IPV6 : AB_NETD_RULE_IPV4;
	memcpy(r->addr, h.addr, 16);
	/* Host bits below the prefix: "10.0.0.1/8" means two things; refuse it. */
	for (unsigned bit = r->prefix; bit < (r->kind == AB_NETD_RULE_IPV6 ? 128u : 32u); bit++)
		if (r->addr[bit / 8] & (0x80 >> (bit % 8)))
			return -EINVAL;
	return 0;
}

static int
parse_rule_host(const char *s, size_t len, struct ab_netd_rule *r)
{
	struct ab_netd_host h;

	if (len >= 2 && s[0] == '*' && s[1] == '.') {
		if (ab_netd_host_parse(s + 2, len - 2, &h) != 0 || h.kind != AB_NETD_HOST_NAME)
			return -EINVAL;
		r->kind = AB_NETD_RULE_WILDCARD;
		memcpy(r->base, h.text, sizeof(r->base));
		return 0;
	}
	if (parse_ip_rule(s, len, r) == 0)
		return 0;
	if (ab_netd_host_parse(s, len, &h) != 0 || h.kind != AB_NETD_HOST_NAME)
		return -EINVAL;
	r->kind = AB_NETD_RULE_NAME;
	memcpy(r->base, h.text, sizeof(r->base));
	return 0;
}

/* Why the host part of a rule was refused, for `agentbox check`'s FILE:LINE message. */
static const char *
rule_host_why(const char *s, size_t len)
{
	if (len == 1 && s[0] == '*')
		return "a bare * would allow every host";
	if (memchr(s, '*', len) != NULL)
		return "a wildcard is only a whole first label before a name (*.example.com)";
	if (memchr(s, '/', len) != NULL)
		return "not an address/prefix (host bits set, or the prefix out of range)";
	return "not a host name, an IPv4 address or a bracketed IPv6 address";
}

int
ab_netd_rule_parse(const char *text, bool deny, struct ab_netd_rule *out, const char **why)
{
	size_t len = strnlen(text, AB_NETD_RULE_TEXT_MAX + 1);
	struct ab_netd_rule r;
	const char *unused;
	size_t end;

	why = why != NULL ? why : &unused;
	*why = len == 0 ? "empty" : "longer than " AB_NETD_STR(AB_NETD_RULE_TEXT_MAX) " bytes";
	if (len == 0 || len > AB_NETD_RULE_TEXT_MAX)
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	r.deny = deny;
	r.port = AB_NETD_DEFAULT_PORT;
	end = host_end(text, len);
	*why = rule_host_why(text, end);
	if (parse_rule_host(text, end, &r) != 0)
		return -EINVAL;
	*why = "the port is not 1 to 65535 in decimal";
	if (end < len && (text[end] != ':' || parse_port(text + end + 1, len - end - 1,
							  &r.port) != 0))
		return -EINVAL;
	*why = NULL;
	memcpy(r.text, text, len);
	r.text[len] = '\0';
	*out = r;
	return 0;
}

static bool
name_below(const char *name, const char *base)
{
	size_t n = strlen(name), b = strlen(base);

	return n > b + 1 && name[n - b - 1] == '.' && memcmp(name + n - b, base, b) == 0;
}

bool
ab_netd_rule_match(const struct ab_netd_rule *rule, const struct ab_netd_host *host,
		   uint16_t port)
{
	if (rule->port != port)
		return false;
	switch (rule->kind) {
	case AB_NETD_RULE_NAME:
		return host->kind == AB_NETD_HOST_NAME && strcmp(host->text, rule->base) == 0;
	case AB_NETD_RULE_WILDCARD:
		return host->kind == AB_NETD_HOST_NAME && name_below(host->text, rule->base);
	case AB_NETD_RULE_IPV4:
		return host->kind == AB_NETD_HOST_IPV4 &&
		       prefix_equal(host->addr, rule->addr, rule->prefix);
	case AB_NETD_RULE_IPV6:
		return host->kind == AB_NETD_HOST_IPV6 &&
		       prefix_equal(host->addr, rule->addr, rule->prefix);
	}
	return false;
}

int
ab_netd_decide(const struct ab_netd_rule *rules, size_t n, const struct ab_netd_host *host,
	       uint16_t port, struct ab_netd_verdict *v)
{
	size_t allow = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		if (!ab_netd_rule_match(&rules[i], host, port))
			continue;
		if (rules[i].deny) {
			*v = (struct ab_netd_verdict){ false, i, rules[i].text };
			return 0;
		}
		if (allow == SIZE_MAX)
			allow = i;
	}
	if (allow != SIZE_MAX)
		*v = (struct ab_netd_verdict){ true, allow, rules[allow].text };
	else
		*v = (struct ab_netd_verdict){ false, SIZE_MAX, NULL };
	return 0;
}
