/*
 * Shared by the netd unit tests and fuzzers: feed a parser its input in pieces, as a
 * socket would deliver it, so a verdict can be compared across ways of splitting it.
 */
#ifndef AB_NETD_FEED_H
#define AB_NETD_FEED_H

#include <errno.h>
#include <stddef.h>

#include "http.h"
#include "sni.h"

typedef int (*netd_feed_fn)(void *parser, const void *buf, size_t len, size_t *used);

static int __attribute__((unused))
netd_http_feed(void *p, const void *buf, size_t len, size_t *used)
{
	return ab_http_feed(p, buf, len, used);
}

static int __attribute__((unused))
netd_sni_feed(void *p, const void *buf, size_t len, size_t *used)
{
	return ab_sni_feed(p, buf, len, used);
}

/*
 * Feed D[0..n) in pieces of CHUNK bytes until a verdict; *total is how many bytes the
 * parser took in all. -ERANGE if a call claims more bytes than it was given.
 */
static int __attribute__((unused))
netd_feed_chunks(netd_feed_fn feed, void *p, const void *d, size_t n, size_t chunk,
		 size_t *total)
{
	const unsigned char *b = d;
	size_t off = 0, used;
	int r = -EAGAIN;

	*total = 0;
	while (off < n && r == -EAGAIN) {
		size_t k = n - off < chunk ? n - off : chunk;

		r = feed(p, b + off, k, &used);
		if (used > k)
			return -ERANGE;
		*total = off + used;
		off += k;
	}
	return r;
}

/*
 * For the fuzzers: D[0] picks a piece size (1..MOD), the rest is fed to A whole and to
 * B in pieces of that size (both initialised by the caller). A's verdict, with the bytes
 * it took in *total; -EDOM when the two differ in verdict or bytes taken (the parser
 * would depend on how the box splits its writes), -ERANGE as above.
 */
static int __attribute__((unused))
netd_feed_both(netd_feed_fn feed, void *a, void *b, const unsigned char *d, size_t n,
	       size_t mod, size_t *total)
{
	size_t tb;
	int ra, rb;

	if (n < 1)
		return -EDOM;
	ra = netd_feed_chunks(feed, a, d + 1, n - 1, n, total);
	rb = netd_feed_chunks(feed, b, d + 1, n - 1, d[0] % mod + 1, &tb);
	if (ra == -ERANGE || rb == -ERANGE)
		return -ERANGE;
	if (ra != rb || (ra == 0 && *total != tb))
		return -EDOM;
	return ra;
}

#endif /* AB_NETD_FEED_H */
