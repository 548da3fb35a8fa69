/*
 * netd/sni.c: the ClientHello of a tunnel (RFC 8446 §4.1.2, §5.1; RFC 6066 §3).
 *
 * Records of type handshake are joined until the whole ClientHello is there, because a
 * large hello (post-quantum key shares, big session tickets) may be split across records
 * (RFC 8446 §5.1 allows it); past AB_SNI_HELLO_MAX it is refused rather than followed.
 * Anything the daemon could read differently from the server is refused: duplicate
 * extensions that carry a name, two names, trailing bytes.
 */
#include <errno.h>
#include <string.h>

#include "sni.h"

#define TLS_HANDSHAKE 22
#define TLS_CLIENT_HELLO 1
#define TLS_RECORD_MAX 16384	/* 2^14, RFC 8446 §5.1 */

void
ab_sni_init(struct ab_sni_parser *p)
{
	p->rec_have = 0;
	p->rec_left = 0;
	p->msg_len = 0;
	p->state = 0;
	memset(&p->res, 0, sizeof(p->res));
}

/* A bounded reader: every take checks the length first. */
struct cur {
	const uint8_t *p;
	size_t n;
};

static int
take(struct cur *c, size_t n, const uint8_t **out)
{
	if (c->n < n)
		return -EBADMSG;
	*out = c->p;
	c->p += n;
	c->n -= n;
	return 0;
}

/* A vector with a 1- or 2-byte length prefix, as a sub-reader. */
static int
vec(struct cur *c, size_t prefix, size_t min, struct cur *out)
{
	const uint8_t *b;
	size_t n;

	if (take(c, prefix, &b) != 0)
		return -EBADMSG;
	n = prefix == 1 ? b[0] : (size_t)b[0] << 8 | b[1];
	if (n < min || take(c, n, &out->p) != 0)
		return -EBADMSG;
	out->n = n;
	return 0;
}

static int
u16(struct cur *c, unsigned *v)
{
	const uint8_t *b;

	if (take(c, 2, &b) != 0)
		return -EBADMSG;
	*v = (unsigned)b[0] << 8 | b[1];
	return 0;
}

/* server_name: exactly one entry, of type host_name, a valid DNS name. */
static int
parse_server_name(struct cur ext, struct ab_sni_result *res)
{
	struct cur list, name;
	const uint8_t *type;

	if (res->has_name || vec(&ext, 2, 1, &list) != 0 || ext.n != 0)
		return -EBADMSG;
	if (take(&list, 1, &type) != 0 || type[0] != 0 || vec(&list, 2, 1, &name) != 0 ||
	    list.n != 0)
		return -EBADMSG;
	if (ab_netd_host_parse((const char *)name.p, name.n, &res->name) != 0 ||
	    res->name.kind != AB_NETD_HOST_NAME)
		return -EBADMSG;
	res->has_name = true;
	return 0;
}

static int
parse_extensions(struct cur exts, struct ab_sni_result *res)
{
	bool ech_seen = false;
	unsigned type;
	struct cur data;

	while (exts.n > 0) {
		if (u16(&exts, &type) != 0 || vec(&exts, 2, 0, &data) != 0)
			return -EBADMSG;
		if (type == AB_TLS_EXT_SERVER_NAME && parse_server_name(data, res) != 0)
			return -EBADMSG;
		if (type == AB_TLS_EXT_ECH || type == AB_TLS_EXT_ESNI) {
			if (ech_seen)
				return -EBADMSG;
			ech_seen = res->ech = true;
		}
	}
	return 0;
}

/* The ClientHello body (after the 4-byte handshake header). */
static int
parse_hello(struct cur c, struct ab_sni_result *res)
{
	struct cur skip, exts;
	const uint8_t *b;
	unsigned version;

	if (u16(&c, &version) != 0 || version < 0x0301 || version > 0x0303)
		return -EBADMSG;
	if (take(&c, 32, &b) != 0 || vec(&c, 1, 0, &skip) != 0 || skip.n > 32)
		return -EBADMSG;	/* random, legacy_session_id */
	if (vec(&c, 2, 2, &skip) != 0 || skip.n % 2 != 0 || vec(&c, 1, 1, &skip) != 0)
		return -EBADMSG;	/* cipher_suites, legacy_compression_methods */
	if (c.n == 0)
		return 0;		/* no extensions (TLS 1.0-1.2 allow it): no name */
	if (vec(&c, 2, 0, &exts) != 0 || c.n != 0)
		return -EBADMSG;
	return parse_extensions(exts, res);
}

/* Enough handshake bytes for a verdict yet?  -EAGAIN when not. */
static int
try_hello(struct ab_sni_parser *p)
{
	size_t body;

	if (p->msg_len < 4)
		return -EAGAIN;
	if (p->msg[0] != TLS_CLIENT_HELLO)
		return -EBADMSG;
	body = (size_t)p->msg[1] << 16 | (size_t)p->msg[2] << 8 | p->msg[3];
	if (body > AB_SNI_HELLO_MAX)
		return -EMSGSIZE;
	if (p->msg_len < 4 + body)
		return -EAGAIN;
	/* Nothing may follow the hello in its record: the first flight is the hello alone. */
	if (p->msg_len > 4 + body || p->rec_left != 0)
		return -EBADMSG;
	return parse_hello((struct cur){ p->msg + 4, body }, &p->res);
}

static int
record_header(struct ab_sni_parser *p)
{
	size_t len = (size_t)p->rec[3] << 8 | p->rec[4];

	if (p->rec[1] != 3 || p->rec[2] < 1 || p->rec[2] > 3)
		return p->msg_len == 0 ? -EPROTO : -EBADMSG;
	if (len == 0 || len > TLS_RECORD_MAX)
		return -EBADMSG;	/* RFC 8446 §5.1: no empty handshake fragments */
	p->rec_left = len;
	return 0;
}

/* One step: a header byte, or as much of the current fragment as BUF holds. */
static int
step(struct ab_sni_parser *p, const uint8_t *b, size_t len, size_t *i)
{
	size_t n;

	if (p->rec_have < 5) {
		p->rec[p->rec_have++] = b[(*i)++];
		if (p->rec_have == 1 && p->rec[0] != TLS_HANDSHAKE)
			return p->msg_len == 0 ? -EPROTO : -EBADMSG;
		return p->rec_have == 5 ? record_header(p) : 0;
	}
	/* Never more than the buffer holds: then try_hello judges what is there, the same
	 * way whether the bytes came one by one or all at once. */
	n = len - *i < p->rec_left ? len - *i : p->rec_left;
	if (n > sizeof(p->msg) - p->msg_len)
		n = sizeof(p->msg) - p->msg_len;
	if (n == 0)
		return -EMSGSIZE;
	memcpy(p->msg + p->msg_len, b + *i, n);
	p->msg_len += n;
	p->rec_left -= n;
	*i += n;
	if (p->rec_left == 0)
		p->rec_have = 0;
	return 1;
}

int
ab_sni_feed(struct ab_sni_parser *p, const void *buf, size_t len, size_t *used)
{
	size_t i = 0;
	int r = -EAGAIN;

	*used = 0;
	if (p->state != 0)
		return p->state < 0 ? p->state : 0;
	while (i < len && r == -EAGAIN) {
		r = step(p, buf, len, &i);
		if (r == 1)
			r = try_hello(p);
		else if (r == 0)
			r = -EAGAIN;
	}
	*used = i;	/* all of BUF when the hello goes on: it is held in P now */
	if (r == -EAGAIN)
		return r;
	p->state = r == 0 ? 1 : r;
	return r;
}
