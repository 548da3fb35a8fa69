/*
 * netd/http.h: the request head the box sends to its proxy listener (127.0.0.1:3128 in
 * the box), parsed strictly and within fixed bounds before anything is decided.
 *
 * Two forms only (RFC 9112 §3.2): authority-form "CONNECT host:port HTTP/1.1" and
 * absolute-form "METHOD http://host[:port]/path HTTP/1.1"; or, for the credential
 * gateway's listeners only (ab_http_init_origin), origin-form "METHOD /path HTTP/1.1"
 * and nothing else. Every function returns 0 or
 * -errno and never prints; the parser allocates nothing and holds no global state.
 */
#ifndef AB_NETD_HTTP_H
#define AB_NETD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"

#define AB_HTTP_HEAD_MAX 16384	/* request line + fields + the empty line */
#define AB_HTTP_FIELDS_MAX 64
#define AB_HTTP_METHOD_MAX 24

enum ab_http_form {
	AB_HTTP_CONNECT = 1,	/* authority-form: a tunnel to host:port */
	AB_HTTP_ABSOLUTE,	/* absolute-form http:// URI: one request to forward */
	AB_HTTP_ORIGIN,		/* origin-form "/path?query" (gateway mode only) */
};

/* A header field, as offsets into the parser's head buffer. */
struct ab_http_field {
	uint16_t name, name_len, value, value_len;
};

struct ab_http_request {
	enum ab_http_form form;
	char method[AB_HTTP_METHOD_MAX + 1];
	int minor;			/* HTTP/1.<minor>: 1, or 0 for CONNECT only */
	struct ab_netd_host host;	/* the target, normalised (host.h); origin-form:
					 * the Host field's */
	uint16_t port;			/* CONNECT: as written; absolute-form: 80 unless written */
	uint16_t path, path_len;	/* absolute- and origin-form: offset and length in
				 * head of the path and query; absolute-form: "/"
				 * goes before one that is empty or starts with '?' */
	size_t nfields;
	struct ab_http_field fields[AB_HTTP_FIELDS_MAX];
	bool has_length;		/* Content-Length present (never with chunked) */
	uint64_t content_length;
	bool chunked;			/* Transfer-Encoding: chunked */
	size_t head_len;		/* bytes of the head, the final CRLF CRLF included */
};

struct ab_http_parser {
	char head[AB_HTTP_HEAD_MAX];
	size_t len;		/* bytes of head received */
	size_t lines;		/* lines started, for the field cap */
	int state;		/* 0 reading, 1 complete, or the sticky -errno */
	bool origin;		/* gateway mode: origin-form only */
	struct ab_http_request req;
};

/* Make P ready for a new connection's head. */
void ab_http_init(struct ab_http_parser *p);

/*
 * Make P ready for a head sent to a credential gateway (netd/gateway.c): a plain
 * HTTP/1.1 origin-form request ("POST /v1/messages HTTP/1.1" with a valid Host), with
 * every other rule above unchanged. CONNECT, absolute-form, asterisk-form and HTTP/1.0
 * are refused (-EBADMSG): a gateway forwards to its one host, never to a named one.
 */
void ab_http_init_origin(struct ab_http_parser *p);

/*
 * Feed the next LEN bytes from the box. Bytes are checked as they arrive, so hostile
 * input is refused at its first bad byte, not after 16 KiB. *used tells how many bytes
 * of BUF belong to the head (held in P from then on); the rest (a body, or bytes
 * pipelined after CONNECT) is the caller's. Returns:
 *   0          the head is complete and valid: P->req is filled;
 *   -EAGAIN    need more bytes; all LEN were taken (a deadline is the caller's job);
 *   -EMSGSIZE  the head exceeds AB_HTTP_HEAD_MAX or AB_HTTP_FIELDS_MAX fields;
 *   -EBADMSG   malformed, ambiguous or refused (see http.c for the list).
 * An error is sticky: later calls return it again and consume nothing.
 */
int ab_http_feed(struct ab_http_parser *p, const void *buf, size_t len, size_t *used);

/*
 * The first field named NAME (ASCII case-insensitive) of a complete head: *value and
 * *len point into P->head (not NUL-terminated). 0, or -ENOENT.
 */
int ab_http_field_find(const struct ab_http_parser *p, const char *name,
		       const char **value, size_t *len);

/*
 * The target the request line names (host, port and form, as in P->req), in any
 * state of P: a complete head, one still arriving (a slowloris), or one refused after
 * its request line (smuggling fields, an oversized head).  So a denial at the head
 * stage still says which host it was for.  0; -ENOENT when no whole request line has
 * arrived (or P is in origin mode, whose target is its Host field); -EBADMSG when the
 * request line itself was refused (it names nothing we can trust).
 */
int ab_http_target(const struct ab_http_parser *p, struct ab_netd_host *host,
		   uint16_t *port, enum ab_http_form *form);

#endif /* AB_NETD_HTTP_H */
