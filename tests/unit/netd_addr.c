/*
 * netd/addr.c: the truth table of address classes (every IPv4-in-IPv6 form judged by its
 * IPv4 address), strict allow_private parsing, and the dial decision.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "tap.h"

static struct sockaddr_storage
sa(const char *s)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(s, ':') != NULL) {
		ss.ss_family = AF_INET6;
		if (inet_pton(AF_INET6, s, &((struct sockaddr_in6 *)&ss)->sin6_addr) != 1)
			ss.ss_family = AF_UNSPEC;
	} else {
		ss.ss_family = AF_INET;
		if (inet_pton(AF_INET, s, &((struct sockaddr_in *)&ss)->sin_addr) != 1)
			ss.ss_family = AF_UNSPEC;
	}
	return ss;
}

#define P AB_NETD_ADDR_PUBLIC
static const struct {
	const char *addr;
	enum ab_netd_addr_class cls;
} table[] = {
	{ "93.184.216.34", P }, { "8.8.8.8", P }, { "1.1.1.1", P },
	{ "0.0.0.0", AB_NETD_ADDR_UNSPECIFIED }, { "0.1.2.3", AB_NETD_ADDR_RESERVED },
	{ "127.0.0.1", AB_NETD_ADDR_LOOPBACK }, { "127.255.255.254", AB_NETD_ADDR_LOOPBACK },
	{ "10.0.0.1", AB_NETD_ADDR_PRIVATE }, { "172.16.0.1", AB_NETD_ADDR_PRIVATE },
	{ "172.31.255.255", AB_NETD_ADDR_PRIVATE }, { "172.32.0.1", P }, { "172.15.255.255", P },
	{ "192.168.1.1", AB_NETD_ADDR_PRIVATE },
	{ "100.64.0.1", AB_NETD_ADDR_CGNAT }, { "100.127.255.255", AB_NETD_ADDR_CGNAT },
	{ "100.128.0.1", P }, { "100.63.255.255", P },
	{ "169.254.0.1", AB_NETD_ADDR_LINKLOCAL },
	{ "169.254.169.254", AB_NETD_ADDR_METADATA }, { "169.254.170.2", AB_NETD_ADDR_METADATA },
	{ "100.100.100.200", AB_NETD_ADDR_METADATA }, { "168.63.129.16", AB_NETD_ADDR_METADATA },
	{ "192.0.0.192", AB_NETD_ADDR_METADATA }, { "192.0.0.8", AB_NETD_ADDR_RESERVED },
	{ "192.0.2.1", AB_NETD_ADDR_DOCUMENTATION }, { "198.51.100.7", AB_NETD_ADDR_DOCUMENTATION },
	{ "203.0.113.9", AB_NETD_ADDR_DOCUMENTATION }, { "192.88.99.1", AB_NETD_ADDR_RESERVED },
	{ "198.18.0.1", AB_NETD_ADDR_RESERVED }, { "198.19.255.255", AB_NETD_ADDR_RESERVED },
	{ "198.20.0.1", P },
	{ "224.0.0.1", AB_NETD_ADDR_MULTICAST }, { "239.255.255.250", AB_NETD_ADDR_MULTICAST },
	{ "240.0.0.1", AB_NETD_ADDR_RESERVED }, { "255.255.255.254", AB_NETD_ADDR_RESERVED },
	{ "255.255.255.255", AB_NETD_ADDR_BROADCAST },
	/* IPv6 proper. */
	{ "2606:2800:220:1:248:1893:25c8:1946", P }, { "2a00:1450::1", P },
	{ "::", AB_NETD_ADDR_UNSPECIFIED }, { "::1", AB_NETD_ADDR_LOOPBACK },
	{ "fe80::1", AB_NETD_ADDR_LINKLOCAL }, { "febf::1", AB_NETD_ADDR_LINKLOCAL },
	{ "fec0::1", AB_NETD_ADDR_RESERVED },
	{ "fc00::1", AB_NETD_ADDR_ULA }, { "fd12:3456::1", AB_NETD_ADDR_ULA },
	{ "fd00:ec2::254", AB_NETD_ADDR_METADATA }, { "fd00:ec2::23", AB_NETD_ADDR_METADATA },
	{ "fd20:ce::254", AB_NETD_ADDR_METADATA }, { "fd00:c1::a9fe:a9fe", AB_NETD_ADDR_METADATA },
	{ "fd00:42::42", AB_NETD_ADDR_METADATA },
	{ "ff02::1", AB_NETD_ADDR_MULTICAST }, { "ff0e::1", AB_NETD_ADDR_MULTICAST },
	{ "2001:db8::1", AB_NETD_ADDR_DOCUMENTATION }, { "3fff::1", AB_NETD_ADDR_DOCUMENTATION },
	{ "100::1", AB_NETD_ADDR_RESERVED }, { "2001:2::1", AB_NETD_ADDR_RESERVED },
	{ "4000::1", AB_NETD_ADDR_RESERVED }, { "64:ff9b:1::a00:1", AB_NETD_ADDR_PRIVATE },
	/* IPv4 inside IPv6: mapped, translated, compatible, NAT64, 6to4, Teredo. */
	{ "::ffff:127.0.0.1", AB_NETD_ADDR_LOOPBACK }, { "::ffff:169.254.169.254", AB_NETD_ADDR_METADATA },
	{ "::ffff:10.1.2.3", AB_NETD_ADDR_PRIVATE }, { "::ffff:8.8.8.8", P },
	{ "::ffff:0.0.0.0", AB_NETD_ADDR_UNSPECIFIED },
	{ "::ffff:0:127.0.0.1", AB_NETD_ADDR_LOOPBACK }, { "::ffff:0:8.8.8.8", P },
	{ "::127.0.0.1", AB_NETD_ADDR_LOOPBACK }, { "::192.168.0.1", AB_NETD_ADDR_PRIVATE },
	{ "::8.8.8.8", P }, { "::2", AB_NETD_ADDR_RESERVED },
	{ "64:ff9b::169.254.169.254", AB_NETD_ADDR_METADATA }, { "64:ff9b::a9fe:a9fe", AB_NETD_ADDR_METADATA },
	{ "64:ff9b::7f00:1", AB_NETD_ADDR_LOOPBACK }, { "64:ff9b::808:808", P },
	{ "2002:7f00:1::", AB_NETD_ADDR_LOOPBACK }, { "2002:a9fe:a9fe::1", AB_NETD_ADDR_METADATA },
	{ "2002:c0a8:101::1", AB_NETD_ADDR_PRIVATE }, { "2002:808:808::1", P },
	/* Teredo 2001:0:SERVER:flags:port:~CLIENT; ~127.0.0.1 = 80ff:fffe. */
	{ "2001:0:808:808:0:0:80ff:fffe", AB_NETD_ADDR_LOOPBACK },
	{ "2001:0:7f00:1:0:0:f7f7:f7f7", AB_NETD_ADDR_LOOPBACK },
	{ "2001:0:808:808:0:0:f7f7:f7f7", P },
	{ "2001:0:808:808:0:0:5601:5601", AB_NETD_ADDR_METADATA },
};

static void
test_table(void)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		struct sockaddr_storage ss = sa(table[i].addr);
		enum ab_netd_addr_class c = AB_NETD_ADDR_NCLASSES;
		int r = ab_netd_addr_classify(&ss, &c);

		ok(r == 0 && c == table[i].cls, "%s is %s (got %s)", table[i].addr,
		   ab_netd_addr_class_name(table[i].cls), ab_netd_addr_class_name(c));
	}
	{
		struct sockaddr_storage ss = { .ss_family = AF_UNIX };
		enum ab_netd_addr_class c;

		ok(ab_netd_addr_classify(&ss, &c) == -EAFNOSUPPORT, "AF_UNIX: -EAFNOSUPPORT");
	}
	ok(strcmp(ab_netd_addr_class_name(AB_NETD_ADDR_NCLASSES), "unknown") == 0 &&
	   strcmp(ab_netd_addr_class_name(AB_NETD_ADDR_HOST), "host") == 0, "class names");
}

static void
test_cidr_parse(void)
{
	static const char *good[] = { "10.0.0.0/8", "192.168.1.0/24", "10.1.2.3/32", "0.0.0.0/0",
				      "fd00::/8", "fd00:ec2::254/128", "2001:db8::/32", "::/0" };
	static const char *bad[] = { "10.1/8", "10/8", "10.0.0.0", "10.0.0.0/", "/8", "10.0.0.0/33",
				     "10.0.0.0/08", "10.0.0.0/+8", "10.0.0.0/-1", "10.0.0.0/8 ",
				     " 10.0.0.0/8", "10.0.0.1/8", "010.0.0.0/8", "0x0a.0.0.0/8",
				     "10.0.0.0/8/8", "fd00::1/8", "fd00::/129", "fe80::/10%eth0",
				     "fe80::%eth0/10", "::ffff:10.0.0.0/104", "::ffff:127.0.0.1/128",
				     "10.0.0.0/1000", "", "/", "1.2.3.4.5/32", "1.2.3.256/32" };
	struct ab_netd_cidr c;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(ab_netd_cidr_parse(good[i], &c) == 0, "accepted: %s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(ab_netd_cidr_parse(bad[i], &c) == -EINVAL, "refused: '%s'", bad[i]);
	ok(ab_netd_cidr_parse("172.16.0.0/12", &c) == 0 && c.family == AF_INET && c.prefix == 12,
	   "172.16.0.0/12 parsed");
	{
		struct sockaddr_storage in = sa("172.31.0.9"), out = sa("172.32.0.1"), v6 = sa("::1");

		ok(ab_netd_cidr_match(&c, &in) && !ab_netd_cidr_match(&c, &out) &&
		   !ab_netd_cidr_match(&c, &v6), "172.16.0.0/12 matches inside only, same family");
	}
}

static struct ab_netd_cidr
cidr(const char *s)
{
	struct ab_netd_cidr c;

	if (ab_netd_cidr_parse(s, &c) != 0)
		abort();
	return c;
}

/* dial(addr) with the policy below: 0 or -EACCES, and the class. */
static int
dial(const struct ab_netd_addr_policy *p, const char *addr, enum ab_netd_addr_class *c)
{
	struct sockaddr_storage ss = sa(addr);

	return ab_netd_addr_check(p, &ss, c);
}

static void
test_check(void)
{
	struct ab_netd_cidr host[] = { cidr("127.0.0.1/32"), cidr("203.0.113.5/32"),
				       cidr("192.168.7.2/32"), cidr("2a01:4f8::2/128") };
	struct ab_netd_cidr allow[] = { cidr("10.99.0.0/16"), cidr("192.168.0.0/16"),
					cidr("169.254.0.0/16"), cidr("127.0.0.0/8"),
					cidr("fd00::/8"), cidr("100.100.100.200/32"),
					cidr("224.0.0.0/4") };
	struct ab_netd_addr_policy none = { 0 }, hostonly = { NULL, 0, host, 4 };
	struct ab_netd_addr_policy p = { allow, 7, host, 4 };
	enum ab_netd_addr_class c;

	ok(dial(&none, "93.184.216.34", &c) == 0 && c == AB_NETD_ADDR_PUBLIC, "public: dialable");
	ok(dial(&none, "10.99.1.1", &c) == -EACCES && c == AB_NETD_ADDR_PRIVATE, "RFC 1918: refused");
	ok(dial(&none, "169.254.169.254", &c) == -EACCES && c == AB_NETD_ADDR_METADATA, "metadata: refused");
	ok(dial(&none, "::ffff:169.254.169.254", &c) == -EACCES && c == AB_NETD_ADDR_METADATA,
	   "mapped metadata: refused");
	ok(dial(&none, "fd00:ec2::254", &c) == -EACCES && c == AB_NETD_ADDR_METADATA,
	   "IPv6 metadata: refused");
	ok(dial(&hostonly, "203.0.113.5", &c) == -EACCES && c == AB_NETD_ADDR_HOST,
	   "the host's own address: refused as host");
	ok(dial(&hostonly, "::ffff:203.0.113.5", &c) == -EACCES && c == AB_NETD_ADDR_HOST,
	   "the host's own address, mapped: refused");
	ok(dial(&hostonly, "2002:cb00:7105::1", &c) == -EACCES && c == AB_NETD_ADDR_HOST,
	   "the host's own address in 6to4: refused");
	ok(dial(&hostonly, "2a01:4f8::2", &c) == -EACCES && c == AB_NETD_ADDR_HOST,
	   "the host's own IPv6 address: refused");
	ok(dial(&hostonly, "2a01:4f8::3", &c) == 0 && c == AB_NETD_ADDR_PUBLIC, "its neighbour: dialable");

	ok(dial(&p, "10.99.1.1", &c) == 0 && c == AB_NETD_ADDR_PRIVATE, "allow_private 10.99/16 lifts 10.99.1.1");
	ok(dial(&p, "::ffff:10.99.1.1", &c) == 0, "... and its mapped form");
	ok(dial(&p, "10.98.1.1", &c) == -EACCES, "... not 10.98.1.1");
	ok(dial(&p, "fd12::1", &c) == 0 && c == AB_NETD_ADDR_ULA, "fd00::/8 lifts a ULA");
	ok(dial(&p, "169.254.3.3", &c) == 0 && c == AB_NETD_ADDR_LINKLOCAL, "169.254/16 lifts link-local");
	ok(dial(&p, "169.254.169.254", &c) == -EACCES && c == AB_NETD_ADDR_METADATA,
	   "... but not the metadata address inside it");
	ok(dial(&p, "fd00:ec2::254", &c) == -EACCES && c == AB_NETD_ADDR_METADATA,
	   "fd00::/8 does not lift IPv6 metadata");
	ok(dial(&p, "100.100.100.200", &c) == 0 && c == AB_NETD_ADDR_METADATA,
	   "a /32 naming a metadata address lifts it");
	ok(dial(&p, "127.0.0.2", &c) == -EACCES && c == AB_NETD_ADDR_LOOPBACK,
	   "127/8 does not lift loopback (exact addresses only)");
	ok(dial(&p, "192.168.7.2", &c) == -EACCES && c == AB_NETD_ADDR_HOST,
	   "192.168/16 does not lift the host's own 192.168.7.2");
	ok(dial(&p, "192.168.7.3", &c) == 0 && c == AB_NETD_ADDR_PRIVATE, "... but lifts its neighbour");
	ok(dial(&p, "224.0.0.1", &c) == -EACCES && c == AB_NETD_ADDR_MULTICAST, "multicast: never");
	ok(dial(&p, "0.0.0.0", &c) == -EACCES && c == AB_NETD_ADDR_UNSPECIFIED, "0.0.0.0: never");
	ok(dial(&p, "::", &c) == -EACCES && c == AB_NETD_ADDR_UNSPECIFIED, ":: never");
	{
		struct ab_netd_cidr exact[] = { cidr("127.0.0.1/32"), cidr("192.168.7.2/32") };
		struct ab_netd_addr_policy pe = { exact, 2, host, 4 };

		ok(dial(&pe, "127.0.0.1", &c) == 0 && dial(&pe, "192.168.7.2", &c) == 0,
		   "exact /32 entries lift loopback and a host address");
		ok(dial(&pe, "::ffff:127.0.0.1", &c) == 0, "... also in mapped form");
		ok(dial(&pe, "127.0.0.2", &c) == -EACCES, "... and nothing else");
	}
}

static void
test_host_list(void)
{
	struct ab_netd_cidr *v = NULL;
	size_t n = 0;
	int lo = 0;

	ok(ab_netd_addr_host_list(&v, &n) == 0, "getifaddrs snapshot");
	for (size_t i = 0; i < n; i++)
		lo |= v[i].family == AF_INET && v[i].prefix == 32 && v[i].addr[0] == 127;
	ok(lo, "it holds a 127/8 address (%zu entries)", n);
	free(v);
}

int
main(void)
{
	test_table();
	test_cidr_parse();
	test_check();
	test_host_list();
	return done_testing();
}
