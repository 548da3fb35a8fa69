/*
 * netd/http.c: a strict, bounded HTTP/1.1 request-head parser for the proxy listener.
 *
 * Hand-written: Debian 12 packages no C HTTP/1.1 parser library (neither llhttp nor
 * picohttpparser is packaged), and no third-party code is vendored or copied here.
 * It parses only what a proxy client sends (RFC 9112 §3.2.2 absolute-form, §3.2.3
 * authority-form) and refuses, rather than repairs, everything that two HTTP
 * implementations could read differently (request smuggling, RFC 9112 §6.3, §11.2):
 *   - bytes: NUL and other controls, DEL, non-ASCII, a bare CR or a bare LF, an empty
 *     line before the request line, obs-fold (a line starting with SP or HTAB);
 *   - request line: anything but METHOD SP TARGET SP HTTP/1.1 (HTTP/1.0 only for
 *     CONNECT, which Python 3.11's http.client sends, without Host), origin-form and
 *     asterisk-form, a scheme other than http://, userinfo ("http://user@host/"), a
 *     fragment, a CONNECT target without a port; in origin mode (the credential
 *     gateway) anything but origin-form "/path[?query]", and CONNECT;
 *   - fields: whitespace before the colon, an empty name, a name that is not a token;
 *   - framing: Content-Length and Transfer-Encoding together, Content-Length repeated
 *     (even with one value) or not plain decimal, Transfer-Encoding other than exactly
 *     "chunked" once, either of them on CONNECT (which has no content), Transfer-Encoding
 *     or Connection on HTTP/1.0;
 *   - Host: missing (HTTP/1.1), repeated, not a valid authority, or naming another
 *     host or port than the request target (a Host without a port means the target's
 *     port for CONNECT and 80 for http://). In origin mode Host names the target.
 */
#define _GNU_SOURCE	/* memmem */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "http.h"

#define CRLF "\r\n"

void
ab_http_init(struct ab_http_parser *p)
{
	p->len = 0;
	p->lines = 0;
	p->state = 0;
	p->origin = false;
	memset(&p->req, 0, sizeof(p->req));
}

void
ab_http_init_origin(struct ab_http_parser *p)
{
	ab_http_init(p);
	p->origin = true;
}

/* RFC 9110 §5.6.2 tchar. */
static bool
is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool
token_ok(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_tchar((unsigned char)s[i]))
			return false;
	return true;
}

static bool
ieq(const char *a, size_t alen, const char *b)
{
	return alen == strlen(b) && strncasecmp(a, b, alen) == 0;
}

/*
 * One byte of the head, checked against what came before it. Returns 1 when it ends
 * the head, 0 to go on, or -errno.
 */
static int
scan_byte(struct ab_http_parser *p, unsigned char c)
{
	unsigned char prev = p->len > 0 ? (unsigned char)p->head[p->len - 1] : 0;

	if (p->len == sizeof(p->head))
		return -EMSGSIZE;
	if ((prev == '\r') != (c == '\n'))
		return -EBADMSG;	/* a bare CR, or a bare LF */
	if (c >= 0x7f || (c < 0x20 && c != '\r' && c != '\n' && c != '\t'))
		return -EBADMSG;
	if (p->len == 0 || prev == '\n') {
		/* A line starts: no obs-fold, no empty line before the request line. */
		if (c == ' ' || c == '\t' || (p->len == 0 && c == '\r'))
			return -EBADMSG;
		if (c != '\r' && ++p->lines > AB_HTTP_FIELDS_MAX + 1)
			return -EMSGSIZE;
	}
	p->head[p->len++] = (char)c;
	return c == '\n' && p->len >= 4 && memcmp(p->head + p->len - 4, CRLF CRLF, 4) == 0;
}

static int parse_head(struct ab_http_parser *p);

int
ab_http_feed(struct ab_http_parser *p, const void *buf, size_t len, size_t *used)
{
	const unsigned char *b = buf;
	size_t i;
	int r = 0;

	*used = 0;
	if (p->state != 0)
		return p->state < 0 ? p->state : 0;
	for (i = 0; i < len && r == 0; i++)
		r = scan_byte(p, b[i]);
	*used = i;	/* all of BUF when the head goes on: it is held in P now */
	if (r == 0)
		return -EAGAIN;
	if (r == 1)
		r = parse_head(p);
	p->state = r == 0 ? 1 : r;
	return r;
}

/* The next CRLF-terminated line at *pos; *pos moves past its CRLF. */
static void
next_line(const struct ab_http_parser *p, size_t *pos, size_t *start, size_t *len)
{
	const char *s = p->head + *pos;
	const char *e = memmem(s, p->len - *pos, CRLF, 2);	/* present: scan_byte saw it */

	*start = *pos;
	*len = (size_t)(e - s);
	*pos += *len + 2;
}

/* "http://AUTHORITY[PATH]": the authority ends at '/' or '?'. */
static int
parse_absolute(const struct ab_http_parser *p, struct ab_http_request *req, size_t t,
	       size_t tlen)
{
	const char *s = p->head + t;
	size_t a = 7, end;

	if (tlen < a || strncasecmp(s, "http://", a) != 0 || memchr(s, '#', tlen) != NULL)
		return -EBADMSG;
	for (end = a; end < tlen && s[end] != '/' && s[end] != '?'; end++)
		;
	if (memchr(s + a, '@', end - a) != NULL)
		return -EBADMSG;	/* userinfo: "http://allowed@evil/" */
	if (ab_netd_authority_parse(s + a, end - a, 80, &req->host, &req->port) != 0)
		return -EBADMSG;
	req->form = AB_HTTP_ABSOLUTE;
	req->path = (uint16_t)(t + end);
	req->path_len = (uint16_t)(tlen - end);
	return 0;
}

/* "/PATH[?QUERY]" (RFC 9112 §3.2.1); the bytes were checked by scan_byte. */
static int
parse_origin(const struct ab_http_parser *p, struct ab_http_request *req, size_t t,
	     size_t tlen)
{
	if (strcmp(req->method, "CONNECT") == 0 || p->head[t] != '/' ||
	    memchr(p->head + t, '#', tlen) != NULL)
		return -EBADMSG;
	req->form = AB_HTTP_ORIGIN;
	req->path = (uint16_t)t;
	req->path_len = (uint16_t)tlen;
	return 0;
}

static int
parse_target(const struct ab_http_parser *p, struct ab_http_request *req, size_t t,
	     size_t tlen)
{
	if (p->origin)
		return parse_origin(p, req, t, tlen);
	if (strcmp(req->method, "CONNECT") != 0)
		return parse_absolute(p, req, t, tlen);
	/* authority-form: the port is required (RFC 9110 §9.3.6). */
	if (memchr(p->head + t, '@', tlen) != NULL ||
	    ab_netd_authority_parse(p->head + t, tlen, 0, &req->host, &req->port) != 0)
		return -EBADMSG;
	req->form = AB_HTTP_CONNECT;
	return 0;
}

/*
 * METHOD SP TARGET SP HTTP/1.x, single spaces, nothing else, into REQ (P's own, or the
 * caller's copy in ab_http_target: P is only read).
 */
static int
parse_request_line(const struct ab_http_parser *p, struct ab_http_request *req, size_t s,
		   size_t len)
{
	const char *l = p->head + s;
	const char *sp1 = memchr(l, ' ', len), *sp2;
	size_t mlen, tlen, vlen;

	if (sp1 == NULL || memchr(l, '\t', len) != NULL)
		return -EBADMSG;
	mlen = (size_t)(sp1 - l);
	sp2 = memchr(sp1 + 1, ' ', len - mlen - 1);
	if (sp2 == NULL)
		return -EBADMSG;
	tlen = (size_t)(sp2 - sp1 - 1);
	vlen = len - mlen - tlen - 2;
	if (mlen > AB_HTTP_METHOD_MAX || !token_ok(l, mlen) || tlen == 0 || vlen != 8 ||
	    memcmp(sp2 + 1, "HTTP/1.", 7) != 0 || (sp2[8] != '0' && sp2[8] != '1'))
		return -EBADMSG;
	memcpy(req->method, l, mlen);
	req->method[mlen] = '\0';
	req->minor = sp2[8] - '0';
	return parse_target(p, req, (size_t)(sp1 + 1 - p->head), tlen);
}

/* NAME ":" OWS VALUE OWS; the value is trimmed of its optional whitespace. */
static int
parse_field(struct ab_http_parser *p, size_t s, size_t len)
{
	const char *l = p->head + s;
	const char *colon = memchr(l, ':', len);
	struct ab_http_field *f = &p->req.fields[p->req.nfields];
	size_t v, e;

	if (p->req.nfields == AB_HTTP_FIELDS_MAX)
		return -EMSGSIZE;
	if (colon == NULL || !token_ok(l, (size_t)(colon - l)))
		return -EBADMSG;	/* also "Name : value", RFC 9112 §5.1 */
	for (v = (size_t)(colon - l) + 1; v < len && (l[v] == ' ' || l[v] == '\t'); v++)
		;
	for (e = len; e > v && (l[e - 1] == ' ' || l[e - 1] == '\t'); e--)
		;
	f->name = (uint16_t)s;
	f->name_len = (uint16_t)(colon - l);
	f->value = (uint16_t)(s + v);
	f->value_len = (uint16_t)(e - v);
	p->req.nfields++;
	return 0;
}

static int
parse_length(struct ab_http_request *req, const char *v, size_t len)
{
	uint64_t n = 0;

	/* One spelling per length: no sign, list, leading zero, or more than 18 digits. */
	if (req->has_length || len == 0 || len > 18 || (len > 1 && v[0] == '0'))
		return -EBADMSG;
	for (size_t i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -EBADMSG;
		n = n * 10 + (uint64_t)(v[i] - '0');
	}
	req->has_length = true;
	req->content_length = n;
	return 0;
}

static int
check_host(struct ab_http_request *req, const char *v, size_t len, bool *seen)
{
	struct ab_netd_host h;
	uint16_t port;

	if (*seen)
		return -EBADMSG;
	*seen = true;
	if (req->form == AB_HTTP_ORIGIN)	/* no target to match: Host is the target */
		return ab_netd_authority_parse(v, len, 80, &req->host, &req->port) != 0 ?
		       -EBADMSG : 0;
	if (ab_netd_authority_parse(v, len, req->form == AB_HTTP_CONNECT ? req->port : 80,
				    &h, &port) != 0)
		return -EBADMSG;
	if (h.kind != req->host.kind || strcmp(h.text, req->host.text) != 0 ||
	    h.mapped != req->host.mapped || port != req->port)
		return -EBADMSG;
	return 0;
}

/* The fields that decide framing and target; everything else passes as it is. */
static int
check_field(struct ab_http_parser *p, const struct ab_http_field *f, bool *host_seen)
{
	struct ab_http_request *req = &p->req;
	const char *n = p->head + f->name, *v = p->head + f->value;

	if (ieq(n, f->name_len, "host"))
		return check_host(req, v, f->value_len, host_seen);
	if (ieq(n, f->name_len, "content-length"))
		return parse_length(req, v, f->value_len);
	if (ieq(n, f->name_len, "transfer-encoding")) {
		if (req->chunked || !ieq(v, f->value_len, "chunked"))
			return -EBADMSG;
		req->chunked = true;
		return 0;
	}
	if (ieq(n, f->name_len, "connection") && req->minor == 0)
		return -EBADMSG;	/* HTTP/1.0 keep-alive semantics: not ours to guess */
	return 0;
}

static int
check_request(struct ab_http_parser *p)
{
	struct ab_http_request *req = &p->req;
	bool host_seen = false;
	int r;

	for (size_t i = 0; i < req->nfields; i++)
		if ((r = check_field(p, &req->fields[i], &host_seen)) != 0)
			return r;
	if (req->has_length && req->chunked)
		return -EBADMSG;
	if (req->form == AB_HTTP_CONNECT && (req->has_length || req->chunked))
		return -EBADMSG;
	if (req->minor == 0 && (req->form != AB_HTTP_CONNECT || req->chunked))
		return -EBADMSG;
	if (req->minor == 1 && !host_seen)
		return -EBADMSG;
	return 0;
}

static int
parse_head(struct ab_http_parser *p)
{
	size_t pos = 0, s, len;
	int r;

	next_line(p, &pos, &s, &len);
	if ((r = parse_request_line(p, &p->req, s, len)) != 0)
		return r;
	for (;;) {
		next_line(p, &pos, &s, &len);
		if (len == 0)
			break;
		if ((r = parse_field(p, s, len)) != 0)
			return r;
	}
	p->req.head_len = p->len;
	return check_request(p);
}

int
ab_http_field_find(const struct ab_http_parser *p, const char *name, const char **value,
		   size_t *len)
{
	if (p->state != 1)
		return -ENOENT;
	for (size_t i = 0; i < p->req.nfields; i++) {
		const struct ab_http_field *f = &p->req.fields[i];

		if (ieq(p->head + f->name, f->name_len, name)) {
			*value = p->head + f->value;
			*len = f->value_len;
			return 0;
		}
	}
	return -ENOENT;
}

int
ab_http_target(const struct ab_http_parser *p, struct ab_netd_host *host, uint16_t *port,
	       enum ab_http_form *form)
{
	struct ab_http_request req;
	const char *e;

	if (p->state == 1) {
		*host = p->req.host;
		*port = p->req.port;
		*form = p->req.form;
		return 0;
	}
	/* Origin-form names its target only in Host, which is not read here. */
	if (p->origin || (e = memmem(p->head, p->len, CRLF, 2)) == NULL)
		return -ENOENT;
	memset(&req, 0, sizeof(req));
	if (parse_request_line(p, &req, 0, (size_t)(e - p->head)) != 0)
		return -EBADMSG;
	*host = req.host;
	*port = req.port;
	*form = req.form;
	return 0;
}
