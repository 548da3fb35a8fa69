/*
 * The address policy: after an allowed name is resolved on the host, each address is
 * checked here and only a dialable one is dialled (DESIGN.md "Network by name").  A name
 * the box may use can still resolve to anything its owner likes (DNS rebinding, a
 * wildcard service such as nip.io), so the check is on the address, never the name.
 *
 * Ranges: the IANA IPv4 and IPv6 special-purpose address registries (RFC 6890 and its
 * updates), RFC 1918, RFC 6598 (CGNAT), RFC 4193 (ULA), RFC 5737 and RFC 3849/9637
 * (documentation), RFC 6052 and RFC 8215 (NAT64), RFC 3056 (6to4), RFC 4380 (Teredo).
 * IPv6 outside 2000::/3 that no row names is unallocated: reserved.
 *
 * Metadata services, each a one-hop path to the cloud account's credentials:
 *   169.254.169.254    AWS, GCP, Azure, OpenStack, Oracle instance metadata
 *   169.254.170.2      AWS ECS task metadata and credentials (AWS ECS docs)
 *   169.254.170.23     AWS EKS Pod Identity agent (AWS EKS docs)
 *   fd00:ec2::/32      AWS IMDS over IPv6 (fd00:ec2::254) and its DNS/NTP/EKS neighbours
 *   100.100.100.200    Alibaba Cloud ECS metadata (Alibaba Cloud docs)
 *   168.63.129.16      Azure WireServer (Azure docs "What is IP address 168.63.129.16")
 *   192.0.0.192, fd20:ce::254, fd00:c1::a9fe:a9fe, fd00:42::42
 *                      as listed by anthropics/sandbox-runtime:README.md
 *                      (research/egress_proxy.md 1.1): Oracle, GCP and other clouds
 * All of them already fall in a refused range; the class makes the audit record say
 * "metadata" and makes allow_private lift them only when it names the exact address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"

struct row {
	unsigned prefix;
	uint8_t a[16];
	enum ab_netd_addr_class cls;
};

/* First match wins: exact addresses before the ranges holding them. */
static const struct row v4_rows[] = {
	{ 32, { 169, 254, 169, 254 }, AB_NETD_ADDR_METADATA },
	{ 32, { 169, 254, 170, 2 }, AB_NETD_ADDR_METADATA },
	{ 32, { 169, 254, 170, 23 }, AB_NETD_ADDR_METADATA },
	{ 32, { 100, 100, 100, 200 }, AB_NETD_ADDR_METADATA },
	{ 32, { 168, 63, 129, 16 }, AB_NETD_ADDR_METADATA },
	{ 32, { 192, 0, 0, 192 }, AB_NETD_ADDR_METADATA },
	{ 32, { 0, 0, 0, 0 }, AB_NETD_ADDR_UNSPECIFIED },
	{ 8, { 0 }, AB_NETD_ADDR_RESERVED },			/* "this network" */
	{ 8, { 10 }, AB_NETD_ADDR_PRIVATE },
	{ 10, { 100, 64 }, AB_NETD_ADDR_CGNAT },
	{ 8, { 127 }, AB_NETD_ADDR_LOOPBACK },
	{ 16, { 169, 254 }, AB_NETD_ADDR_LINKLOCAL },
	{ 12, { 172, 16 }, AB_NETD_ADDR_PRIVATE },
	{ 24, { 192, 0, 0 }, AB_NETD_ADDR_RESERVED },		/* IETF protocol assignments */
	{ 24, { 192, 0, 2 }, AB_NETD_ADDR_DOCUMENTATION },
	{ 24, { 192, 88, 99 }, AB_NETD_ADDR_RESERVED },	/* 6to4 relay anycast */
	{ 16, { 192, 168 }, AB_NETD_ADDR_PRIVATE },
	{ 15, { 198, 18 }, AB_NETD_ADDR_RESERVED },		/* benchmarking */
	{ 24, { 198, 51, 100 }, AB_NETD_ADDR_DOCUMENTATION },
	{ 24, { 203, 0, 113 }, AB_NETD_ADDR_DOCUMENTATION },
	{ 4, { 224 }, AB_NETD_ADDR_MULTICAST },
	{ 32, { 255, 255, 255, 255 }, AB_NETD_ADDR_BROADCAST },
	{ 4, { 240 }, AB_NETD_ADDR_RESERVED },
};

static const struct row v6_rows[] = {
	{ 128, { 0 }, AB_NETD_ADDR_UNSPECIFIED },
	{ 128, { [15] = 1 }, AB_NETD_ADDR_LOOPBACK },
	{ 32, { 0xfd, 0x00, 0x0e, 0xc2 }, AB_NETD_ADDR_METADATA },
	{ 128, { 0xfd, 0x20, 0x00, 0xce, [14] = 0x02, 0x54 }, AB_NETD_ADDR_METADATA },
	{ 128, { 0xfd, 0x00, 0x00, 0xc1, [12] = 0xa9, 0xfe, 0xa9, 0xfe }, AB_NETD_ADDR_METADATA },
	{ 128, { 0xfd, 0x00, 0x00, 0x42, [14] = 0x00, 0x42 }, AB_NETD_ADDR_METADATA },
	{ 48, { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, AB_NETD_ADDR_PRIVATE }, /* local-use NAT64 */
	{ 64, { 0x01, 0x00 }, AB_NETD_ADDR_RESERVED },			/* discard-only */
	{ 32, { 0x20, 0x01, 0x0d, 0xb8 }, AB_NETD_ADDR_DOCUMENTATION },
	{ 20, { 0x3f, 0xff }, AB_NETD_ADDR_DOCUMENTATION },
	{ 23, { 0x20, 0x01 }, AB_NETD_ADDR_RESERVED },	/* IETF protocol assignments */
	{ 7, { 0xfc }, AB_NETD_ADDR_ULA },
	{ 10, { 0xfe, 0x80 }, AB_NETD_ADDR_LINKLOCAL },
	{ 10, { 0xfe, 0xc0 }, AB_NETD_ADDR_RESERVED },	/* site-local, deprecated */
	{ 8, { 0xff }, AB_NETD_ADDR_MULTICAST },
	{ 3, { 0x20 }, AB_NETD_ADDR_PUBLIC },		/* global unicast */
	{ 0, { 0 }, AB_NETD_ADDR_RESERVED },		/* unallocated */
};

static const char *const class_names[AB_NETD_ADDR_NCLASSES] = {
	[AB_NETD_ADDR_PUBLIC] = "public",
	[AB_NETD_ADDR_UNSPECIFIED] = "unspecified",
	[AB_NETD_ADDR_LOOPBACK] = "loopback",
	[AB_NETD_ADDR_LINKLOCAL] = "link-local",
	[AB_NETD_ADDR_METADATA] = "metadata",
	[AB_NETD_ADDR_PRIVATE] = "private",
	[AB_NETD_ADDR_CGNAT] = "cgnat",
	[AB_NETD_ADDR_ULA] = "ula",
	[AB_NETD_ADDR_MULTICAST] = "multicast",
	[AB_NETD_ADDR_BROADCAST] = "broadcast",
	[AB_NETD_ADDR_DOCUMENTATION] = "documentation",
	[AB_NETD_ADDR_RESERVED] = "reserved",
	[AB_NETD_ADDR_HOST] = "host",
};

const char *
ab_netd_addr_class_name(enum ab_netd_addr_class cls)
{
	if ((unsigned)cls >= AB_NETD_ADDR_NCLASSES)
		return "unknown";
	return class_names[cls];
}

/* The first prefix bits of a and b are equal. */
static bool
prefix_eq(const uint8_t *a, const uint8_t *b, unsigned prefix)
{
	unsigned whole = prefix / 8, rest = prefix % 8;

	if (memcmp(a, b, whole) != 0)
		return false;
	return rest == 0 || ((a[whole] ^ b[whole]) & (0xff00 >> rest)) == 0;
}

static enum ab_netd_addr_class
lookup(const struct row *rows, size_t n, const uint8_t *a)
{
	for (size_t i = 0; i < n; i++)
		if (prefix_eq(rows[i].a, a, rows[i].prefix))
			return rows[i].cls;
	return AB_NETD_ADDR_PUBLIC;
}

/* The address that is judged: family and bytes, IPv4 unwrapped from IPv6 forms. */
struct judged {
	int family;
	uint8_t a[16];
	enum ab_netd_addr_class cls;
};

static void
judge_v4(struct judged *j, const uint8_t *v4)
{
	j->family = AF_INET;
	memset(j->a, 0, sizeof(j->a));
	memcpy(j->a, v4, 4);
	j->cls = lookup(v4_rows, sizeof(v4_rows) / sizeof(v4_rows[0]), v4);
}

/* IPv6 forms carrying an IPv4 address at a fixed place: the first prefix bytes match. */
static const struct embed {
	unsigned prefix;	/* bits that must match */
	uint8_t a[12];
	unsigned at;		/* where the IPv4 address starts */
} embeds[] = {
	{ 96, { [10] = 0xff, 0xff }, 12 },			/* mapped ::ffff:a.b.c.d */
	{ 96, { [8] = 0xff, 0xff }, 12 },			/* translated ::ffff:0:a.b.c.d */
	{ 96, { 0x00, 0x64, 0xff, 0x9b }, 12 },			/* NAT64 64:ff9b::/96 */
	{ 16, { 0x20, 0x02 }, 2 },				/* 6to4 2002:V4::/48 */
	{ 96, { 0 }, 12 },					/* compatible ::a.b.c.d */
};

/* Teredo (RFC 4380 4): 2001:0:SERVER:flags:port:~CLIENT; the worse of the two decides. */
static bool
judge_teredo(struct judged *j, const uint8_t *a)
{
	static const uint8_t teredo[4] = { 0x20, 0x01, 0x00, 0x00 };
	uint8_t client[4];

	if (memcmp(a, teredo, 4) != 0)
		return false;
	for (int i = 0; i < 4; i++)
		client[i] = (uint8_t)~a[12 + i];
	judge_v4(j, client);
	if (j->cls == AB_NETD_ADDR_PUBLIC)
		judge_v4(j, a + 4);
	return true;
}

static int
judge(const struct sockaddr_storage *ss, struct judged *j)
{
	const uint8_t *a;
	enum ab_netd_addr_class own;

	if (ss->ss_family == AF_INET) {
		judge_v4(j, (const uint8_t *)&((const struct sockaddr_in *)ss)->sin_addr);
		return 0;
	}
	if (ss->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	a = ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr;
	j->family = AF_INET6;
	memcpy(j->a, a, 16);
	/* :: and ::1 first: they are also "compatible" 0.0.0.0 and 0.0.0.1. */
	own = lookup(v6_rows, sizeof(v6_rows) / sizeof(v6_rows[0]), a);
	j->cls = own;
	if (own == AB_NETD_ADDR_UNSPECIFIED || own == AB_NETD_ADDR_LOOPBACK)
		return 0;
	if (judge_teredo(j, a))
		return 0;
	for (size_t i = 0; i < sizeof(embeds) / sizeof(embeds[0]); i++)
		if (prefix_eq(embeds[i].a, a, embeds[i].prefix)) {
			judge_v4(j, a + embeds[i].at);
			return 0;
		}
	return 0;
}

int
ab_netd_addr_classify(const struct sockaddr_storage *ss, enum ab_netd_addr_class *cls)
{
	struct judged j;
	int r;

	if ((r = judge(ss, &j)) != 0)
		return r;
	*cls = j.cls;
	return 0;
}

static bool
in_cidr(const struct ab_netd_cidr *c, int family, const uint8_t *a)
{
	return c->family == family && prefix_eq(c->addr, a, c->prefix);
}

int
ab_netd_cidr_match(const struct ab_netd_cidr *c, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return in_cidr(c, AF_INET,
			       (const uint8_t *)&((const struct sockaddr_in *)ss)->sin_addr);
	if (ss->ss_family == AF_INET6)
		return in_cidr(c, AF_INET6,
			       ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr);
	return 0;
}

/* Decimal 0..max, no sign, no leading zero, no trailing text. */
static int
parse_prefix(const char *s, unsigned max, unsigned *out)
{
	unsigned v = 0;

	if (*s == '\0' || (s[0] == '0' && s[1] != '\0') || strlen(s) > 3)
		return -EINVAL;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*s - '0');
	}
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int
ab_netd_cidr_parse(const char *s, struct ab_netd_cidr *out)
{
	static const uint8_t mapped[12] = { [10] = 0xff, 0xff };
	char addr[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	size_t alen, bytes;

	memset(out, 0, sizeof(*out));
	if (slash == NULL || (alen = (size_t)(slash - s)) == 0 || alen >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	out->family = memchr(addr, ':', alen) != NULL ? AF_INET6 : AF_INET;
	if (inet_pton(out->family, addr, out->addr) != 1)
		return -EINVAL;
	bytes = out->family == AF_INET ? 4 : 16;
	if (parse_prefix(slash + 1, (unsigned)bytes * 8, &out->prefix) != 0)
		return -EINVAL;
	if (out->family == AF_INET6 && out->prefix >= 96 && memcmp(out->addr, mapped, 12) == 0)
		return -EINVAL;
	/* Host bits set: refused rather than silently masked off. */
	for (unsigned bit = out->prefix; bit < bytes * 8; bit++)
		if (out->addr[bit / 8] & (0x80 >> (bit % 8)))
			return -EINVAL;
	return 0;
}

/* Classes allow_private lifts only by naming the exact address ... */
static bool
exact_only(enum ab_netd_addr_class c)
{
	return c == AB_NETD_ADDR_LOOPBACK || c == AB_NETD_ADDR_METADATA || c == AB_NETD_ADDR_HOST;
}

/* ... and those it never lifts: nothing to dial there. */
static bool
never(enum ab_netd_addr_class c)
{
	return c == AB_NETD_ADDR_UNSPECIFIED || c == AB_NETD_ADDR_MULTICAST ||
	       c == AB_NETD_ADDR_BROADCAST;
}

static bool
listed(const struct ab_netd_cidr *v, size_t n, const struct judged *j, bool exact)
{
	unsigned full = j->family == AF_INET ? 32 : 128;

	for (size_t i = 0; i < n; i++)
		if (in_cidr(&v[i], j->family, j->a) && (!exact || v[i].prefix == full))
			return true;
	return false;
}

int
ab_netd_addr_check(const struct ab_netd_addr_policy *p, const struct sockaddr_storage *ss,
		   enum ab_netd_addr_class *cls)
{
	struct judged j;
	int r;

	if ((r = judge(ss, &j)) != 0)
		return r;
	/* The host's own address wins over any class a covering CIDR could lift. */
	if (!exact_only(j.cls) && !never(j.cls) && listed(p->host, p->nhost, &j, false))
		j.cls = AB_NETD_ADDR_HOST;
	*cls = j.cls;
	if (j.cls == AB_NETD_ADDR_PUBLIC)
		return 0;
	if (never(j.cls) || !listed(p->allow, p->nallow, &j, exact_only(j.cls)))
		return -EACCES;
	return 0;
}

static int
host_entry(const struct sockaddr *sa, struct ab_netd_cidr *c)
{
	memset(c, 0, sizeof(*c));
	c->family = sa->sa_family;
	if (sa->sa_family == AF_INET) {
		c->prefix = 32;
		memcpy(c->addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
		return 1;
	}
	if (sa->sa_family == AF_INET6) {
		c->prefix = 128;
		memcpy(c->addr, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
		return 1;
	}
	return 0;
}

int
ab_netd_addr_host_list(struct ab_netd_cidr **out, size_t *n)
{
	struct ifaddrs *ifa, *i;
	struct ab_netd_cidr *v;
	size_t count = 0;

	*out = NULL;
	*n = 0;
	if (getifaddrs(&ifa) == -1)
		return -errno;
	for (i = ifa; i != NULL; i = i->ifa_next)
		count += i->ifa_addr != NULL &&
			 (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6);
	if ((v = calloc(count ? count : 1, sizeof(*v))) == NULL) {
		freeifaddrs(ifa);
		return -ENOMEM;
	}
	for (i = ifa; i != NULL; i = i->ifa_next)
		if (i->ifa_addr != NULL)
			*n += (size_t)host_entry(i->ifa_addr, &v[*n]);
	freeifaddrs(ifa);
	*out = v;
	return 0;
}
