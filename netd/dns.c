/*
 * The box's DNS answerer, wire side: one strict parser for queries, one builder for
 * replies, and the step between them that decides on the name before any lookup.
 *
 * Why no library (Debian's libldns was the candidate).  Every byte here comes from the
 * agent, which is the adversary.  ldns_wire2pkt() is a general message parser: it
 * follows compression pointers, accepts any section counts, allocates per record, and
 * would still leave every check this answerer needs (one question, no pointer in the
 * question, class IN, only an OPT in the additional section, no trailing bytes) to us.
 * The subset we accept is one header, one uncompressed name, four bytes and an
 * optional OPT: about a hundred lines with fixed bounds, no allocation and no
 * recursion, fuzzed in tests/fuzz/fuzz_netd_dns.c.  Reusing ldns would put a larger
 * parser, and a new library in a daemon every session depends on, in front of the
 * same checks.  Replies we build are tiny and fixed-shape.
 *
 * TTL: AB_NETD_DNS_TTL (5 s) lets a client's A, AAAA and connect reuse one answer
 * while a changed policy or upstream address shows within seconds; the proxy resolves
 * again on the host for every tunnel anyway (decide, resolve, dial the checked address).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "dns.h"

#define HDR_LEN		12
#define F_QR		0x8000
#define F_OPCODE	0x7800
#define F_TC		0x0200
#define F_RD		0x0100
#define F_RA		0x0080
#define F_CD		0x0010
#define CLASS_IN	1
#define OPT_RR_LEN	11	/* root name, type, class, ttl, rdlength */

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Letters, digits, '-' and '_' (SRV-style labels): nothing else can be a host name the
 * policy names, and '.' or NUL inside a label would make two names spell alike. */
static int
name_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/*
 * The question's name at msg[*off]: plain labels only.  A pointer (or the obsolete
 * extended label types) in the one name of a query is never needed, so it is FORMERR,
 * never followed.  Writes the normalised name; -EPROTO malformed, -EILSEQ odd bytes.
 */
static int
parse_name(const uint8_t *msg, size_t len, size_t *off, char *name)
{
	size_t at = *off, out = 0;
	int odd = 0;

	for (;;) {
		uint8_t l;

		if (at >= len)
			return -EPROTO;
		l = msg[at++];
		if (l == 0)
			break;
		if (l > 63)	/* 0xC0 pointer, 0x40/0x80 extended label types */
			return -EPROTO;
		if (at + l > len || at - *off + l >= AB_NETD_DNS_WIRE_MAX)
			return -EPROTO;
		if (out != 0)
			name[out++] = '.';
		for (uint8_t i = 0; i < l; i++) {
			uint8_t c = msg[at++];

			odd |= !name_byte(c);
			name[out++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
		}
	}
	name[out] = '\0';
	*off = at;
	if (odd) {
		name[0] = '\0';
		return -EILSEQ;
	}
	return 0;
}

/* The only additional record a query may carry: OPT (RFC 6891 6.1.1), options walked
 * to prove they fill its data exactly, their content ignored. */
static int
parse_opt(const uint8_t *msg, size_t len, size_t *off, struct ab_netd_dns_query *q)
{
	size_t at = *off, rdlen, end;
	uint16_t size;

	if (len - at < OPT_RR_LEN || msg[at] != 0 || get16(msg + at + 1) != AB_NETD_DNS_OPT)
		return -EPROTO;
	size = get16(msg + at + 3);
	q->edns = true;
	q->edns_version = msg[at + 6];
	q->udp_size = size < 512 ? 512 : size > AB_NETD_DNS_UDP_MAX ? AB_NETD_DNS_UDP_MAX : size;
	rdlen = get16(msg + at + 9);
	at += OPT_RR_LEN;
	if (rdlen > len - at)
		return -EPROTO;
	for (end = at + rdlen; at < end; at += 4 + get16(msg + at + 2))
		if (end - at < 4 || get16(msg + at + 2) > end - at - 4)
			return -EPROTO;
	*off = at;
	return 0;
}

int
ab_netd_dns_parse(const uint8_t *msg, size_t len, struct ab_netd_dns_query *q)
{
	size_t off = HDR_LEN, qstart;
	int r;

	memset(q, 0, sizeof(*q));
	q->udp_size = 512;
	if (len < HDR_LEN)
		return -EBADMSG;
	q->id = get16(msg);
	q->flags = get16(msg + 2);
	if (q->flags & F_QR)
		return -EBADMSG;
	if (q->flags & F_OPCODE)
		return -EOPNOTSUPP;
	if (len > AB_NETD_DNS_QUERY_MAX || get16(msg + 4) != 1 || get16(msg + 6) != 0 ||
	    get16(msg + 8) != 0 || get16(msg + 10) > 1)
		return -EPROTO;
	qstart = off;
	r = parse_name(msg, len, &off, q->name);
	if (r == -EPROTO || len - off < 4)
		return -EPROTO;
	q->qtype = get16(msg + off);
	q->qclass = get16(msg + off + 2);
	off += 4;
	q->qwire_len = off - qstart;
	memcpy(q->qwire, msg + qstart, q->qwire_len);
	if (get16(msg + 10) == 1 && parse_opt(msg, len, &off, q) != 0)
		return -EPROTO;
	if (off != len)	/* trailing bytes: a TCP length that does not match the message */
		return -EPROTO;
	return r;
}

/* Whether an rr-byte answer fits under limit, keeping room for the OPT if one goes out. */
static bool
answer_fits(size_t at, size_t limit, bool opt, size_t rr)
{
	return at + rr + (opt ? OPT_RR_LEN : 0) <= limit;
}

/* Answers for addrs of the question's family; returns how many were left out. */
static size_t
put_answers(const struct ab_netd_dns_query *q, const struct sockaddr_storage *addrs,
	    size_t n, uint8_t *m, size_t *at, size_t limit, unsigned *count)
{
	int fam = q->qtype == AB_NETD_DNS_A ? AF_INET : q->qtype == AB_NETD_DNS_AAAA ? AF_INET6 : -1;
	size_t dropped = 0;

	for (size_t i = 0; i < n; i++) {
		const void *a = &((const struct sockaddr_in *)&addrs[i])->sin_addr;
		size_t alen = fam == AF_INET ? 4 : 16;

		if (addrs[i].ss_family != fam)
			continue;
		if (fam == AF_INET6)
			a = &((const struct sockaddr_in6 *)&addrs[i])->sin6_addr;
		if (*count == AB_NETD_DNS_ANSWERS_MAX || !answer_fits(*at, limit, q->edns, 12 + alen)) {
			dropped++;
			continue;
		}
		/* Name: a pointer to the question at offset 12 (RFC 1035 4.1.4). */
		put16(m + *at, 0xC000 | HDR_LEN);
		put16(m + *at + 2, q->qtype);
		put16(m + *at + 4, CLASS_IN);
		put16(m + *at + 6, 0);
		put16(m + *at + 8, AB_NETD_DNS_TTL);
		put16(m + *at + 10, (unsigned)alen);
		memcpy(m + *at + 12, a, alen);
		*at += 12 + alen;
		(*count)++;
	}
	return dropped;
}

int
ab_netd_dns_reply(const struct ab_netd_dns_query *q, int rcode,
		  const struct sockaddr_storage *addrs, size_t n, bool tcp,
		  uint8_t *out, size_t cap, size_t *outlen)
{
	bool echo = rcode != AB_NETD_DNS_FORMERR && rcode != AB_NETD_DNS_NOTIMP;
	bool opt = q->edns && echo;
	size_t pre = tcp ? 2 : 0, limit, at = HDR_LEN;
	unsigned flags = F_QR | F_RA | (q->flags & (F_OPCODE | F_RD | F_CD)) | (rcode & 0xf);
	unsigned count = 0;
	uint8_t *m = out + pre;

	if (cap < pre + HDR_LEN + (echo ? q->qwire_len : 0) + (opt ? OPT_RR_LEN : 0))
		return -ENOBUFS;
	limit = cap - pre;
	if (limit > UINT16_MAX)
		limit = UINT16_MAX;
	if (!tcp && limit > q->udp_size)
		limit = q->udp_size;
	if (echo) {
		memcpy(m + at, q->qwire, q->qwire_len);
		at += q->qwire_len;
	}
	if (rcode == AB_NETD_DNS_NOERROR && put_answers(q, addrs, n, m, &at, limit, &count) && !tcp)
		flags |= F_TC;
	put16(m, q->id);
	put16(m + 2, flags);
	put16(m + 4, echo);
	put16(m + 6, count);
	put16(m + 8, 0);
	put16(m + 10, opt);
	if (opt) {
		/* Minimal OPT: our UDP size, the extended rcode bits, version 0, no options. */
		memset(m + at, 0, OPT_RR_LEN);
		put16(m + at + 1, AB_NETD_DNS_OPT);
		put16(m + at + 3, AB_NETD_DNS_UDP_MAX);
		m[at + 5] = (uint8_t)(rcode >> 4);
		at += OPT_RR_LEN;
	}
	if (tcp)
		put16(out, (unsigned)at);
	*outlen = pre + at;
	return 0;
}

/* Meta query types (RFC 6895 3.1: 128-255, AXFR, IXFR, ANY) and OPT are never answered
 * with data: REFUSED, as for a denied name. */
static int
meta_qtype(uint16_t t)
{
	return t == 0 || t == AB_NETD_DNS_OPT || (t >= 128 && t <= 255);
}

/* The rcode for a parsed query, asking allowed() first, then resolve() if allowed. */
static int
decide(const struct ab_netd_dns_hooks *h, const struct ab_netd_dns_query *q,
       struct sockaddr_storage *addrs, size_t *n, struct ab_netd_dns_verdict *v)
{
	int fam = q->qtype == AB_NETD_DNS_A ? AF_INET : AF_INET6;
	int r;

	if (q->edns && q->edns_version != 0)
		return AB_NETD_DNS_BADVERS;
	if (q->qclass != CLASS_IN)
		return AB_NETD_DNS_REFUSED;
	v->decided = true;
	if ((r = h->allowed(h->ctx, q->name)) < 0)
		return AB_NETD_DNS_SERVFAIL;
	if (r == 0 || meta_qtype(q->qtype))
		return AB_NETD_DNS_REFUSED;
	v->allowed = true;
	if (q->qtype != AB_NETD_DNS_A && q->qtype != AB_NETD_DNS_AAAA)
		return AB_NETD_DNS_NOERROR;	/* NODATA: no lookup for other types */
	if (h->resolve(h->ctx, q->name, fam, addrs, AB_NETD_DNS_ANSWERS_MAX, n) != 0 ||
	    *n > AB_NETD_DNS_ANSWERS_MAX) {
		*n = 0;
		return AB_NETD_DNS_SERVFAIL;
	}
	return AB_NETD_DNS_NOERROR;
}

int
ab_netd_dns_answer(const struct ab_netd_dns_hooks *h, const uint8_t *in, size_t len,
		   bool tcp, uint8_t *out, size_t cap, size_t *outlen,
		   struct ab_netd_dns_verdict *v)
{
	struct sockaddr_storage addrs[AB_NETD_DNS_ANSWERS_MAX];
	struct ab_netd_dns_query q;
	size_t n = 0;
	int r, rcode;

	memset(v, 0, sizeof(*v));
	v->rcode = -1;
	*outlen = 0;
	if (cap < 2 + 512)
		return -ENOBUFS;
	r = ab_netd_dns_parse(in, len, &q);
	if (r == -EBADMSG)
		return 0;
	v->qtype = q.qtype;
	memcpy(v->name, q.name, sizeof(v->name));
	if (r == -EOPNOTSUPP)
		rcode = AB_NETD_DNS_NOTIMP;
	else if (r == -EPROTO)
		rcode = AB_NETD_DNS_FORMERR;
	else if (r == -EILSEQ)
		rcode = AB_NETD_DNS_REFUSED;
	else
		rcode = decide(h, &q, addrs, &n, v);
	v->rcode = rcode;
	return ab_netd_dns_reply(&q, rcode, addrs, n, tcp, out, cap, outlen);
}

int
ab_netd_dns_tcp_next(const uint8_t *buf, size_t len, const uint8_t **msg, size_t *msglen,
		     size_t *used)
{
	size_t l;

	if (len < 2)
		return -EAGAIN;
	l = get16(buf);
	if (l == 0 || l > AB_NETD_DNS_QUERY_MAX)
		return -EMSGSIZE;
	if (len - 2 < l)
		return -EAGAIN;
	*msg = buf + 2;
	*msglen = l;
	*used = 2 + l;
	return 0;
}
