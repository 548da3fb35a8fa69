/*
 * libFuzzer: bytes -> ab_sni_feed, fed whole and in chunks whose size the first byte
 * picks: the verdicts, the bytes used and the name must agree whatever the split.  A
 * name it returns must be a valid host name in normal form.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sni.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
feed(struct ab_sni_parser *p, const uint8_t *d, size_t n, size_t chunk, size_t *total)
{
	size_t off = 0, used;
	int r = -EAGAIN;

	ab_sni_init(p);
	*total = 0;
	while (off < n && r == -EAGAIN) {
		size_t k = n - off < chunk ? n - off : chunk;

		r = ab_sni_feed(p, d + off, k, &used);
		if (used > k)
			abort();
		*total = off + used;
		off += k;
	}
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ab_sni_parser a, b;	/* fuzzer-only: 16 KiB each */
	struct ab_netd_host h;
	size_t ta, tb;
	int ra, rb;

	if (size < 1)
		return 0;
	ra = feed(&a, data + 1, size - 1, size, &ta);
	rb = feed(&b, data + 1, size - 1, (size_t)data[0] % 13 + 1, &tb);
	if (ra != rb || (ra == 0 && (ta != tb || a.res.has_name != b.res.has_name ||
				     a.res.ech != b.res.ech ||
				     strcmp(a.res.name.text, b.res.name.text) != 0)))
		abort();
	if (ra == 0 && a.res.has_name &&
	    (ab_netd_host_parse(a.res.name.text, strlen(a.res.name.text), &h) != 0 ||
	     h.kind != AB_NETD_HOST_NAME || strcmp(h.text, a.res.name.text) != 0))
		abort();
	return 0;
}
