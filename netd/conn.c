/*
 * netd/conn.c: one connection from the box, run to completion in its own worker thread
 * with poll() deadlines (main.c says why threads), through explicit phases:
 *
 *   READ_HEAD  the request head, 16 KiB within 10 s (slowloris gets 408 and a record);
 *   DECIDE     request policy, then the name against the rules (host.c): no lookup yet;
 *   HELLO      CONNECT only: answer 200, read the ClientHello, SNI = CONNECT host, no ECH;
 *   RESOLVE    the name on the host; each address against the address policy (addr.c);
 *   DIAL       the checked address, within 10 s; the open record;
 *   SPLICE     bounded buffers both ways until both sides close or the session ends;
 *              then the close record with bytes and duration.
 *
 * Every wait also watches the session's stopfd, so the end of the session (its init
 * exited) closes every tunnel at once.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon.h"
#include "dns.h"
#include "http.h"
#include "sni.h"

#define BUF_MAX 16384

enum phase { READ_HEAD, DECIDE, HELLO, RESOLVE, DIAL, SPLICE };

struct conn {
	struct ab_netd_session *s;
	enum ab_netd_src src;
	size_t gw;			/* AB_NETD_SRC_GATEWAY: the credential's index */
	enum phase phase;
	int fd, up;			/* the box's side, the upstream side */
	uint64_t t0, deadline;		/* ms, CLOCK_MONOTONIC */
	const char *proto;		/* "connect" or "http" for records */
	const char *rule;
	enum ab_netd_reason allowed_why;	/* the name's: NONE, or LEARN (rules.c) */
	char addr[INET6_ADDRSTRLEN];
	uint64_t bytes_up, bytes_down;
	struct ab_http_parser http;
	struct ab_sni_parser sni;
	uint8_t early[BUF_MAX];		/* bytes after the head / the ClientHello as sent */
	size_t nearly;
};

static void
record(struct conn *c, const char *event, bool allowed, enum ab_netd_reason reason)
{
	struct ab_netd_session *s = c->s;
	struct ab_netd_host target;
	enum ab_http_form form = AB_HTTP_CONNECT;
	uint16_t port = 0;
	/* The request line's target, even when the head was refused or cut short after
	 * it (smuggling, a slowloris): the record says which host the attempt was for,
	 * and whether it was a tunnel or a plain request. */
	bool known = ab_http_target(&c->http, &target, &port, &form) == 0;
	struct ab_netd_event ev = {
		.ses = s->ses, .uid = s->uid, .user = s->user,
		.proto = known && form == AB_HTTP_ABSOLUTE ? "http" : c->proto,
		.event = event, .host = known ? target.text : "?",
		.port = known ? port : 0, .addr = c->addr[0] ? c->addr : NULL,
		.allowed = allowed, .rule = c->rule, .reason = reason,
		.bytes_up = c->bytes_up, .bytes_down = c->bytes_down,
		.dur_ms = ab_netd_now_ms() - c->t0,
	};

	ab_netd_record(s->d->rec, &ev, ab_netd_now_ms());
}

void
ab_netd_conn_deny(struct ab_netd_session *s, const char *proto, const char *host,
		  uint16_t port, enum ab_netd_reason reason)
{
	struct ab_netd_event ev = {
		.ses = s->ses, .uid = s->uid, .user = s->user, .proto = proto,
		.event = "deny", .host = host, .port = port, .reason = reason,
	};

	ab_netd_record(s->d->rec, &ev, ab_netd_now_ms());
}

/*
 * Wait for EVENTS on fd until the deadline (or for ever when it is 0).  1 ready, 0 timed
 * out, -ECANCELED the session ended, -errno.
 */
static int
wait_fd(const struct conn *c, int fd, short events, uint64_t deadline)
{
	struct pollfd p[2] = { { .fd = fd, .events = events }, { .fd = c->s->stopfd,
							       .events = POLLIN } };
	int tmo = -1, r;

	for (;;) {
		if (deadline != 0) {
			uint64_t now = ab_netd_now_ms();

			tmo = now >= deadline ? 0 : (int)(deadline - now);
		}
		r = poll(p, 2, tmo);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (p[1].revents != 0)
			return -ECANCELED;
		return r > 0 ? 1 : 0;
	}
}

static void
reply(struct conn *c, const char *status)
{
	char buf[160];
	int n = snprintf(buf, sizeof(buf), "HTTP/1.1 %s\r\nContent-Length: 0\r\n"
			 "Connection: close\r\n\r\n", status);

	(void)send(c->fd, buf, (size_t)n, MSG_NOSIGNAL);
}

/* The next bytes from the box before the deadline, or why there are none. */
static enum ab_netd_reason
recv_box(struct conn *c, void *buf, size_t cap, size_t *got)
{
	ssize_t n;
	int r = wait_fd(c, c->fd, POLLIN, c->deadline);

	if (r == -ECANCELED)
		return AB_NETD_R_LIMIT;
	if (r <= 0)
		return AB_NETD_R_TIMEOUT;
	if ((n = recv(c->fd, buf, cap, 0)) <= 0)
		return AB_NETD_R_BAD_REQUEST;
	*got = (size_t)n;
	return AB_NETD_R_NONE;
}

/* READ_HEAD: 0 complete, else the reason to refuse (timeout, bad-request). */
static enum ab_netd_reason
read_head(struct conn *c)
{
	uint8_t buf[4096];

	ab_http_init(&c->http);
	c->deadline = c->t0 + AB_NETD_HEAD_MS;
	for (;;) {
		size_t used = 0, n = 0;
		enum ab_netd_reason why = recv_box(c, buf, sizeof(buf), &n);
		int r;

		if (why != AB_NETD_R_NONE)
			return why;
		r = ab_http_feed(&c->http, buf, n, &used);
		if (r == -EAGAIN)
			continue;
		if (r != 0)
			return AB_NETD_R_BAD_REQUEST;
		c->nearly = n - used;
		memcpy(c->early, buf + used, c->nearly);
		return AB_NETD_R_NONE;
	}
}

static bool
field_has(const struct conn *c, const char *name, const char *token)
{
	const char *v;
	size_t len, i, k = strlen(token);

	if (ab_http_field_find(&c->http, name, &v, &len) != 0)
		return false;
	if (token == NULL || k == 0)
		return true;
	for (i = 0; i + k <= len; i++)
		if (strncasecmp(v + i, token, k) == 0)
			return true;
	return false;
}

/*
 * The request policy http.c leaves to us (netd/README.md): no TRACE/TRACK (they echo
 * headers back), no h2c upgrade (a second protocol inside a checked one), no body on
 * GET/HEAD, and no chunked upload (we forward exactly Content-Length bytes, so nothing
 * after the body can reach the upstream as a second request).  A Proxy-Authorization
 * field is not refused: it is ours, not the upstream's, and is dropped (a CONNECT head
 * is never forwarded; forward_head drops every Proxy-* field).  The box holds no
 * credential for us, and attribution is by listener, so it decides nothing; refusing
 * it would only break tools whose proxy URL carries a user name.
 */
static bool
request_ok(const struct conn *c)
{
	const struct ab_http_request *rq = &c->http.req;

	if (rq->form == AB_HTTP_CONNECT)
		return true;
	if (strcmp(rq->method, "TRACE") == 0 || strcmp(rq->method, "TRACK") == 0 ||
	    field_has(c, "upgrade", "h2c") || rq->chunked)
		return false;
	if ((strcmp(rq->method, "GET") == 0 || strcmp(rq->method, "HEAD") == 0) &&
	    rq->has_length && rq->content_length > 0)
		return false;
	return true;
}

/*
 * Whether a rule's text names its port ("host:22", "[::1]:22"), rather than taking 443
 * by default: only such a rule lets a tunnel carry something other than TLS
 * (netd/README.md).
 */
static bool
port_named(const char *rule)
{
	const char *colon = rule != NULL ? strrchr(rule, ':') : NULL;

	if (colon == NULL)
		return false;
	return rule[0] != '[' || colon > strchr(rule, ']');
}

/*
 * HELLO: the ClientHello's SNI must name the CONNECT host; ECH is refused.  Not TLS at
 * all: refused, unless the allowing rule names the port (and it is not 443).
 */
static enum ab_netd_reason
read_hello(struct conn *c)
{
	const struct ab_netd_host *h = &c->http.req.host;
	size_t used = 0;
	int r = -EAGAIN;

	/* Learning stands in for the rule it would suggest, "HOST:PORT" off 443: the port
	 * is named, as such a rule would name it. */
	bool named = (c->allowed_why == AB_NETD_R_LEARN || port_named(c->rule)) &&
		     c->http.req.port != AB_NETD_DEFAULT_PORT;

	ab_sni_init(&c->sni);
	if (named && c->nearly == 0) {
		/* A rule that names this port may mean another protocol, and some speak
		 * first (SSH's banner, SMTP): no bytes from the box soon, dial without. */
		int w = wait_fd(c, c->fd, POLLIN, ab_netd_now_ms() + AB_NETD_FIRST_MS);

		if (w == -ECANCELED)
			return AB_NETD_R_LIMIT;
		if (w == 0)
			return AB_NETD_R_NONE;
	}
	if (c->nearly > 0)
		r = ab_sni_feed(&c->sni, c->early, c->nearly, &used);
	c->deadline = ab_netd_now_ms() + AB_NETD_HELLO_MS;
	while (r == -EAGAIN) {
		size_t n = 0;
		enum ab_netd_reason why;

		if (c->nearly == sizeof(c->early))
			return AB_NETD_R_SNI_MISMATCH;
		why = recv_box(c, c->early + c->nearly, sizeof(c->early) - c->nearly, &n);
		if (why != AB_NETD_R_NONE)
			return why;
		r = ab_sni_feed(&c->sni, c->early + c->nearly, n, &used);
		c->nearly += n;
	}
	if (r == -EPROTO && named)
		return AB_NETD_R_NONE;		/* not TLS, on a port its rule names */
	if (r != 0)
		return AB_NETD_R_SNI_MISMATCH;	/* not TLS, or not one readable hello */
	if (c->sni.res.ech)
		return AB_NETD_R_ECH;
	if (h->kind != AB_NETD_HOST_NAME)	/* an IP rule allowed it: no SNI expected */
		return c->sni.res.has_name ? AB_NETD_R_SNI_MISMATCH : AB_NETD_R_NONE;
	if (!c->sni.res.has_name || strcmp(c->sni.res.name.text, h->text) != 0)
		return AB_NETD_R_SNI_MISMATCH;
	return AB_NETD_R_NONE;
}

void
ab_netd_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

void
ab_netd_addr_text(const struct sockaddr_storage *ss, char *out, size_t cap)
{
	const void *a = ss->ss_family == AF_INET
	    ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
	    : (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	if (inet_ntop(ss->ss_family, a, out, (socklen_t)cap) == NULL)
		snprintf(out, cap, "?");
}

/* An IP literal is its own one address; a name is resolved on the host. */
static enum ab_netd_reason
resolve(struct conn *c, struct sockaddr_storage *addrs, size_t max, size_t *n)
{
	const struct ab_netd_host *h = &c->http.req.host;
	struct sockaddr_storage refused = { 0 };
	enum ab_netd_reason why;

	if (h->kind == AB_NETD_HOST_NAME) {
		if (ab_netd_resolve(c->s, h->text, AF_UNSPEC, addrs, max, n, &why, &refused) != 0)
			return AB_NETD_R_RESOLVE_FAILED;
		if (why != AB_NETD_R_NONE && refused.ss_family != 0)
			ab_netd_addr_text(&refused, c->addr, sizeof(c->addr));
		return why;
	}
	struct sockaddr_storage ss = { 0 };
	struct ab_netd_cidr *host = NULL;
	size_t nhost = 0;

	if (h->kind == AB_NETD_HOST_IPV4) {
		ss.ss_family = AF_INET;
		memcpy(&((struct sockaddr_in *)&ss)->sin_addr, h->addr, 4);
	} else {
		ss.ss_family = AF_INET6;
		memcpy(&((struct sockaddr_in6 *)&ss)->sin6_addr, h->addr, 16);
	}
	ab_netd_addr_text(&ss, c->addr, sizeof(c->addr));
	if (ab_netd_addr_host_list(&host, &nhost) != 0)
		return AB_NETD_R_RESOLVE_FAILED;
	bool ok = ab_netd_decide_addr(&c->s->rules, host, nhost, &ss, &why);
	free(host);
	if (!ok)
		return why;
	addrs[0] = ss;
	*n = 1;
	return AB_NETD_R_NONE;
}

/* DIAL one checked address within the deadline: the connected socket or -errno. */
static int
dial_one(struct conn *c, struct sockaddr_storage *ss)
{
	socklen_t len = ss->ss_family == AF_INET ? sizeof(struct sockaddr_in)
						 : sizeof(struct sockaddr_in6);
	int fd, err = 0, r;
	socklen_t el = sizeof(err);

	ab_netd_set_port(ss, c->http.req.port);
	if ((fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)ss, len) != 0 && errno != EINPROGRESS) {
		err = errno;
		close(fd);
		return -err;
	}
	r = wait_fd(c, fd, POLLOUT, c->deadline);
	if (r <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err != 0 ||
	    fcntl(fd, F_SETFL, 0) != 0) {
		close(fd);
		return r == -ECANCELED ? r : -ECONNREFUSED;
	}
	/* Blocking from here: the head and early bytes (32 KiB at most) go out whole; the
	 * splice itself never blocks (MSG_DONTWAIT). */
	return fd;
}

static enum ab_netd_reason
dial(struct conn *c, struct sockaddr_storage *addrs, size_t n)
{
	size_t i;

	c->deadline = ab_netd_now_ms() + AB_NETD_DIAL_MS;
	for (i = 0; i < n; i++) {
		ab_netd_addr_text(&addrs[i], c->addr, sizeof(c->addr));
		if ((c->up = dial_one(c, &addrs[i])) >= 0)
			return AB_NETD_R_NONE;
		if (c->up == -ECANCELED)
			break;
	}
	c->up = -1;
	return AB_NETD_R_DIAL_FAILED;
}

/* One direction of the splice: move what is readable, count it. */
struct pipe_dir {
	int from, to;
	uint8_t buf[BUF_MAX];
	size_t len, off;
	bool eof, limited;	/* limited: only `left` more bytes are forwarded */
	uint64_t left, *count;
};

static int
dir_step(struct pipe_dir *d, short rev_from, short rev_to)
{
	if (d->len == 0 && !d->eof && (rev_from & (POLLIN | POLLHUP | POLLERR))) {
		size_t want = sizeof(d->buf);
		ssize_t n;

		if (d->limited && d->left < want)
			want = (size_t)d->left;
		n = want == 0 ? 0 : recv(d->from, d->buf, want, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0) {
			d->eof = true;
			if (!d->limited)
				shutdown(d->to, SHUT_WR);
			return 0;
		}
		d->len = (size_t)n;
		d->off = 0;
		if (d->limited)
			d->left -= (uint64_t)n;
	}
	if (d->len > 0 && (rev_to & POLLOUT)) {
		ssize_t n = send(d->to, d->buf + d->off, d->len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0)
			return -errno;
		d->off += (size_t)n;
		d->len -= (size_t)n;
		*d->count += (uint64_t)n;
	}
	return 0;
}

static short
dir_events(const struct pipe_dir *d, bool from_side)
{
	if (from_side)
		return d->len == 0 && !d->eof ? POLLIN : 0;
	return d->len > 0 ? POLLOUT : 0;
}

/*
 * SPLICE until both directions ended (or one failed, or the session ended).  LIMIT_UP:
 * forward only up_left bytes from the box (absolute-form: the declared body), then stop
 * reading from it, so a second request on the connection never reaches this upstream.
 */
static void
splice_loop(struct conn *c, bool limit_up, uint64_t up_left)
{
	struct pipe_dir *dirs = calloc(2, sizeof(*dirs));
	struct pipe_dir *u = &dirs[0], *dn = &dirs[1];

	if (dirs == NULL)
		return;

	*u = (struct pipe_dir){ .from = c->fd, .to = c->up, .limited = limit_up,
				.left = up_left, .count = &c->bytes_up };
	*dn = (struct pipe_dir){ .from = c->up, .to = c->fd, .count = &c->bytes_down };
	while (!(u->eof && u->len == 0 && dn->eof && dn->len == 0)) {
		struct pollfd p[3] = {
			{ .fd = c->fd, .events = dir_events(u, true) | dir_events(dn, false) },
			{ .fd = c->up, .events = dir_events(dn, true) | dir_events(u, false) },
			{ .fd = c->s->stopfd, .events = POLLIN },
		};

		if (u->limited && u->left == 0 && u->len == 0)
			u->eof = true;
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[2].revents != 0 || dir_step(u, p[0].revents, p[1].revents) != 0 ||
		    dir_step(dn, p[1].revents, p[0].revents) != 0)
			break;
		/* The upstream closed and everything was delivered: done, even if the box's
		 * side is still open (absolute-form, Connection: close). */
		if (dn->eof && dn->len == 0 && limit_up)
			break;
	}
	free(dirs);
}

/* Forward an absolute-form request: origin-form line, fields without Proxy-* and
 * hop-by-hop ones, Connection: close (one request per connection, one host). */
static int
forward_head(struct conn *c)
{
	static const char *const drop[] = { "proxy-", "connection", "keep-alive", "te",
					    "trailer", "upgrade" };
	const struct ab_http_request *rq = &c->http.req;
	const char *h = c->http.head;
	/* The head, plus at most a blank after each field's colon and our Connection line
	 * (a leading '/' at most makes up for "http://H" the URI loses). */
	char *out = malloc(AB_HTTP_HEAD_MAX + AB_HTTP_FIELDS_MAX + 64);
	size_t n = 0, i, k;
	int r;

	if (out == NULL)
		return -ENOMEM;
	n = (size_t)sprintf(out, "%s ", rq->method);
	if (rq->path_len == 0 || h[rq->path] == '?')
		out[n++] = '/';
	memcpy(out + n, h + rq->path, rq->path_len);
	n += rq->path_len;
	n += (size_t)sprintf(out + n, " HTTP/1.1\r\n");
	for (i = 0; i < rq->nfields; i++) {
		const struct ab_http_field *f = &rq->fields[i];
		bool keep = true;

		for (k = 0; k < sizeof(drop) / sizeof(drop[0]); k++) {
			size_t dl = strlen(drop[k]);
			bool prefix = drop[k][dl - 1] == '-';

			if ((prefix ? f->name_len >= dl : f->name_len == dl) &&
			    strncasecmp(h + f->name, drop[k], dl) == 0)
				keep = false;
		}
		if (!keep)
			continue;
		memcpy(out + n, h + f->name, f->name_len);
		n += f->name_len;
		out[n++] = ':';
		out[n++] = ' ';
		memcpy(out + n, h + f->value, f->value_len);
		n += f->value_len;
		out[n++] = '\r';
		out[n++] = '\n';
	}
	n += (size_t)sprintf(out + n, "Connection: close\r\n\r\n");
	r = ab_io_write_all(c->up, out, n);
	free(out);
	return r;
}

/* Refuse at the point of decision: the box's answer, then the record. */
static void
deny(struct conn *c, enum ab_netd_reason why, const char *status)
{
	if (status != NULL)
		reply(c, status);
	record(c, "deny", false, why);
}

static void
proxy_run(struct conn *c)
{
	const struct ab_http_request *rq = &c->http.req;
	struct sockaddr_storage addrs[AB_NETD_DNS_ANSWERS_MAX];
	enum ab_netd_reason why;
	size_t n = 0;

	c->phase = READ_HEAD;
	c->proto = "connect";
	if ((why = read_head(c)) != AB_NETD_R_NONE)
		return deny(c, why, why == AB_NETD_R_TIMEOUT ? "408 Request Timeout"
							     : "400 Bad Request");
	c->phase = DECIDE;
	c->proto = rq->form == AB_HTTP_CONNECT ? "connect" : "http";
	if (!request_ok(c))
		return deny(c, AB_NETD_R_BAD_REQUEST, "400 Bad Request");
	if (!ab_netd_decide_name(&c->s->rules, &rq->host, rq->port, &why, &c->rule))
		return deny(c, why, "403 Forbidden");
	c->allowed_why = why;	/* LEARN rides on the open and close records */
	if (rq->form == AB_HTTP_CONNECT) {
		c->phase = HELLO;
		/* The tunnel is checked before anything is dialled: no upstream sees a
		 * connection for a hello we then refuse. */
		reply(c, "200 Connection established");
		if ((why = read_hello(c)) != AB_NETD_R_NONE)
			return deny(c, why, NULL);
	}
	c->phase = RESOLVE;
	if ((why = resolve(c, addrs, AB_NETD_DNS_ANSWERS_MAX, &n)) != AB_NETD_R_NONE)
		return deny(c, why, rq->form == AB_HTTP_CONNECT ? NULL : "403 Forbidden");
	c->phase = DIAL;
	if ((why = dial(c, addrs, n)) != AB_NETD_R_NONE)
		return deny(c, why, rq->form == AB_HTTP_CONNECT ? NULL : "502 Bad Gateway");
	record(c, "open", true, c->allowed_why);
	c->phase = SPLICE;
	if (rq->form == AB_HTTP_ABSOLUTE && forward_head(c) != 0)
		goto closed;
	uint64_t body = rq->has_length ? rq->content_length : 0;
	size_t early = c->nearly;

	if (rq->form == AB_HTTP_ABSOLUTE && early > body)
		early = (size_t)body;	/* bytes after the body: never forwarded */
	if (ab_io_write_all(c->up, c->early, early) != 0)
		goto closed;
	c->bytes_up += early;
	splice_loop(c, rq->form == AB_HTTP_ABSOLUTE, body - (rq->form == AB_HTTP_ABSOLUTE
							     ? early : 0));
closed:
	record(c, "close", true, c->allowed_why);
}

static void *
conn_thread(void *arg)
{
	struct conn *c = arg;

	if (c->src == AB_NETD_SRC_DNS_TCP)
		ab_netd_dns_tcp_serve(c->s, c->fd);
	else if (c->src == AB_NETD_SRC_GATEWAY)
		ab_netd_gateway_conn(c->s, c->fd, c->gw);
	else
		proxy_run(c);
	if (c->up >= 0)
		close(c->up);
	close(c->fd);
	ab_netd_session_release(c->s);
	free(c);
	return NULL;
}

/*
 * Start a worker for an accepted connection; the caller has admitted it (a session ref
 * and a slot), which the worker gives back.  On failure the fd is closed and the slot
 * released here.
 */
int
ab_netd_conn_start(struct ab_netd_session *s, int fd, enum ab_netd_src src, size_t gw)
{
	struct conn *c = calloc(1, sizeof(*c));
	pthread_attr_t attr;
	pthread_t t;
	int r = ENOMEM;

	if (c != NULL) {
		*c = (struct conn){ .s = s, .src = src, .gw = gw, .fd = fd, .up = -1,
				    .t0 = ab_netd_now_ms() };
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attr, 256 * 1024);
		r = pthread_create(&t, &attr, conn_thread, c);
		pthread_attr_destroy(&attr);
	}
	if (r != 0) {
		free(c);
		close(fd);
		ab_netd_session_release(s);
		return -r;
	}
	return 0;
}
