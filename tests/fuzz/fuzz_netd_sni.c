/*
 * libFuzzer: bytes -> ab_sni_feed, fed whole and in chunks whose size the first byte
 * picks: the verdicts, the bytes used and the name must agree whatever the split.  A
 * name it returns must be a valid host name in normal form.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netd_feed.h"
#include "sni.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ab_sni_parser a, b;	/* fuzzer-only: 16 KiB each, not per run */
	const struct ab_sni_result *x = &a.res, *y = &b.res;
	struct ab_netd_host h;
	size_t total;
	int r;

	if (size < 1)
		return 0;
	ab_sni_init(&a);
	ab_sni_init(&b);
	r = netd_feed_both(netd_sni_feed, &a, &b, data, size, 13, &total);
	if (r == -ERANGE || r == -EDOM)
		abort();
	if (r != 0)
		return 0;
	if (x->has_name != y->has_name || x->ech != y->ech || strcmp(x->name.text, y->name.text))
		abort();
	if (x->has_name && (ab_netd_host_parse(x->name.text, strlen(x->name.text), &h) != 0 ||
			    h.kind != AB_NETD_HOST_NAME || strcmp(h.text, x->name.text) != 0))
		abort();
	return 0;
}
