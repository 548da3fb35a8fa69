/*
 * netd/dns.c: hostile queries from the box get FORMERR, NOTIMP, REFUSED or nothing, never
 * a lookup; allowed names get their addresses; replies keep ID and question.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "dns.h"
#include "tap.h"

/* The test's resolver: counts calls; "allowed" names are those under example.com. */
struct fake {
	int asked, resolved, fail_allowed, fail_resolve;
	size_t nv4, nv6;
	char last[AB_NETD_DNS_NAME_MAX + 1];
};

static int
fake_allowed(void *ctx, const char *name)
{
	struct fake *f = ctx;
	size_t l = strlen(name);

	f->asked++;
	snprintf(f->last, sizeof(f->last), "%s", name);
	if (f->fail_allowed)
		return -EIO;
	return strcmp(name, "example.com") == 0 ||
	       (l > 12 && strcmp(name + l - 12, ".example.com") == 0);
}

static int
fake_resolve(void *ctx, const char *name, int family, struct sockaddr_storage *out,
	     size_t max, size_t *n)
{
	struct fake *f = ctx;
	size_t want = family == AF_INET ? f->nv4 : f->nv6;

	(void)name;
	f->resolved++;
	if (f->fail_resolve)
		return -EIO;
	*n = 0;
	for (size_t i = 0; i < want && i < max; i++, (*n)++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].ss_family = (sa_family_t)family;
		if (family == AF_INET)
			((struct sockaddr_in *)&out[i])->sin_addr.s_addr = htonl(0x5db8d800 + (uint32_t)i);
		else
			((struct sockaddr_in6 *)&out[i])->sin6_addr.s6_addr[15] = (uint8_t)(i + 1);
	}
	return 0;
}

/* A query: header, then name in presentation form (no escapes), type, class. */
static size_t
build(uint8_t *m, uint16_t id, uint16_t flags, const char *name, uint16_t qtype,
      uint16_t qclass)
{
	size_t at = 12;
	const char *p = name;

	memset(m, 0, 12);
	m[0] = (uint8_t)(id >> 8), m[1] = (uint8_t)id;
	m[2] = (uint8_t)(flags >> 8), m[3] = (uint8_t)flags;
	m[5] = 1;
	while (*p != '\0') {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);

		m[at++] = (uint8_t)l;
		memcpy(m + at, p, l);
		at += l;
		p += l + (dot != NULL);
	}
	m[at++] = 0;
	m[at++] = (uint8_t)(qtype >> 8), m[at++] = (uint8_t)qtype;
	m[at++] = (uint8_t)(qclass >> 8), m[at++] = (uint8_t)qclass;
	return at;
}

/* Append an OPT record (udp size, version, rdlen bytes of zero options data). */
static size_t
add_opt(uint8_t *m, size_t at, uint16_t udp, uint8_t version, uint16_t rdlen)
{
	uint8_t opt[11] = { 0, 0, 41, (uint8_t)(udp >> 8), (uint8_t)udp, 0, version, 0, 0,
			    (uint8_t)(rdlen >> 8), (uint8_t)rdlen };

	m[11] = 1;
	memcpy(m + at, opt, sizeof(opt));
	memset(m + at + 11, 0, rdlen);
	return at + 11 + rdlen;
}

static uint16_t
g16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint8_t out[70000];
static size_t outlen;
static struct ab_netd_dns_verdict v;

static int
answer(struct fake *f, const uint8_t *q, size_t len, int tcp)
{
	struct ab_netd_dns_hooks h = { fake_allowed, fake_resolve, f };

	return ab_netd_dns_answer(&h, q, len, tcp, out, sizeof(out), &outlen, &v);
}

static int
rcode(void)
{
	return outlen >= 12 ? out[3] & 0xf : -1;
}

#define ANCOUNT() g16(out + 6)
#define QDCOUNT() g16(out + 4)
#define TCP_RCODE() (out[5] & 0xf)

static void
test_allowed_and_denied(void)
{
	uint8_t q[600];
	size_t len = build(q, 0x1234, 0x0100, "WwW.Example.COM", 1, 1);
	struct fake f = { .nv4 = 2 };

	ok(answer(&f, q, len, 0) == 0 && rcode() == 0 && ANCOUNT() == 2, "allowed A: two answers");
	ok(g16(out) == 0x1234 && (out[2] & 0x80) && (out[2] & 0x01), "same ID, QR and RD set");
	ok(QDCOUNT() == 1 && memcmp(out + 12, q + 12, len - 12) == 0,
	   "question echoed byte for byte (case kept)");
	ok(strcmp(f.last, "www.example.com") == 0 && strcmp(v.name, "www.example.com") == 0,
	   "decided on the normalised name: %s", f.last);
	ok(g16(out + len + 2) == 1 && g16(out + len + 8) == AB_NETD_DNS_TTL &&
	   g16(out + len + 10) == 4 && out[len + 12] == 93, "A record, short TTL, address");
	ok(outlen == len + 2 * 16, "nothing after the answers");

	memset(&f, 0, sizeof(f));
	len = build(q, 7, 0, "secret-data.evil.tld.", 1, 1);
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_REFUSED, "denied name: REFUSED");
	ok(f.asked == 1 && f.resolved == 0, "denied name: decided, no lookup");
	ok(v.decided && !v.allowed && v.rcode == AB_NETD_DNS_REFUSED, "verdict says denied");
	ok(QDCOUNT() == 1 && ANCOUNT() == 0, "REFUSED keeps the question");

	memset(&f, 0, sizeof(f));
	len = build(q, 8, 0, "example.com", 28, 1);
	f.nv4 = 3;
	ok(answer(&f, q, len, 0) == 0 && rcode() == 0 && ANCOUNT() == 0, "AAAA, no v6: NODATA");

	memset(&f, 0, sizeof(f));
	len = build(q, 9, 0, "example.com", 16, 1);
	ok(answer(&f, q, len, 0) == 0 && rcode() == 0 && ANCOUNT() == 0 && f.resolved == 0,
	   "TXT of an allowed name: NODATA, no lookup");
	len = build(q, 9, 0, "example.com", 255, 1);
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_REFUSED && f.resolved == 0,
	   "ANY: REFUSED");
	len = build(q, 9, 0, "example.com", 252, 1);
	ok(answer(&f, q, len, 1) == 0 && TCP_RCODE() == AB_NETD_DNS_REFUSED, "AXFR over TCP: REFUSED");
	len = build(q, 9, 0, "example.com", 1, 3);
	memset(&f, 0, sizeof(f));
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_REFUSED && f.asked == 0,
	   "class CH: REFUSED, not even decided");
}

static void
test_failures(void)
{
	uint8_t q[600];
	size_t len = build(q, 1, 0, "example.com", 1, 1);
	struct fake f = { .fail_resolve = 1 };

	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_SERVFAIL, "resolver fails: SERVFAIL");
	memset(&f, 0, sizeof(f));
	f.fail_allowed = 1;
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_SERVFAIL && f.resolved == 0,
	   "policy cannot decide: SERVFAIL, no lookup");
	{
		struct ab_netd_dns_hooks h = { fake_allowed, fake_resolve, &f };
		uint8_t small[100];

		ok(ab_netd_dns_answer(&h, q, len, 0, small, sizeof(small), &outlen, &v) == -ENOBUFS,
		   "reply buffer below 514 bytes: -ENOBUFS");
	}
}

static void
test_hostile(void)
{
	uint8_t q[2000];
	size_t len;
	struct fake f = { .nv4 = 1 };

	len = build(q, 2, 0, "example.com", 1, 1);
	ok(answer(&f, q, 11, 0) == 0 && outlen == 0, "11 bytes: no reply");
	ok(answer(&f, q, 16, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR && QDCOUNT() == 0,
	   "name cut mid-label: FORMERR without question");
	ok(answer(&f, q, len - 2, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "no class: FORMERR");

	q[2] |= 0x80;
	memset(&f, 0, sizeof(f));
	ok(answer(&f, q, len, 0) == 0 && outlen == 0 && f.asked == 0, "QR=1 (a response): no reply");
	q[2] = 0x10;	/* opcode 2, STATUS */
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_NOTIMP && (out[2] & 0x78) == 0x10,
	   "opcode STATUS: NOTIMP, opcode echoed");
	q[2] = 0;

	q[5] = 0;
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "qdcount 0: FORMERR");
	q[5] = 2;
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "qdcount 2: FORMERR");
	q[5] = 1;
	q[7] = 1;
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "ancount 1: FORMERR");
	q[7] = 0;
	q[9] = 1;
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "nscount 1: FORMERR");
	q[9] = 0;

	/* Pointers: to the header, to itself (a loop), after a label. */
	{
		uint8_t p1[] = { 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 0x00, 0, 1, 0, 1 };
		uint8_t p2[] = { 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 0x0c, 0, 1, 0, 1 };
		uint8_t p3[] = { 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 'a', 0xc0, 0x0c, 0, 1, 0, 1 };
		uint8_t p4[] = { 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x41, 'a', 0, 0, 1, 0, 1 };

		memset(&f, 0, sizeof(f));
		ok(answer(&f, p1, sizeof(p1), 0) == 0 && rcode() == AB_NETD_DNS_FORMERR,
		   "pointer in the question: FORMERR");
		ok(answer(&f, p2, sizeof(p2), 0) == 0 && rcode() == AB_NETD_DNS_FORMERR,
		   "pointer loop: FORMERR, not followed");
		ok(answer(&f, p3, sizeof(p3), 0) == 0 && rcode() == AB_NETD_DNS_FORMERR,
		   "label then pointer: FORMERR");
		ok(answer(&f, p4, sizeof(p4), 0) == 0 && rcode() == AB_NETD_DNS_FORMERR,
		   "extended label type 0x41: FORMERR");
		/* 0xC0 read as a length would be a 192-byte label: put 192 bytes behind it. */
		memcpy(q, p2, 12);
		q[12] = 0xc0;
		memset(q + 13, 'a', 192);
		memcpy(q + 13 + 192, "\0\0\1\0\1", 5);
		ok(answer(&f, q, 13 + 192 + 5, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR,
		   "pointer byte with 192 bytes behind it: FORMERR");
		ok(f.asked == 0, "none of them reached the policy");
	}

	/* Lengths: 63-byte label and 253-character name fit; 64 and 254 do not. */
	{
		char name[400];

		memset(name, 'a', 64);
		name[64] = '\0';
		len = build(q, 4, 0, name, 1, 1);
		ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "64-byte label: FORMERR");
		name[63] = '\0';
		len = build(q, 4, 0, name, 1, 1);
		ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_REFUSED, "63-byte label: parsed");
		/* 4 x 63 + 3 dots = 255 characters, 257 on the wire. */
		for (int i = 0; i < 4; i++) {
			memset(name + i * 64, 'b', 63);
			name[i * 64 + 63] = '.';
		}
		name[255] = '\0';
		len = build(q, 5, 0, name, 1, 1);
		ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "257-byte wire name: FORMERR");
		name[253] = '\0';	/* 3 x 63 + 61 + dots = 253: 255 on the wire */
		len = build(q, 5, 0, name, 1, 1);
		memset(&f, 0, sizeof(f));
		ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_REFUSED && strlen(f.last) == 253,
		   "253-character name: parsed and decided");
		name[253] = 'b', name[254] = '\0';	/* 254 characters: 256 on the wire */
		len = build(q, 5, 0, name, 1, 1);
		ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "256-byte wire name: FORMERR");
	}

	/* Bytes a host name cannot have: refused without asking the policy. */
	{
		static const char *odd[] = { "evil\1.example.com", "a b.example.com", "x/y.example.com" };

		for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			len = build(q, 6, 0, odd[i], 1, 1);
			memset(&f, 0, sizeof(f));
			ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_REFUSED && f.asked == 0 &&
			   QDCOUNT() == 1, "odd byte in a label (%zu): REFUSED, not decided", i);
		}
		/* A '.' byte inside a label would spell "evil.example.com" as example.com's child. */
		uint8_t dot[] = { 0, 6, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 16, 'e', 'v', 'i', 'l', '.',
				  'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm', 0, 0, 1, 0, 1 };
		memset(&f, 0, sizeof(f));
		ok(answer(&f, dot, sizeof(dot), 0) == 0 && rcode() == AB_NETD_DNS_REFUSED && f.asked == 0,
		   "'.' inside a label: REFUSED, not decided");
		uint8_t nul[] = { 0, 6, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 3, 'a', 0, 'b', 7, 'e', 'x', 'a',
				  'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1 };
		ok(answer(&f, nul, sizeof(nul), 0) == 0 && rcode() == AB_NETD_DNS_REFUSED && f.asked == 0,
		   "NUL inside a label: REFUSED, not decided");
	}

	len = build(q, 7, 0, "example.com", 1, 1);
	q[len] = 0;
	ok(answer(&f, q, len + 1, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "a trailing byte: FORMERR");
	memset(q + len, 0, AB_NETD_DNS_QUERY_MAX);
	ok(answer(&f, q, AB_NETD_DNS_QUERY_MAX + 1, 1) == 0 &&
	   TCP_RCODE() == AB_NETD_DNS_FORMERR, "query over %d bytes: FORMERR", AB_NETD_DNS_QUERY_MAX);
}

static void
test_edns(void)
{
	uint8_t q[2000];
	/* 120 bytes of name: 16 AAAA records (448 bytes) no longer fit in 512. */
	static const char longname[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."
		"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.ccccccccccccccc.example.com";
	size_t len = build(q, 0x4242, 0, longname, 28, 1);
	struct fake f = { .nv6 = 16 };
	int r = answer(&f, q, len, 0);

	ok(r == 0 && (out[2] & 0x02) && ANCOUNT() < 16 && outlen <= 512,
	   "16 AAAA without EDNS: TC, %u answers in %zu bytes", ANCOUNT(), outlen);
	ok(answer(&f, q, len, 1) == 0 && g16(out) == outlen - 2 && !(out[4] & 0x02) &&
	   g16(out + 8) == 16, "over TCP: all 16, length prefix right");
	len = add_opt(q, len, 4096, 0, 0);
	r = answer(&f, q, len, 0);
	ok(r == 0 && !(out[2] & 0x02) && ANCOUNT() == 16 && g16(out + 10) == 1 &&
	   outlen <= AB_NETD_DNS_UDP_MAX, "EDNS 4096: all 16 and an OPT in %zu bytes", outlen);
	ok(g16(out + outlen - 11 + 1) == 41 && g16(out + outlen - 11 + 3) == AB_NETD_DNS_UDP_MAX,
	   "OPT last, our size %d", AB_NETD_DNS_UDP_MAX);

	len = build(q, 1, 0, "example.com", 1, 1);
	len = add_opt(q, len, 512, 1, 0);
	ok(answer(&f, q, len, 0) == 0 && rcode() == 0 && out[outlen - 6] == 1 && ANCOUNT() == 0,
	   "EDNS version 1: BADVERS in the OPT");

	len = build(q, 1, 0, "example.com", 1, 1);
	len = add_opt(q, len, 512, 0, 8);
	q[len - 8 + 1] = 10, q[len - 8 + 3] = 4;	/* option 10, length 4: fills exactly */
	ok(answer(&f, q, len, 0) == 0 && rcode() == 0, "OPT with one option: answered");
	q[len - 8 + 3] = 5;
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "option overruns OPT: FORMERR");
	q[len - 8 - 2] = 0, q[len - 8 - 1] = 9;	/* rdlength 9 > the 8 there */
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "OPT rdlength past the end: FORMERR");

	len = build(q, 1, 0, "example.com", 1, 1);
	len = add_opt(q, len, 512, 0, 0);
	q[len - 11 + 2] = 250;	/* TSIG, not OPT */
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "TSIG in additional: FORMERR");
	q[len - 11 + 2] = 41;
	q[11] = 2;
	ok(answer(&f, q, len, 0) == 0 && rcode() == AB_NETD_DNS_FORMERR, "arcount 2: FORMERR");
}

static void
test_tcp_framing(void)
{
	uint8_t buf[2000];
	const uint8_t *msg;
	size_t mlen, used, len = build(buf + 2, 9, 0, "example.com", 1, 1);
	struct fake f = { .nv4 = 1 };

	buf[0] = 0, buf[1] = (uint8_t)len;
	ok(ab_netd_dns_tcp_next(buf, 1, &msg, &mlen, &used) == -EAGAIN, "one byte: need more");
	ok(ab_netd_dns_tcp_next(buf, len + 1, &msg, &mlen, &used) == -EAGAIN, "short message: need more");
	ok(ab_netd_dns_tcp_next(buf, len + 2, &msg, &mlen, &used) == 0 && msg == buf + 2 &&
	   mlen == len && used == len + 2, "whole message found");
	buf[1] = (uint8_t)(len + 3);
	memset(buf + 2 + len, 0, 3);
	ok(ab_netd_dns_tcp_next(buf, len + 5, &msg, &mlen, &used) == 0 &&
	   answer(&f, msg, mlen, 1) == 0 && TCP_RCODE() == AB_NETD_DNS_FORMERR,
	   "length past the message: FORMERR");
	buf[1] = (uint8_t)(len - 3);
	ok(ab_netd_dns_tcp_next(buf, len + 2, &msg, &mlen, &used) == 0 &&
	   answer(&f, msg, mlen, 1) == 0 && TCP_RCODE() == AB_NETD_DNS_FORMERR,
	   "length cutting the question: FORMERR");
	buf[0] = 0, buf[1] = 0;
	ok(ab_netd_dns_tcp_next(buf, 10, &msg, &mlen, &used) == -EMSGSIZE, "length 0: close");
	buf[0] = 0xff, buf[1] = 0xff;
	ok(ab_netd_dns_tcp_next(buf, sizeof(buf), &msg, &mlen, &used) == -EMSGSIZE,
	   "length 65535: close, never buffered");
}

int
main(void)
{
	test_allowed_and_denied();
	test_failures();
	test_hostile();
	test_edns();
	test_tcp_framing();
	return done_testing();
}
