/*
 * libFuzzer: bytes -> ab_http_feed.  The first byte picks a chunk size; the rest is fed
 * whole and again in chunks of that size: the two verdicts (and the head length) must
 * agree, or the parser depends on how the box splits its writes.  A head it accepts
 * must also keep its own promises: no body framing on CONNECT, never both
 * Content-Length and chunked, fields inside the head, a target host that parses again
 * to itself.
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
	return 0;
}
