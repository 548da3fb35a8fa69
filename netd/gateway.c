/*
 * netd/gateway.c: the base-URL credential gateway (netd/gateway.h).
 *
 * One box connection, served with blocking-style I/O (poll with deadlines) in a worker
 * thread of the daemon. The request head is read with netd/http.c in origin mode, so the
 * gateway refuses exactly what the proxy refuses (smuggling, obs-fold, CL+TE, ...).
 * Bodies are re-framed on both sides (chunks decoded and re-encoded): the upstream never
 * sees the box's framing bytes, and the box never sees the upstream's, so the secret
 * redaction cannot be split by a chunk boundary (a tail that could start the secret is
 * held back until the next bytes say whether it does).
 */
#define _GNU_SOURCE	/* memmem */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>

#include "cred.h"
#include "gateway.h"
#include "http.h"
#include "tls.h"

#define BUF_SIZE 16384
#define LINE_MAX_ 4096		/* a chunk-size line or a trailer field */
#define RESP_HEAD_MAX 16384
#define RESP_FIELDS_MAX 100
#define INTERIM_MAX 8		/* 1xx responses before the final one */
#define REDACTED "[redacted]"
#define OUT_SIZE (2 * (BUF_SIZE + AB_NETD_SECRET_MAX) + 64)

/* One side of the relay: the box (plain) or the upstream (TLS). */
struct end {
	int fd;
	int stop;			/* gw->stop_fd's fd, or -1 */
	SSL *ssl;
	char buf[BUF_SIZE];
	size_t off, len;
};

/* Bytes that may start the secret, held until the next bytes decide (see redact()). */
struct redact {
	char held[AB_NETD_SECRET_MAX];
	size_t hlen;
};

struct gw {
	const struct ab_netd_gw *cfg;
	struct ab_netd_gw_stats *st;
	struct end box, up;
	struct ab_http_parser req;
	bool up_close, box_close, head_req, up_failed;
	long long up_idle_since;	/* when the upstream connection last finished a response */
	struct redact rd;
	char rhead[RESP_HEAD_MAX];	/* the upstream's response head, CRLF-terminated lines */
	size_t rhead_len;
	char work[BUF_SIZE + AB_NETD_SECRET_MAX + RESP_HEAD_MAX];
	char out[OUT_SIZE + RESP_HEAD_MAX];
};

/* What the gateway never forwards from the box: credentials, and hop-by-hop fields. */
static const char *const drop_request[] = {
	"host", "authorization", "proxy-authorization", "x-api-key", "x-goog-api-key",
	"api-key", "cookie", "connection", "keep-alive", "proxy-connection", "te",
	"trailer", "upgrade", "expect", "accept-encoding", NULL,
};

/* What the box never gets from the upstream: hop-by-hop and the framing we replace. */
static const char *const drop_response[] = {
	"connection", "keep-alive", "proxy-connection", "transfer-encoding", "trailer",
	"upgrade", NULL,
};

static long long
deadline(int ms)
{
	return ab_netd_tls_now_ms() + ms;
}

static bool
ieq(const char *a, size_t alen, const char *b)
{
	return alen == strlen(b) && strncasecmp(a, b, alen) == 0;
}

static bool
in_list(const char *const *list, const char *name, size_t len)
{
	for (; *list != NULL; list++)
		if (ieq(name, len, *list))
			return true;
	return false;
}

/* ---- I/O: read at least one byte, write everything, by a deadline. ---- */

static int
ssl_io_error(SSL *ssl, int r, short *ev)
{
	switch (SSL_get_error(ssl, r)) {
	case SSL_ERROR_WANT_READ:
		*ev = POLLIN;
		return 0;
	case SSL_ERROR_WANT_WRITE:
		*ev = POLLOUT;
		return 0;
	case SSL_ERROR_ZERO_RETURN:
		return 1;	/* close_notify: a clean end */
	default:
		ERR_clear_error();
		return -EPROTO;
	}
}

/* ab_netd_tls_wait, and -ECANCELED once E's stop fd is readable (the session ended). */
static int
end_wait(const struct end *e, short events, long long dl)
{
	struct pollfd p[2] = { { .fd = e->fd, .events = events },
			       { .fd = e->stop, .events = POLLIN } };
	long long left;
	int r;

	if (e->stop < 0)
		return ab_netd_tls_wait(e->fd, events, dl);
	for (;;) {
		if ((left = dl - ab_netd_tls_now_ms()) <= 0)
			return -ETIMEDOUT;
		r = poll(p, 2, left > 60000 ? 60000 : (int)left);
		if (r > 0)
			return p[1].revents != 0 ? -ECANCELED : 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

/* Read into E->buf (moving what is left to the front): >0 bytes, 0 EOF, -errno. */
static ssize_t
fill(struct end *e, long long dl)
{
	size_t got;
	ssize_t n;
	short ev = POLLIN;
	int r;

	if (e->off > 0) {
		memmove(e->buf, e->buf + e->off, e->len - e->off);
		e->len -= e->off;
		e->off = 0;
	}
	if (e->len == sizeof(e->buf))
		return -ENOBUFS;
	for (;;) {
		if (e->ssl != NULL) {
			r = SSL_read_ex(e->ssl, e->buf + e->len, sizeof(e->buf) - e->len, &got);
			if (r == 1) {
				e->len += got;
				return (ssize_t)got;
			}
			if ((r = ssl_io_error(e->ssl, r, &ev)) != 0)
				return r > 0 ? 0 : r;
		} else {
			n = recv(e->fd, e->buf + e->len, sizeof(e->buf) - e->len, MSG_DONTWAIT);
			if (n >= 0) {
				e->len += (size_t)n;
				return n;
			}
			if (errno != EAGAIN && errno != EINTR)
				return -errno;
			ev = POLLIN;
		}
		if ((r = end_wait(e, ev, dl)) != 0)
			return r;
	}
}

static int
send_all(struct end *e, const void *data, size_t n, long long dl)
{
	const char *p = data;
	size_t put;
	ssize_t w;
	short ev = POLLIN;
	int r;

	while (n > 0) {
		if (e->ssl != NULL) {
			r = SSL_write_ex(e->ssl, p, n, &put);
			if (r != 1 && (r = ssl_io_error(e->ssl, r, &ev)) != 0)
				return r > 0 ? -EPIPE : r;
			w = r == 1 ? (ssize_t)put : 0;
		} else {
			w = send(e->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (w < 0 && errno != EAGAIN && errno != EINTR)
				return -errno;
			ev = POLLOUT;
		}
		if (w > 0) {
			p += w;
			n -= (size_t)w;
		} else if ((r = end_wait(e, ev, dl)) != 0) {
			return r;
		}
	}
	return 0;
}

/* To the box, counted for the close record. */
static int
to_box(struct gw *g, const void *data, size_t n)
{
	int r = send_all(&g->box, data, n, deadline(g->cfg->idle_ms));

	if (r == 0)
		g->st->bytes_down += n;
	return r;
}

/* To the upstream; a failure is the upstream's (502), not the box's. */
static int
to_up(struct gw *g, const void *data, size_t n)
{
	int r = send_all(&g->up, data, n, deadline(g->cfg->idle_ms));

	if (r != 0)
		g->up_failed = true;
	return r;
}

/* Bytes buffered in E, reading more if none: >0, 0 EOF, -errno. Box bytes are counted. */
static ssize_t
avail(struct gw *g, struct end *e, long long dl)
{
	ssize_t n;

	if (e->off < e->len)
		return (ssize_t)(e->len - e->off);
	e->off = e->len = 0;
	n = fill(e, dl);
	if (n > 0 && e == &g->box)
		g->st->bytes_up += (uint64_t)n;
	if (n <= 0 && e == &g->up)
		g->up_failed = true;
	return n;
}

/*
 * One CRLF-terminated line from E into LINE (NUL-terminated, without the CRLF): 0,
 * -EMSGSIZE over MAX, -EBADMSG a bare CR or LF or a control byte, -EPIPE EOF.
 */
static int
read_line(struct gw *g, struct end *e, char *line, size_t max, size_t *len, long long dl)
{
	ssize_t n;
	unsigned char c;

	*len = 0;
	for (;;) {
		if ((n = avail(g, e, dl)) <= 0)
			return n == 0 ? -EPIPE : (int)n;
		c = (unsigned char)e->buf[e->off++];
		if (c == '\n')
			break;
		if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f ||
		    (*len > 0 && line[*len - 1] == '\r'))
			return -EBADMSG;
		if (*len + 1 >= max)
			return -EMSGSIZE;
		line[(*len)++] = (char)c;
	}
	if (*len == 0 || line[*len - 1] != '\r')
		return -EBADMSG;
	line[--(*len)] = '\0';
	return 0;
}

/* ---- Redaction: the secret never reaches the box. ---- */

/*
 * Append IN[0..n) to the held bytes and write to OUT what cannot be part of the secret,
 * every occurrence replaced by REDACTED. Unless FINAL, the longest tail that is a proper
 * prefix of the secret is held back: only such a tail can become the secret with the next
 * bytes, so an SSE event ("...\n\n", never a prefix of a one-line secret) is not delayed.
 * OUT holds at least (AB_NETD_SECRET_MAX + n) * 10 / 8 + 16 bytes. Returns the bytes in OUT.
 */
static size_t
redact(struct gw *g, const char *in, size_t n, bool final, char *out)
{
	const char *s = g->cfg->secret;
	size_t sn = g->cfg->secret_len, w = g->rd.hlen + n, i = 0, o = 0, k;
	char *work = g->work;
	const char *p;

	memcpy(work, g->rd.held, g->rd.hlen);
	memcpy(work + g->rd.hlen, in, n);
	while ((p = memmem(work + i, w - i, s, sn)) != NULL) {
		memcpy(out + o, work + i, (size_t)(p - work) - i);
		o += (size_t)(p - work) - i;
		memcpy(out + o, REDACTED, strlen(REDACTED));
		o += strlen(REDACTED);
		i = (size_t)(p - work) + sn;
	}
	k = w;
	if (!final)
		for (k = w - i > sn - 1 ? w - (sn - 1) : i; k < w; k++)
			if (memcmp(work + k, s, w - k) == 0)
				break;
	memcpy(out + o, work + i, k - i);
	o += k - i;
	memcpy(g->rd.held, work + k, w - k);
	g->rd.hlen = w - k;
	return o;
}

/* Body bytes to the box as one chunk, redacted (nothing to send: nothing written). */
static int
chunk_to_box(struct gw *g, const char *data, size_t n, bool final)
{
	char *out = g->out + 32;
	size_t o = redact(g, data, n, final, out);
	int h;

	if (o == 0)
		return 0;
	h = snprintf(g->out, 32, "%zx\r\n", o);
	memmove(g->out + h, out, o);
	memcpy(g->out + h + o, "\r\n", 2);
	return to_box(g, g->out, (size_t)h + o + 2);
}

/* ---- Replies of the gateway's own. ---- */

static const struct {
	int status;
	const char *text, *reason;
	int err;
} refusals[] = {
	{ 400, "Bad Request", "bad-request", -EBADMSG },
	{ 405, "Method Not Allowed", "bad-request", -EBADMSG },
	{ 408, "Request Timeout", "timeout", -ETIMEDOUT },
	{ 413, "Content Too Large", "limit", -EFBIG },
	{ 417, "Expectation Failed", "bad-request", -EBADMSG },
	{ 431, "Request Header Fields Too Large", "bad-request", -EMSGSIZE },
	{ 501, "Not Implemented", "bad-request", -EBADMSG },
	{ 502, "Bad Gateway", "dial-failed", -EPROTO },
};

/* Answer STATUS and end the connection; returns the -errno serve() returns. */
static int
refuse(struct gw *g, int status, const char *why)
{
	char msg[256];
	size_t i = 0;
	int n;

	while (i + 1 < sizeof(refusals) / sizeof(refusals[0]) && refusals[i].status != status)
		i++;
	n = snprintf(msg, sizeof(msg),
		     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\nagentbox gateway: %s\n",
		     refusals[i].status, refusals[i].text, strlen(why) + 19, why);
	(void)to_box(g, msg, (size_t)n);	/* the box may be gone: the verdict stands */
	g->st->status = refusals[i].status;
	if (g->st->reason == NULL)
		g->st->reason = refusals[i].reason;
	return refusals[i].err;
}

/* Map an I/O error on the box's side: nothing to answer to a box that is gone. */
static int
box_gone(struct gw *g, int r)
{
	if (r == -ETIMEDOUT)
		g->st->reason = "timeout";
	return r;
}

/* ---- The request from the box. ---- */

/* Is TOKEN[0..tlen) one of the comma-separated tokens of V[0..len)? */
static bool
has_token_n(const char *v, size_t len, const char *token, size_t tlen)
{
	size_t i = 0, s, e;

	while (i < len) {
		for (s = i; s < len && (v[s] == ' ' || v[s] == '\t'); s++)
			;
		for (e = s; e < len && v[e] != ','; e++)
			;
		i = e + 1;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - s == tlen && strncasecmp(v + s, token, tlen) == 0)
			return true;
	}
	return false;
}

static bool
has_token(const char *v, size_t len, const char *token)
{
	return has_token_n(v, len, token, strlen(token));
}

/* Is NAME listed in one of the box's Connection fields (a hop-by-hop field)? */
static bool
in_connection(const struct ab_http_parser *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->req.nfields; i++) {
		const struct ab_http_field *f = &p->req.fields[i];

		if (ieq(p->head + f->name, f->name_len, "connection") &&
		    has_token_n(p->head + f->value, f->value_len, name, len))
			return true;
	}
	return false;
}

/*
 * The gateway's request policy, a pure function of the parsed head: 0 to forward, or
 * the status to refuse with (*why says why, for the box).
 */
static int
request_verdict(const struct ab_http_parser *p, uint64_t body_max, const char **why)
{
	const struct ab_http_request *req = &p->req;
	bool body = req->chunked || (req->has_length && req->content_length > 0);
	const char *v;
	size_t len;

	*why = NULL;
	if (strcmp(req->method, "TRACE") == 0 || strcmp(req->method, "TRACK") == 0) {
		*why = "TRACE would echo the credential";
		return 405;
	}
	if (ab_http_field_find(p, "upgrade", &v, &len) == 0) {
		*why = "no protocol upgrade (WebSocket, h2c) through the gateway";
		return 501;
	}
	if (ab_http_field_find(p, "expect", &v, &len) == 0 && !ieq(v, len, "100-continue")) {
		*why = "unknown expectation";
		return 417;
	}
	if (body && (strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0)) {
		*why = "a body on GET or HEAD";
		return 400;
	}
	if (req->has_length && req->content_length > body_max) {
		*why = "request body too large";
		return 413;
	}
	return 0;
}

/* Read the next request head; 0, 1 when the box closed (or idled) between requests. */
static int
read_head(struct gw *g)
{
	long long dl = deadline(g->cfg->idle_ms);	/* waiting for a next request */
	bool started = false;
	size_t used;
	ssize_t n;
	int r;

	ab_http_init_origin(&g->req);
	for (;;) {
		n = avail(g, &g->box, dl);
		if (n <= 0 && !started)
			return n == 0 || n == -ETIMEDOUT || n == -ECONNRESET ? 1 : (int)n;
		if (n <= 0)
			return n == 0 ? -EPIPE : (int)n;
		if (!started) {
			/* Slowloris: from its first byte a head has head_ms, not idle_ms. */
			started = true;
			dl = deadline(g->cfg->head_ms);
		}
		r = ab_http_feed(&g->req, g->box.buf + g->box.off, (size_t)n, &used);
		g->box.off += used;
		if (r != -EAGAIN)
			return r;
	}
}

/* Append to the upstream head in g->out. */
static int __attribute__((format(printf, 3, 4)))
put(struct gw *g, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(g->out + *n, sizeof(g->out) - *n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= sizeof(g->out) - *n)
		return -EMSGSIZE;
	*n += (size_t)w;
	return 0;
}

/*
 * The head the upstream gets: the box's request line and fields, without any credential
 * or hop-by-hop field, Host the credential's host, identity encoding (a compressed
 * response would hide the secret from redaction), then the credential.
 */
static int
build_head(struct gw *g, size_t *n)
{
	const struct ab_netd_gw *c = g->cfg;
	const struct ab_http_parser *p = &g->req;
	int r;

	*n = 0;
	if ((r = put(g, n, "%s %.*s HTTP/1.1\r\nHost: %s", p->req.method, (int)p->req.path_len,
		     p->head + p->req.path, c->host)) != 0 ||
	    (c->port != 443 && (r = put(g, n, ":%u", c->port)) != 0) ||
	    (r = put(g, n, "\r\n")) != 0)
		return r;
	for (size_t i = 0; i < p->req.nfields; i++) {
		const struct ab_http_field *f = &p->req.fields[i];
		const char *name = p->head + f->name;

		if (in_list(drop_request, name, f->name_len) || ieq(name, f->name_len, c->header) ||
		    in_connection(p, name, f->name_len))
			continue;
		if ((r = put(g, n, "%.*s: %.*s\r\n", (int)f->name_len, name, (int)f->value_len,
			     p->head + f->value)) != 0)
			return r;
	}
	return put(g, n, "Accept-Encoding: identity\r\n%s: %s%.*s\r\n\r\n", c->header,
		   c->prefix != NULL ? c->prefix : "", (int)c->secret_len, c->secret);
}

/* Copy N body bytes from the box to the upstream. */
static int
copy_body(struct gw *g, uint64_t n)
{
	ssize_t a;
	size_t take;
	int r;

	while (n > 0) {
		if ((a = avail(g, &g->box, deadline(g->cfg->idle_ms))) <= 0)
			return a == 0 ? -EPIPE : (int)a;
		take = (uint64_t)a < n ? (size_t)a : (size_t)n;
		if ((r = to_up(g, g->box.buf + g->box.off, take)) != 0)
			return r;
		g->box.off += take;
		n -= take;
	}
	return 0;
}

/* A chunk-size line: 1..16 hex digits, then nothing or ";extension" (dropped). */
static int
chunk_size(const char *line, size_t len, uint64_t *size)
{
	size_t i;

	*size = 0;
	for (i = 0; i < len && i < 17; i++) {
		char c = line[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			break;
		*size = *size * 16 + (uint64_t)d;
	}
	if (i == 0 || i > 16 || (i < len && line[i] != ';'))
		return -EBADMSG;
	return 0;
}

/* The next chunk-size line from E. */
static int
chunk_head(struct gw *g, struct end *e, uint64_t *size)
{
	char line[LINE_MAX_];
	size_t len;
	int r;

	if ((r = read_line(g, e, line, sizeof(line), &len, deadline(g->cfg->idle_ms))) != 0)
		return r;
	return chunk_size(line, len, size);
}

/* The CRLF after a chunk's data. */
static int
chunk_end(struct gw *g, struct end *e)
{
	char line[LINE_MAX_];
	size_t len;
	int r;

	if ((r = read_line(g, e, line, sizeof(line), &len, deadline(g->cfg->idle_ms))) != 0)
		return r;
	return len == 0 ? 0 : -EBADMSG;
}

/* Trailer fields after the last chunk: read, bounded, and dropped. */
static int
skip_trailers(struct gw *g, struct end *e)
{
	char line[LINE_MAX_];
	size_t len;
	int r;

	for (int i = 0; i <= AB_HTTP_FIELDS_MAX; i++) {
		if ((r = read_line(g, e, line, sizeof(line), &len, deadline(g->cfg->idle_ms))) != 0)
			return r;
		if (len == 0)
			return 0;
	}
	return -EMSGSIZE;
}

/* A chunked body from the box, decoded and re-encoded for the upstream, capped. */
static int
chunked_body(struct gw *g)
{
	char line[LINE_MAX_];
	uint64_t size, total = 0;
	size_t len;
	int r;

	for (;;) {
		if ((r = chunk_head(g, &g->box, &size)) != 0)
			return r;
		if (size == 0)
			return (r = skip_trailers(g, &g->box)) != 0 ? r : to_up(g, "0\r\n\r\n", 5);
		if (size > g->cfg->body_max - total)
			return -EFBIG;
		total += size;
		len = (size_t)snprintf(line, sizeof(line), "%" PRIx64 "\r\n", size);
		if ((r = to_up(g, line, len)) != 0 || (r = copy_body(g, size)) != 0)
			return r;
		if ((r = chunk_end(g, &g->box)) != 0 || (r = to_up(g, "\r\n", 2)) != 0)
			return r;
	}
}

/* ---- The response from the upstream. ---- */

struct resp {
	int status;
	bool chunked, has_length, close, encoded;
	uint64_t length;
};

static int
parse_status(const char *l, size_t len, struct resp *rs)
{
	if (len < 12 || memcmp(l, "HTTP/1.", 7) != 0 || (l[7] != '0' && l[7] != '1') ||
	    l[8] != ' ' || l[9] < '1' || l[9] > '5' || l[10] < '0' || l[10] > '9' ||
	    l[11] < '0' || l[11] > '9' || (len > 12 && l[12] != ' '))
		return -EPROTO;
	rs->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
	rs->close = l[7] == '0';
	return 0;
}

/* One response field: framing and encoding are decided here; one reading only. */
static int
parse_resp_field(const char *l, size_t len, struct resp *rs)
{
	const char *colon = memchr(l, ':', len), *v;
	size_t nlen, vlen;

	if (colon == NULL || colon == l || colon[-1] == ' ' || colon[-1] == '\t' ||
	    l[0] == ' ' || l[0] == '\t')
		return -EPROTO;
	nlen = (size_t)(colon - l);
	for (v = colon + 1; v < l + len && (*v == ' ' || *v == '\t'); v++)
		;
	vlen = (size_t)(l + len - v);
	while (vlen > 0 && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
		vlen--;
	if (ieq(l, nlen, "content-length")) {
		if (rs->has_length || vlen == 0 || vlen > 18)
			return -EPROTO;
		for (size_t i = 0; i < vlen; i++) {
			if (v[i] < '0' || v[i] > '9')
				return -EPROTO;
			rs->length = rs->length * 10 + (uint64_t)(v[i] - '0');
		}
		rs->has_length = true;
	} else if (ieq(l, nlen, "transfer-encoding")) {
		if (rs->chunked || !ieq(v, vlen, "chunked"))
			return -EPROTO;
		rs->chunked = true;
	} else if (ieq(l, nlen, "connection")) {
		rs->close = rs->close || has_token(v, vlen, "close");
	} else if (ieq(l, nlen, "content-encoding")) {
		rs->encoded = rs->encoded || !ieq(v, vlen, "identity");
	}
	return 0;
}

/* The upstream's next response head into g->rhead; -EPROTO for anything ambiguous. */
static int
read_resp_head(struct gw *g, struct resp *rs)
{
	char *line;
	size_t len;
	int r;

	memset(rs, 0, sizeof(*rs));
	g->rhead_len = 0;
	for (int i = 0; i <= RESP_FIELDS_MAX + 1; i++) {
		line = g->rhead + g->rhead_len;
		r = read_line(g, &g->up, line, sizeof(g->rhead) - g->rhead_len - 2, &len,
			      deadline(g->cfg->idle_ms));
		if (r != 0)
			return r == -ETIMEDOUT ? r : -EPROTO;
		memcpy(line + len, "\r\n", 2);
		g->rhead_len += len + 2;
		if (len == 0)
			return rs->chunked && rs->has_length ? -EPROTO : 0;
		if ((r = i == 0 ? parse_status(line, len, rs) : parse_resp_field(line, len, rs)) != 0)
			return r;
	}
	return -EPROTO;
}

/*
 * The response head for the box: the upstream's, without hop-by-hop fields, a body
 * always re-framed as chunked (redaction changes its length), the secret redacted.
 */
static int
head_to_box(struct gw *g, bool body)
{
	size_t n = 0, s = 0, e;

	while (s < g->rhead_len) {
		const char *l = g->rhead + s, *colon;

		e = (size_t)((const char *)memmem(l, g->rhead_len - s, "\r\n", 2) - g->rhead) + 2;
		colon = memchr(l, ':', e - s);
		if (e - s == 2 && body) {
			memcpy(g->out + n, "Transfer-Encoding: chunked\r\n", 28);
			n += 28;
		}
		if (s == 0) {
			/* We answer the box in HTTP/1.1 (chunked), whatever the upstream spoke. */
			memcpy(g->out, "HTTP/1.1", 8);
			memcpy(g->out + 8, l + 8, e - 8);
			n = e;
		} else if (colon == NULL ||
		    !(in_list(drop_response, l, (size_t)(colon - l)) ||
		      (body && ieq(l, (size_t)(colon - l), "content-length")))) {
			memcpy(g->out + n, l, e - s);
			n += e - s;
		}
		s = e;
	}
	n = redact(g, g->out, n, true, g->out);	/* redact() copies its input first */
	return to_box(g, g->out, n);
}

/* N bytes (or, with EOF set, up to EOF) of body from the upstream, streamed to the box. */
static int
stream_body(struct gw *g, uint64_t n, bool eof)
{
	ssize_t a;
	size_t take;
	int r;

	while (n > 0 || eof) {
		a = avail(g, &g->up, deadline(g->cfg->idle_ms));
		if (a == 0 && eof)
			return 0;
		if (a <= 0)
			return a == 0 ? -EPROTO : (int)a;
		take = eof || (uint64_t)a < n ? (size_t)a : (size_t)n;
		/* As it arrives: an SSE event goes on now, not when the next one comes. */
		if ((r = chunk_to_box(g, g->up.buf + g->up.off, take, false)) != 0)
			return r;
		g->up.off += take;
		if (!eof)
			n -= take;
	}
	return 0;
}

static int
stream_chunked(struct gw *g)
{
	uint64_t size;
	int r;

	for (;;) {
		if ((r = chunk_head(g, &g->up, &size)) != 0)
			return r == -ETIMEDOUT ? r : -EPROTO;
		if (size == 0)
			return skip_trailers(g, &g->up) != 0 ? -EPROTO : 0;
		if ((r = stream_body(g, size, false)) != 0)
			return r;
		if ((r = chunk_end(g, &g->up)) != 0)
			return r == -ETIMEDOUT ? r : -EPROTO;
	}
}

/* Relay the upstream's response: interim 1xx heads, then the final head and its body. */
static int
relay_response(struct gw *g, bool *head_sent)
{
	struct resp rs;
	bool body;
	int r;

	*head_sent = false;
	for (int i = 0;; i++) {
		if ((r = read_resp_head(g, &rs)) != 0)
			return r;
		if (rs.status == 101 || (rs.status < 200 && i == INTERIM_MAX))
			return -EPROTO;	/* we asked for no upgrade */
		body = !g->head_req && rs.status >= 200 && rs.status != 204 && rs.status != 304;
		if (body && rs.encoded)
			return -EPROTO;	/* asked for identity: a compressed body hides the secret */
		if ((r = head_to_box(g, body)) != 0)
			return r;
		if (rs.status >= 200)
			break;
	}
	*head_sent = true;
	g->st->status = rs.status;
	g->up_close = rs.close || (body && !rs.chunked && !rs.has_length);
	if (!body)
		return 0;
	r = rs.chunked ? stream_chunked(g) : stream_body(g, rs.length, !rs.has_length);
	if (r != 0 || (r = chunk_to_box(g, "", 0, true)) != 0)
		return r;
	return to_box(g, "0\r\n\r\n", 5);
}

/* ---- The upstream connection. ---- */

static void
hang_up(struct gw *g)
{
	if (g->up.ssl != NULL) {
		(void)SSL_shutdown(g->up.ssl);	/* one try: close_notify, no wait */
		ERR_clear_error();
		SSL_free(g->up.ssl);
		g->up.ssl = NULL;
	}
	if (g->up.fd >= 0)
		close(g->up.fd);
	g->up.fd = -1;
	g->up.off = g->up.len = 0;
}

static int
tcp_connect(const struct ab_netd_gw *c, long long dl)
{
	int fd = socket(c->addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int r, err = 0;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -errno;
	if (connect(fd, c->addr, c->addrlen) != 0 && errno != EINPROGRESS) {
		r = -errno;
	} else if ((r = ab_netd_tls_wait(fd, POLLOUT, dl)) == 0) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
			r = -errno;
		else
			r = -err;
	}
	if (r != 0) {
		close(fd);
		return r;
	}
	return fd;
}

/*
 * A usable upstream connection. One kept from an earlier request is dropped when it was
 * idle for long (servers close idle ones) or is readable (closed, or talking out of
 * turn): a request is never written into a connection that is going away.
 */
static int
dial(struct gw *g)
{
	struct pollfd pfd = { .fd = g->up.fd, .events = POLLIN };
	long long dl = deadline(g->cfg->dial_ms);
	int fd, r;

	if (g->up.fd >= 0 && (ab_netd_tls_now_ms() - g->up_idle_since > 4000 ||
			      poll(&pfd, 1, 0) != 0 || SSL_has_pending(g->up.ssl)))
		hang_up(g);
	if (g->up.fd >= 0)
		return 0;
	if ((fd = tcp_connect(g->cfg, dl)) < 0)
		return fd;
	if ((r = ab_netd_tls_connect(g->cfg->tls, fd, g->cfg->host, dl, &g->up.ssl)) != 0) {
		close(fd);
		return r;
	}
	g->up.fd = fd;
	g->up_close = false;
	return 0;
}

/* ---- One request, start to end. ---- */

/* A failed step of the exchange: answer the box when it can still take an answer. */
static int
fail(struct gw *g, int r, bool head_sent)
{
	hang_up(g);
	if (head_sent) {
		g->st->reason = g->up_failed ? "bad-response" : g->st->reason;
		return box_gone(g, r);	/* the box sees a truncated body */
	}
	if (g->up_failed || r == -EPROTO) {
		g->st->reason = "bad-response";
		return refuse(g, 502, "the upstream failed");
	}
	if (r == -EFBIG)
		return refuse(g, 413, "request body too large");
	if (r == -EBADMSG || r == -EMSGSIZE)
		return refuse(g, 400, "malformed request body");
	return box_gone(g, r);
}

/* Send the request upstream and relay its response: 1 next request, 0 done, -errno. */
static int
exchange(struct gw *g)
{
	const struct ab_http_request *req = &g->req.req;
	bool head_sent = false;
	size_t n;
	int r;

	g->up_failed = false;
	if ((r = build_head(g, &n)) != 0)
		return refuse(g, 431, "request head too large");
	r = to_up(g, g->out, n);
	explicit_bzero(g->out, n);	/* it held the secret */
	g->st->requests++;
	if (r == 0 && ab_http_field_find(&g->req, "expect", &(const char *){ NULL }, &n) == 0)
		r = to_box(g, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	if (r == 0 && req->chunked)
		r = chunked_body(g);
	else if (r == 0 && req->has_length)
		r = copy_body(g, req->content_length);
	if (r == 0)
		r = relay_response(g, &head_sent);
	if (r != 0)
		return fail(g, r, head_sent);
	g->up_idle_since = ab_netd_tls_now_ms();
	if (g->up_close)
		hang_up(g);
	return g->box_close ? 0 : 1;
}

static int
one_request(struct gw *g)
{
	const char *why, *v;
	size_t len;
	int r, status;

	r = read_head(g);
	if (r == 1)
		return 0;
	if (r == -ETIMEDOUT)
		return refuse(g, 408, "request head too slow");
	if (r == -EMSGSIZE)
		return refuse(g, 431, "request head too large");
	if (r == -EBADMSG)
		return refuse(g, 400, "malformed or ambiguous request");
	if (r != 0)
		return box_gone(g, r);
	if ((status = request_verdict(&g->req, g->cfg->body_max, &why)) != 0)
		return refuse(g, status, why);
	g->box_close = ab_http_field_find(&g->req, "connection", &v, &len) == 0 &&
		       has_token(v, len, "close");
	g->head_req = strcmp(g->req.req.method, "HEAD") == 0;
	if ((r = dial(g)) != 0) {
		g->st->reason = "dial-failed";
		refuse(g, 502, r == -EPERM ? "the upstream is not the credential's host"
					   : "the upstream is unreachable");
		return r;
	}
	return exchange(g);
}

int
ab_netd_gateway_serve(int client_fd, const struct ab_netd_gw *gw,
		      struct ab_netd_gw_stats *st)
{
	struct ab_netd_gw cfg = *gw;
	struct gw *g;
	int r;

	memset(st, 0, sizeof(*st));
	if (gw->secret_len == 0 || gw->header == NULL || gw->host == NULL || gw->tls == NULL ||
	    gw->addr == NULL)
		return -EINVAL;
	cfg.head_ms = cfg.head_ms > 0 ? cfg.head_ms : AB_NETD_GW_HEAD_MS;
	cfg.idle_ms = cfg.idle_ms > 0 ? cfg.idle_ms : AB_NETD_GW_IDLE_MS;
	cfg.dial_ms = cfg.dial_ms > 0 ? cfg.dial_ms : AB_NETD_GW_DIAL_MS;
	cfg.body_max = cfg.body_max > 0 ? cfg.body_max : AB_NETD_GW_BODY_MAX;
	/* About 110 KiB per connection: kept off the worker thread's stack. */
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return -ENOMEM;
	g->cfg = &cfg;
	g->st = st;
	g->box.fd = client_fd;
	g->up.fd = -1;
	g->box.stop = g->up.stop = gw->stop_fd != NULL ? *gw->stop_fd : -1;
	while ((r = one_request(g)) == 1)
		;
	hang_up(g);
	explicit_bzero(g, sizeof(*g));	/* heads and redaction state held the secret */
	free(g);
	return r;
}
