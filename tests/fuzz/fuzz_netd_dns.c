/*
 * libFuzzer: bytes from the box -> ab_netd_dns_answer, over UDP and over TCP.  Every
 * reply must parse back, with a walker written here independently of dns.c, as one
 * valid DNS response with the query's ID and opcode and, when it carries a question,
 * the query's question byte for byte; no lookup may happen for a name the policy did
 * not allow; a response sent to us is never answered.  Anything else aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "dns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fake {
	int said_no;		/* allowed() answered 0 */
	unsigned seed;
};

/* Allowed names: an even length, so both branches are reached from any corpus. */
static int
fz_allowed(void *ctx, const char *name)
{
	struct fake *f = ctx;
	int yes = strlen(name) % 2 == 0;

	f->said_no |= !yes;
	return yes;
}

static int
fz_resolve(void *ctx, const char *name, int family, struct sockaddr_storage *out,
	   size_t max, size_t *n)
{
	struct fake *f = ctx;

	(void)name;
	if (f->said_no)
		abort();	/* a lookup for a denied name */
	*n = f->seed % (max + 1);
	for (size_t i = 0; i < *n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		/* Some of the wrong family: the builder must skip them. */
		out[i].ss_family = (sa_family_t)((f->seed >> i) & 1 ? AF_INET : family);
		((struct sockaddr_in6 *)&out[i])->sin6_addr.s6_addr[15] = (uint8_t)i;
	}
	return f->seed % 7 == 0 ? -5 : 0;
}

static uint16_t
g16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Length of the uncompressed name at m[at], or 0 if it is not one. */
static size_t
plain_name(const uint8_t *m, size_t len, size_t at)
{
	size_t start = at;

	while (at < len && m[at] != 0) {
		if (m[at] > 63)
			return 0;
		at += 1 + m[at];
	}
	if (at >= len || at + 1 - start > 255)
		return 0;
	return at + 1 - start;
}

static void
check_reply(const uint8_t *q, const uint8_t *m, size_t len, int tcp)
{
	size_t at = 12, qlen = 0;
	unsigned qd, an, ns, ar, rcode;
	uint16_t qtype = 0;

	if (tcp) {
		if (len < 2 || g16(m) != len - 2)
			abort();
		m += 2, len -= 2;
	} else if (len > AB_NETD_DNS_UDP_MAX) {
		abort();
	}
	if (len < 12 || g16(m) != g16(q) || !(m[2] & 0x80) || (m[2] & 0x78) != (q[2] & 0x78))
		abort();
	qd = g16(m + 4), an = g16(m + 6), ns = g16(m + 8), ar = g16(m + 10);
	rcode = m[3] & 0xf;
	if (qd > 1 || ns != 0 || ar > 1 || an > AB_NETD_DNS_ANSWERS_MAX)
		abort();
	if (qd == 1) {
		if ((qlen = plain_name(m, len, at)) == 0 || len - at - qlen < 4)
			abort();
		qlen += 4;
		if (memcmp(m + at, q + at, qlen) != 0)	/* the query's own question */
			abort();
		qtype = g16(m + at + qlen - 4);
		at += qlen;
	}
	if (an != 0 && (qd != 1 || rcode != 0 || (qtype != 1 && qtype != 28)))
		abort();
	for (unsigned i = 0; i < an; i++) {
		size_t rd = qtype == 1 ? 4 : 16;

		if (len - at < 12 + rd || g16(m + at) != 0xC00C || g16(m + at + 2) != qtype ||
		    g16(m + at + 4) != 1 || g16(m + at + 10) != rd)
			abort();
		at += 12 + rd;
	}
	if (ar == 1) {
		if (len - at < 11 || m[at] != 0 || g16(m + at + 1) != 41 || g16(m + at + 9) != 0)
			abort();
		at += 11;
	} else if (!tcp && len > 512) {
		abort();	/* more than 512 bytes to a client that did not offer EDNS */
	}
	if (at != len)
		abort();
}

static void
one(const uint8_t *data, size_t size, int tcp)
{
	static uint8_t out[2 + 65535];
	/* The query's ID picks the resolver's answers: 0..16 addresses, failures. */
	struct fake f = { 0, size >= 2 ? (unsigned)(data[0] ^ data[1]) : 0 };
	struct ab_netd_dns_hooks h = { fz_allowed, fz_resolve, &f };
	struct ab_netd_dns_verdict v;
	size_t outlen = 1;

	if (ab_netd_dns_answer(&h, data, size, tcp, out, sizeof(out), &outlen, &v) != 0)
		abort();
	if (outlen == 0) {
		if (size >= 12 && !(data[2] & 0x80))
			abort();	/* a query left unanswered */
		return;
	}
	if (size < 12 || (data[2] & 0x80))
		abort();	/* a response (or less than a header) answered */
	if (v.rcode < 0 || (v.allowed && !v.decided))
		abort();
	check_reply(data, out, outlen, tcp);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *msg;
	size_t mlen, used;

	one(data, size, 0);
	one(data, size, 1);
	/* The same bytes as a TCP stream: the framed message must lie inside them. */
	if (ab_netd_dns_tcp_next(data, size, &msg, &mlen, &used) == 0) {
		if (msg != data + 2 || used != mlen + 2 || used > size)
			abort();
		one(msg, mlen, 1);
	}
	return 0;
}
