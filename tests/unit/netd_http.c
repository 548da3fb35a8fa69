/*
 * netd/http.c: the proxy's request-head parser against hostile heads
 * (invariants 6 and 7). Every row is fed whole and again one byte at a time (a slowloris
 * client): both must reach the same verdict.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "netd_feed.h"
#include "tap.h"

#define C "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n"
#define G "GET http://example.com/x HTTP/1.1\r\nHost: example.com\r\n"
#define P "POST http://example.com/x HTTP/1.1\r\nHost: example.com\r\n"

static const struct {
	const char *name, *head;
	int want;
} rows[] = {
	/* What real clients send. */
	{ "curl CONNECT", C "User-Agent: curl/7.88.1\r\nProxy-Connection: Keep-Alive\r\n\r\n", 0 },
	{ "CONNECT, Host without port (undici)",
	  "CONNECT example.com:443 HTTP/1.1\r\nhost: example.com\r\n\r\n", 0 },
	{ "Python 3.11 CONNECT: HTTP/1.0, no Host",
	  "CONNECT example.com:443 HTTP/1.0\r\n\r\n", 0 },
	{ "HTTP/1.0 CONNECT with a matching Host",
	  "CONNECT example.com:443 HTTP/1.0\r\nHost: example.com:443\r\n\r\n", 0 },
	{ "CONNECT to an IPv6 literal", "CONNECT [2001:db8::1]:443 HTTP/1.1\r\n"
	  "Host: [2001:db8::1]:443\r\n\r\n", 0 },
	{ "absolute-form GET", G "Accept: */*\r\n\r\n", 0 },
	{ "absolute-form GET, no path",
	  "GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n", 0 },
	{ "absolute-form GET, port 8080",
	  "GET http://example.com:8080/ HTTP/1.1\r\nHost: example.com:8080\r\n\r\n", 0 },
	{ "absolute-form, Host with :80", "GET http://example.com/ HTTP/1.1\r\n"
	  "Host: example.com:80\r\n\r\n", 0 },
	{ "POST with Content-Length", P "Content-Length: 5\r\n\r\n", 0 },
	{ "POST chunked", P "Transfer-Encoding: chunked\r\n\r\n", 0 },
	{ "POST Transfer-Encoding: Chunked", P "Transfer-Encoding: Chunked\r\n\r\n", 0 },
	{ "empty field value", G "X-Empty:\r\n\r\n", 0 },
	{ "tab in a field value", G "X-A: a\tb\r\n\r\n", 0 },
	{ "HTTP scheme in capitals", "GET HTTP://EXAMPLE.COM/ HTTP/1.1\r\nHost: example.com\r\n\r\n", 0 },
	/* Smuggling: framing two parsers read differently. */
	{ "Content-Length and Transfer-Encoding",
	  P "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", -EBADMSG },
	{ "Transfer-Encoding and Content-Length",
	  P "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", -EBADMSG },
	{ "Content-Length twice, same value", P "Content-Length: 5\r\nContent-Length: 5\r\n\r\n",
	  -EBADMSG },
	{ "Content-Length twice, two values", P "Content-Length: 5\r\nContent-Length: 6\r\n\r\n",
	  -EBADMSG },
	{ "Content-Length list", P "Content-Length: 5, 5\r\n\r\n", -EBADMSG },
	{ "Content-Length signed", P "Content-Length: +5\r\n\r\n", -EBADMSG },
	{ "Content-Length negative", P "Content-Length: -1\r\n\r\n", -EBADMSG },
	{ "Content-Length hex", P "Content-Length: 0x5\r\n\r\n", -EBADMSG },
	{ "Content-Length leading zero", P "Content-Length: 05\r\n\r\n", -EBADMSG },
	{ "Content-Length empty", P "Content-Length:\r\n\r\n", -EBADMSG },
	{ "Content-Length overflow", P "Content-Length: 99999999999999999999999\r\n\r\n",
	  -EBADMSG },
	{ "Transfer-Encoding: chunked, identity", P "Transfer-Encoding: chunked, identity\r\n\r\n",
	  -EBADMSG },
	{ "Transfer-Encoding: identity", P "Transfer-Encoding: identity\r\n\r\n", -EBADMSG },
	{ "Transfer-Encoding: gzip, chunked", P "Transfer-Encoding: gzip, chunked\r\n\r\n",
	  -EBADMSG },
	{ "Transfer-Encoding twice", P "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
	  -EBADMSG },
	{ "Transfer-Encoding: xchunked", P "Transfer-Encoding: xchunked\r\n\r\n", -EBADMSG },
	{ "Transfer-Encoding with a space before the colon",
	  P "Transfer-Encoding : chunked\r\n\r\n", -EBADMSG },
	{ "Content-Length with a tab before the colon", P "Content-Length\t: 5\r\n\r\n", -EBADMSG },
	{ "obs-fold", G "X-A: a\r\n b\r\n\r\n", -EBADMSG },
	{ "obs-fold with a tab", G "X-A: a\r\n\tb\r\n\r\n", -EBADMSG },
	{ "obs-fold of Transfer-Encoding", P "Transfer-Encoding:\r\n chunked\r\n\r\n", -EBADMSG },
	{ "bare LF line ends", "GET http://example.com/ HTTP/1.1\nHost: example.com\n\n", -EBADMSG },
	{ "one bare LF", G "X-A: a\nX-B: b\r\n\r\n", -EBADMSG },
	{ "bare CR", G "X-A: a\rX-B: b\r\n\r\n", -EBADMSG },
	{ "CR CR LF", G "X-A: a\r\r\n\r\n", -EBADMSG },
	{ "CONNECT with Content-Length", C "Content-Length: 0\r\n\r\n", -EBADMSG },
	{ "CONNECT chunked", C "Transfer-Encoding: chunked\r\n\r\n", -EBADMSG },
	{ "HTTP/1.0 with Transfer-Encoding",
	  "CONNECT example.com:443 HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", -EBADMSG },
	{ "HTTP/1.0 CONNECT keep-alive",
	  "CONNECT example.com:443 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", -EBADMSG },
	{ "HTTP/1.0 absolute-form", "GET http://example.com/ HTTP/1.0\r\nHost: example.com\r\n\r\n",
	  -EBADMSG },
	{ "HTTP/1.0 CONNECT with another Host",
	  "CONNECT example.com:443 HTTP/1.0\r\nHost: evil.com:443\r\n\r\n", -EBADMSG },
	/* Bytes. */
	{ "escape byte", G "X-A: \x1b[2J\r\n\r\n", -EBADMSG },
	{ "DEL", G "X-A: \x7f\r\n\r\n", -EBADMSG },
	{ "non-ASCII value", G "X-A: caf\xc3\xa9\r\n\r\n", -EBADMSG },
	{ "non-ASCII host", "CONNECT b\xc3\xbc" "cher.example:443 HTTP/1.1\r\n\r\n", -EBADMSG },
	{ "empty line before the request line", "\r\n" G "\r\n", -EBADMSG },
	{ "space before the request line", " " G "\r\n", -EBADMSG },
	/* Request line. */
	{ "two spaces", "GET  http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", -EBADMSG },
	{ "tab separator", "GET\thttp://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
	  -EBADMSG },
	{ "trailing space", "GET http://example.com/ HTTP/1.1 \r\nHost: example.com\r\n\r\n",
	  -EBADMSG },
	{ "HTTP/2.0", "GET http://example.com/ HTTP/2.0\r\nHost: example.com\r\n\r\n", -EBADMSG },
	{ "HTTP/1.2", "GET http://example.com/ HTTP/1.2\r\nHost: example.com\r\n\r\n", -EBADMSG },
	{ "HTTP/0.9 style", "GET http://example.com/\r\n\r\n", -EBADMSG },
	{ "lower-case version", "GET http://example.com/ http/1.1\r\nHost: example.com\r\n\r\n",
	  -EBADMSG },
	{ "origin-form", "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", -EBADMSG },
	{ "asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: example.com\r\n\r\n", -EBADMSG },
	{ "https:// absolute-form", "GET https://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
	  -EBADMSG },
	{ "lower-case connect", "connect example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n",
	  -EBADMSG },
	{ "CONNECT without a port", "CONNECT example.com HTTP/1.1\r\nHost: example.com\r\n\r\n",
	  -EBADMSG },
	{ "CONNECT with absolute-form",
	  "CONNECT http://example.com:443/ HTTP/1.1\r\nHost: example.com:443\r\n\r\n", -EBADMSG },
	{ "CONNECT port 0", "CONNECT example.com:0 HTTP/1.1\r\nHost: example.com:0\r\n\r\n", -EBADMSG },
	{ "CONNECT port 65536", "CONNECT example.com:65536 HTTP/1.1\r\n\r\n", -EBADMSG },
	{ "CONNECT with userinfo", "CONNECT user@example.com:443 HTTP/1.1\r\n"
	  "Host: example.com:443\r\n\r\n", -EBADMSG },
	{ "userinfo in the URI", "GET http://user@example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
	  -EBADMSG },
	{ "allowed@evil", "GET http://allowed.com@evil.com/ HTTP/1.1\r\nHost: evil.com\r\n\r\n",
	  -EBADMSG },
	{ "fragment", "GET http://example.com/#x HTTP/1.1\r\nHost: example.com\r\n\r\n", -EBADMSG },
	{ "evil#.allowed", "GET http://evil.com#.allowed.com/ HTTP/1.1\r\nHost: evil.com\r\n\r\n",
	  -EBADMSG },
	{ "CONNECT to 127.1", "CONNECT 127.1:443 HTTP/1.1\r\nHost: 127.1:443\r\n\r\n", -EBADMSG },
	{ "CONNECT to 2130706433", "CONNECT 2130706433:443 HTTP/1.1\r\n\r\n", -EBADMSG },
	{ "CONNECT to a zone id", "CONNECT [fe80::1%eth0]:443 HTTP/1.1\r\n\r\n", -EBADMSG },
	{ "method too long", "AAAAAAAAAAAAAAAAAAAAAAAAA http://example.com/ HTTP/1.1\r\n"
	  "Host: example.com\r\n\r\n", -EBADMSG },
	{ "method not a token", "G(T http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
	  -EBADMSG },
	/* Host. */
	{ "HTTP/1.1 without Host", "GET http://example.com/ HTTP/1.1\r\n\r\n", -EBADMSG },
	{ "CONNECT HTTP/1.1 without Host", "CONNECT example.com:443 HTTP/1.1\r\n\r\n", -EBADMSG },
	{ "Host twice", G "Host: example.com\r\n\r\n", -EBADMSG },
	{ "Host differs from the URI", "GET http://example.com/ HTTP/1.1\r\nHost: evil.com\r\n\r\n",
	  -EBADMSG },
	{ "Host port differs from the URI",
	  "GET http://example.com:8080/ HTTP/1.1\r\nHost: example.com\r\n\r\n", -EBADMSG },
	{ "Host differs from CONNECT",
	  "CONNECT example.com:443 HTTP/1.1\r\nHost: evil.com:443\r\n\r\n", -EBADMSG },
	{ "Host port differs from CONNECT",
	  "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:22\r\n\r\n", -EBADMSG },
	{ "Host empty", "GET http://example.com/ HTTP/1.1\r\nHost:\r\n\r\n", -EBADMSG },
	{ "Host with userinfo", "GET http://example.com/ HTTP/1.1\r\nHost: a@example.com\r\n\r\n",
	  -EBADMSG },
	{ "Host with a path", "GET http://example.com/ HTTP/1.1\r\nHost: example.com/\r\n\r\n",
	  -EBADMSG },
	/* Fields. */
	{ "field without a colon", G "X-A\r\n\r\n", -EBADMSG },
	{ "field with an empty name", G ": a\r\n\r\n", -EBADMSG },
	{ "field name not a token", G "X(A): a\r\n\r\n", -EBADMSG },
};

/* Feed HEAD in pieces of CHUNK bytes; the verdict, and in *total the bytes taken. */
static int
feed(const char *head, size_t len, size_t chunk, struct ab_http_parser *p, size_t *total)
{
	ab_http_init(p);
	return netd_feed_chunks(netd_http_feed, p, head, len, chunk, total);
}

static void
test_rows(struct ab_http_parser *p)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t len = strlen(rows[i].head), used;
		int whole = feed(rows[i].head, len, len, p, &used);
		int bytes = feed(rows[i].head, len, 1, p, &used);

		ok(whole == rows[i].want && bytes == rows[i].want,
		   "%s: %s (whole %d, byte by byte %d)", rows[i].name,
		   rows[i].want == 0 ? "accepted" : "refused", whole, bytes);
	}
}

/* Rows holding a NUL, so their length is not strlen's. */
#define NUL_VALUE G "X-A: a\0b\r\n\r\n"
#define NUL_TARGET "GET http://example.com/\0 HTTP/1.1\r\nHost: example.com\r\n\r\n"

static void
test_nul(struct ab_http_parser *p)
{
	size_t used;

	ok(feed(NUL_VALUE, sizeof(NUL_VALUE) - 1, 1, p, &used) == -EBADMSG,
	   "NUL in a field value: refused");
	ok(feed(NUL_TARGET, sizeof(NUL_TARGET) - 1, 1, p, &used) == -EBADMSG,
	   "NUL in the target: refused");
}

static void
test_fields(struct ab_http_parser *p)
{
	static const char head[] = "POST http://Example.COM:8080/a?b=c HTTP/1.1\r\n"
				   "Host: example.com:8080\r\nContent-Length: 12\r\n"
				   "X-Pad:   v  \r\n\r\nBODY";
	const char *v;
	size_t used, vlen;
	int r;

	ab_http_init(p);
	r = ab_http_feed(p, head, sizeof(head) - 1, &used);
	ok(r == 0 && used == sizeof(head) - 1 - 4, "the head ends before the body (used %zu)", used);
	ok(p->req.form == AB_HTTP_ABSOLUTE && strcmp(p->req.method, "POST") == 0 &&
	   strcmp(p->req.host.text, "example.com") == 0 && p->req.port == 8080,
	   "absolute-form: method, normalised host and port");
	ok(p->req.path_len == 6 && memcmp(p->head + p->req.path, "/a?b=c", 6) == 0,
	   "path and query kept as sent");
	ok(p->req.has_length && p->req.content_length == 12 && !p->req.chunked, "length 12");
	ok(ab_http_field_find(p, "x-pad", &v, &vlen) == 0 && vlen == 1 && v[0] == 'v',
	   "field value trimmed of OWS");
	ok(ab_http_field_find(p, "x-none", &v, &vlen) == -ENOENT, "absent field");
	ok(ab_http_feed(p, "more", 4, &used) == 0 && used == 0, "complete: nothing more taken");

	ab_http_init(p);
	r = ab_http_feed(p, C "\r\n\x16\x03\x01", sizeof(C "\r\n\x16\x03\x01") - 1, &used);
	ok(r == 0 && used == sizeof(C "\r\n") - 1 && p->req.form == AB_HTTP_CONNECT &&
	   p->req.port == 443, "CONNECT: pipelined TLS bytes are left to the caller");
}

static void
test_bounds(struct ab_http_parser *p)
{
	size_t max = AB_HTTP_HEAD_MAX, used;
	char *big = malloc(max + 64);
	int r;

	if (big == NULL) {
		ok(0, "malloc");
		return;
	}
	/* A head of exactly the cap is taken; one byte more is refused. */
	for (size_t extra = 0; extra <= 1; extra++) {
		size_t fill = max - strlen(G) - strlen("X-A: \r\n\r\n") + extra;

		memcpy(big, G "X-A: ", strlen(G "X-A: "));
		memset(big + strlen(G "X-A: "), 'a', fill);
		memcpy(big + strlen(G "X-A: ") + fill, "\r\n\r\n", 4);
		r = feed(big, max + extra, 7, p, &used);
		ok(extra ? r == -EMSGSIZE : r == 0, "a head of %zu bytes: %d", max + extra, r);
	}
	/* An endless head that never ends a line. */
	memset(big, 'a', max + 64);
	memcpy(big, "GET http://example.com/", 23);
	ok(feed(big, max + 64, 1, p, &used) == -EMSGSIZE, "an endless request line: EMSGSIZE");
	/* Field count: the cap is taken, one more is refused, early. */
	for (size_t n = AB_HTTP_FIELDS_MAX - 1; n <= AB_HTTP_FIELDS_MAX; n++) {
		size_t len = 0;

		len += (size_t)sprintf(big, "%s", G);
		for (size_t i = 0; i < n; i++)
			len += (size_t)sprintf(big + len, "X-%zu: v\r\n", i);
		len += (size_t)sprintf(big + len, "\r\n");
		r = feed(big, len, 1, p, &used);
		ok(n < AB_HTTP_FIELDS_MAX ? r == 0 : r == -EMSGSIZE, "%zu fields + Host: %d",
		   n, r);
	}
	free(big);
	/* Slowloris: every byte but the last leaves the parser waiting. */
	{
		const char *h = G "\r\n";
		size_t len = strlen(h);
		bool waiting = true;

		ab_http_init(p);
		for (size_t i = 0; i + 1 < len; i++)
			waiting = waiting && ab_http_feed(p, h + i, 1, &used) == -EAGAIN && used == 1;
		ok(waiting, "byte by byte: -EAGAIN (the byte taken) until the last byte");
		ok(ab_http_feed(p, h + len - 1, 1, &used) == 0 && used == 1, "the last byte completes");
	}
	/* Folding and a leading empty line are refused at their first byte, not at the end. */
	ab_http_init(p);
	ok(ab_http_feed(p, G "X-A: a\r\n", strlen(G "X-A: a\r\n"), &used) == -EAGAIN &&
	   ab_http_feed(p, " ", 1, &used) == -EBADMSG, "obs-fold refused at its first byte");
	ab_http_init(p);
	ok(ab_http_feed(p, "\r", 1, &used) == -EBADMSG,
	   "an empty line before the request line refused at its first byte");
	/* A bad byte is refused at once, not after the cap, and the error sticks. */
	ab_http_init(p);
	ok(ab_http_feed(p, "GET \0", 5, &used) == -EBADMSG, "NUL refused at its byte");
	ok(ab_http_feed(p, "x", 1, &used) == -EBADMSG && used == 0, "the error is sticky");
}

/* Origin mode: what the credential gateway's listeners take (netd/gateway.c). */
#define O "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n"
static const struct {
	const char *name, *head;
	int want;
} origin_rows[] = {
	{ "origin-form POST", O "Content-Length: 2\r\n\r\n", 0 },
	{ "origin-form GET with a query", "GET /v1/models?limit=5 HTTP/1.1\r\n"
	  "Host: localhost:3129\r\n\r\n", 0 },
	{ "origin-form chunked", O "Transfer-Encoding: chunked\r\n\r\n", 0 },
	{ "origin-form CL+TE", O "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
	  -EBADMSG },
	{ "origin-form without Host", "GET / HTTP/1.1\r\n\r\n", -EBADMSG },
	{ "origin-form, Host twice", O "Host: a.example\r\n\r\n", -EBADMSG },
	{ "origin-form, Host with userinfo", "GET / HTTP/1.1\r\nHost: u@a.example\r\n\r\n",
	  -EBADMSG },
	{ "origin-form HTTP/1.0", "GET / HTTP/1.0\r\nHost: a.example\r\n\r\n", -EBADMSG },
	{ "origin-form with a fragment", "GET /a#b HTTP/1.1\r\nHost: a.example\r\n\r\n",
	  -EBADMSG },
	{ "absolute-form to a gateway", G "\r\n", -EBADMSG },
	{ "CONNECT to a gateway", C "\r\n", -EBADMSG },
	{ "CONNECT with an origin-form target",
	  "CONNECT /x HTTP/1.1\r\nHost: a.example\r\n\r\n", -EBADMSG },
	{ "asterisk-form to a gateway", "OPTIONS * HTTP/1.1\r\nHost: a.example\r\n\r\n",
	  -EBADMSG },
	{ "obs-fold in origin mode", O "X-A: a\r\n b\r\n\r\n", -EBADMSG },
};

static void
test_origin(struct ab_http_parser *p)
{
	static const char head[] = O "Content-Length: 2\r\n\r\n{}";
	size_t used;
	int r;

	for (size_t i = 0; i < sizeof(origin_rows) / sizeof(origin_rows[0]); i++) {
		size_t len = strlen(origin_rows[i].head);

		ab_http_init_origin(p);
		r = netd_feed_chunks(netd_http_feed, p, origin_rows[i].head, len, 1, &used);
		ok(r == origin_rows[i].want, "origin mode, %s: %s (%d)", origin_rows[i].name,
		   origin_rows[i].want == 0 ? "accepted" : "refused", r);
	}
	ab_http_init_origin(p);
	r = ab_http_feed(p, head, sizeof(head) - 1, &used);
	ok(r == 0 && p->req.form == AB_HTTP_ORIGIN && used == sizeof(head) - 3 &&
	   p->req.path_len == 12 && memcmp(p->head + p->req.path, "/v1/messages", 12) == 0 &&
	   strcmp(p->req.host.text, "127.0.0.1") == 0 && p->req.port == 3129,
	   "origin-form: path, and Host as the target");
	ab_http_init(p);
	ok(feed(O "\r\n", strlen(O "\r\n"), 1, p, &used) == -EBADMSG,
	   "proxy mode still refuses origin-form");
}

/*
 * ab_http_target: the request line's target for the record of a head refused or cut
 * short after it (netd/conn.c), and nothing when no trustworthy request line arrived.
 */
static const struct {
	const char *name, *head;
	int want;
	const char *host;
	uint16_t port;
	enum ab_http_form form;
} target_rows[] = {
	{ "a complete CONNECT", C "\r\n", 0, "example.com", 443, AB_HTTP_CONNECT },
	{ "CONNECT, head still arriving (slowloris)", C "X-A: a", 0, "example.com", 443,
	  AB_HTTP_CONNECT },
	{ "CONNECT smuggling a body (CL)", C "Content-Length: 5\r\n\r\n", 0, "example.com",
	  443, AB_HTTP_CONNECT },
	{ "absolute-form CL+TE", "POST http://Evil.Example:8080/x HTTP/1.1\r\nHost: "
	  "evil.example:8080\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
	  0, "evil.example", 8080, AB_HTTP_ABSOLUTE },
	{ "absolute-form, Host naming another host", "GET http://a.example/ HTTP/1.1\r\n"
	  "Host: b.example\r\n\r\n", 0, "a.example", 80, AB_HTTP_ABSOLUTE },
	{ "a bad byte in a field after the line", C "X-A: \x7f\r\n\r\n", 0, "example.com",
	  443, AB_HTTP_CONNECT },
	{ "request line not ended", "CONNECT example.com:443 HTTP/1.1", -ENOENT, NULL, 0, 0 },
	{ "nothing yet", "", -ENOENT, NULL, 0, 0 },
	{ "request line refused (userinfo)", "GET http://u@a.example/ HTTP/1.1\r\n\r\n",
	  -EBADMSG, NULL, 0, 0 },
	{ "request line refused (inet_aton shorthand)", "CONNECT 127.1:443 HTTP/1.1\r\n",
	  -EBADMSG, NULL, 0, 0 },
	{ "request line refused (HTTP/2.0)", "CONNECT a.example:443 HTTP/2.0\r\n", -EBADMSG,
	  NULL, 0, 0 },
};

static void
test_target(struct ab_http_parser *p)
{
	struct ab_netd_host h;
	enum ab_http_form form;
	uint16_t port;
	size_t used;
	int r;

	for (size_t i = 0; i < sizeof(target_rows) / sizeof(target_rows[0]); i++) {
		const char *head = target_rows[i].head;

		feed(head, strlen(head), 1, p, &used);
		memset(&h, 0, sizeof(h));
		port = 0;
		form = 0;
		r = ab_http_target(p, &h, &port, &form);
		ok(r == target_rows[i].want && (r != 0 ||
		   (strcmp(h.text, target_rows[i].host) == 0 && port == target_rows[i].port &&
		    form == target_rows[i].form)),
		   "target of %s: %d %s:%u", target_rows[i].name, r, r == 0 ? h.text : "-", port);
	}
	ab_http_init_origin(p);
	ab_http_feed(p, "GET / HTTP/1.1\r\n", 16, &used);
	ok(ab_http_target(p, &h, &port, &form) == -ENOENT,
	   "origin mode, head arriving: no target (it is the Host field's)");
}

int
main(void)
{
	struct ab_http_parser *p = malloc(sizeof(*p));

	if (p == NULL)
		return 1;
	test_rows(p);
	test_nul(p);
	test_fields(p);
	test_bounds(p);
	test_origin(p);
	test_target(p);
	free(p);
	return done_testing();
}
