/*
 * libFuzzer: bytes -> ab_http_feed.  The first byte picks a chunk size; the rest is fed
 * whole and again in chunks of that size: the two verdicts (and the head length) must
 * agree, or the parser depends on how the box splits its writes.  A head it accepts
 * must also keep its own promises: no body framing on CONNECT, never both
 * Content-Length and chunked, fields inside the head, a target host that parses again
 * to itself.  The target reported for any state of the head (ab_http_target) is a host
 * in normal form.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "netd_feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_request(const struct ab_http_parser *p, size_t total)
{
	const struct ab_http_request *q = &p->req;
	struct ab_netd_host h;

	if (q->head_len != total || q->head_len > AB_HTTP_HEAD_MAX || q->nfields > AB_HTTP_FIELDS_MAX)
		abort();
	if (q->has_length && q->chunked)
		abort();
	if (q->form == AB_HTTP_CONNECT && (q->has_length || q->chunked || q->port == 0))
		abort();
	for (size_t i = 0; i < q->nfields; i++)
		if ((size_t)q->fields[i].value + q->fields[i].value_len > q->head_len)
			abort();
	if (q->host.kind == AB_NETD_HOST_NAME &&
	    (ab_netd_host_parse(q->host.text, strlen(q->host.text), &h) != 0 ||
	     strcmp(h.text, q->host.text) != 0))
		abort();
}

/*
 * Whatever state the head is in, a target it reports (the record of a head refused at
 * the head stage) has a port and a name in normal form, and a complete head reports
 * its own.
 */
static void
check_target(const struct ab_http_parser *p)
{
	struct ab_netd_host t, h;
	enum ab_http_form form;
	uint16_t port;

	if (ab_http_target(p, &t, &port, &form) != 0) {
		if (p->state == 1)
			abort();
		return;
	}
	if (port == 0 || (form != AB_HTTP_CONNECT && form != AB_HTTP_ABSOLUTE))
		abort();
	if (t.kind == AB_NETD_HOST_NAME && (ab_netd_host_parse(t.text, strlen(t.text), &h) != 0 ||
	    strcmp(h.text, t.text) != 0))
		abort();
	if (p->state == 1 && (strcmp(t.text, p->req.host.text) != 0 || port != p->req.port))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ab_http_parser a, b;	/* fuzzer-only: 16 KiB each, not per run */
	size_t total;
	int r;

	if (size < 1)
		return 0;
	ab_http_init(&a);
	ab_http_init(&b);
	r = netd_feed_both(netd_http_feed, &a, &b, data, size, 17, &total);
	if (r == -ERANGE || r == -EDOM)
		abort();
	if (r == 0)
		check_request(&a, total);
	check_target(&a);
	return 0;
}
