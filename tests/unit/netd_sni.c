/*
 * netd/sni.c: the SNI of a tunnel's ClientHello, from well-formed hellos built here
 * byte by byte and from hostile ones (a tunnel whose SNI is not the CONNECT
 * host is cut, ECH is refused; invariant 6).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netd_feed.h"
#include "sni.h"
#include "tap.h"

struct buf {
	uint8_t b[40000];
	size_t n;
};

static void
put(struct buf *o, const void *p, size_t n)
{
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void
put8(struct buf *o, unsigned v)
{
	o->b[o->n++] = (uint8_t)v;
}

static void
put16(struct buf *o, unsigned v)
{
	put8(o, v >> 8);
	put8(o, v & 0xff);
}

/* An extension: type, then its data with a 2-byte length. */
static void
ext(struct buf *o, unsigned type, const void *data, size_t n)
{
	put16(o, type);
	put16(o, (unsigned)n);
	put(o, data, n);
}

/* server_name data holding one host_name entry. */
static void
sni_ext(struct buf *o, const char *name)
{
	size_t n = strlen(name);

	put16(o, 0);
	put16(o, (unsigned)(n + 5));
	put16(o, (unsigned)(n + 3));
	put8(o, 0);
	put16(o, (unsigned)n);
	put(o, name, n);
}

/* A ClientHello handshake message (header included) around the extensions EXTS. */
static void
hello(struct buf *o, const struct buf *exts, bool with_exts)
{
	uint8_t random[32] = { 1 };
	struct buf body = { .n = 0 };

	put16(&body, 0x0303);
	put(&body, random, sizeof(random));
	put8(&body, 32);
	put(&body, random, 32);		/* legacy_session_id */
	put16(&body, 4);
	put16(&body, 0x1301);
	put16(&body, 0xc02f);		/* cipher_suites */
	put8(&body, 1);
	put8(&body, 0);			/* compression: null */
	if (with_exts) {
		put16(&body, (unsigned)exts->n);
		put(&body, exts->b, exts->n);
	}
	put8(o, 1);
	put8(o, (unsigned)(body.n >> 16));
	put16(o, (unsigned)(body.n & 0xffff));
	put(o, body.b, body.n);
}

/* Records of at most FRAG bytes of handshake data each. */
static void
records(struct buf *o, const struct buf *msg, size_t frag)
{
	for (size_t off = 0; off < msg->n; off += frag) {
		size_t n = msg->n - off < frag ? msg->n - off : frag;

		put8(o, 22);
		put16(o, 0x0301);
		put16(o, (unsigned)n);
		put(o, msg->b + off, n);
	}
}

/* Feed in CHUNK-byte pieces; the verdict, and in *total the bytes taken. */
static int
feed(const struct buf *in, size_t chunk, struct ab_sni_parser *p, size_t *total)
{
	ab_sni_init(p);
	return netd_feed_chunks(netd_sni_feed, p, in->b, in->n, chunk, total);
}

/* The usual extensions around a server_name for NAME (none when NULL). */
static void
client_exts(struct buf *e, const char *name)
{
	static const uint8_t groups[] = { 0, 4, 0, 0x1d, 0, 0x17 };
	static const uint8_t versions[] = { 4, 3, 4, 3, 3 };

	e->n = 0;
	ext(e, 10, groups, sizeof(groups));
	if (name != NULL)
		sni_ext(e, name);
	ext(e, 43, versions, sizeof(versions));
}

/* Build the hello for EXTS into OUT as records of FRAG bytes. */
static void
build(struct buf *out, const struct buf *exts, size_t frag)
{
	struct buf msg = { .n = 0 };

	hello(&msg, exts, true);
	out->n = 0;
	records(out, &msg, frag);
}

static void
test_good(struct ab_sni_parser *p)
{
	struct buf *e = calloc(1, sizeof(*e)), *in = calloc(1, sizeof(*in));
	static const size_t chunks[] = { 1, 3, 100, 40000 };
	static const uint8_t ech[] = { 0, 1, 2, 3 };
	size_t used;
	int r;

	client_exts(e, "Api.Example.COM.");
	build(in, e, 16384);
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		r = feed(in, chunks[i], p, &used);
		ok(r == 0 && p->res.has_name && !p->res.ech &&
		   strcmp(p->res.name.text, "api.example.com") == 0 && used == in->n,
		   "SNI read, normalised, fed %zu bytes at a time (%d)", chunks[i], r);
	}
	/* A partial hello is held by the parser: -EAGAIN, and every byte was taken. */
	ab_sni_init(p);
	r = ab_sni_feed(p, in->b, 100, &used);
	ok(r == -EAGAIN && used == 100, "a partial hello: -EAGAIN, all 100 bytes taken (%zu)",
	   used);
	/* The hello split over records of 50 bytes: joined. */
	build(in, e, 50);
	r = feed(in, 7, p, &used);
	ok(r == 0 && p->res.has_name && strcmp(p->res.name.text, "api.example.com") == 0,
	   "a ClientHello over several records is joined (%d)", r);
	/* Bytes after the hello's last record are the caller's. */
	build(in, e, 16384);
	put(in, "\x17\x03\x03", 3);
	ok(feed(in, 40000, p, &used) == 0 && used == in->n - 3,
	   "bytes after the ClientHello are left to the caller");

	client_exts(e, NULL);
	build(in, e, 16384);
	ok(feed(in, 1, p, &used) == 0 && !p->res.has_name && !p->res.ech,
	   "no server_name: no name, no ECH");
	{
		struct buf msg = { .n = 0 };

		hello(&msg, e, false);
		in->n = 0;
		records(in, &msg, 16384);
		ok(feed(in, 1, p, &used) == 0 && !p->res.has_name,
		   "no extensions block at all (TLS 1.2 allows it): no name");
	}
	client_exts(e, "public.example.com");
	ext(e, AB_TLS_EXT_ECH, ech, sizeof(ech));
	build(in, e, 16384);
	ok(feed(in, 1, p, &used) == 0 && p->res.ech && p->res.has_name &&
	   strcmp(p->res.name.text, "public.example.com") == 0,
	   "ECH (0xfe0d) is detected; the clear name is only the outer one");
	client_exts(e, NULL);
	ext(e, AB_TLS_EXT_ESNI, ech, sizeof(ech));
	build(in, e, 16384);
	ok(feed(in, 1, p, &used) == 0 && p->res.ech && !p->res.has_name,
	   "the older encrypted SNI (0xffce) counts as ECH");
	free(e);
	free(in);
}

/* A hostile variant of a good hello: MUTATE it, expect WANT. */
static void
expect(struct ab_sni_parser *p, const struct buf *in, int want, const char *what)
{
	size_t used;
	int whole = feed(in, sizeof(in->b), p, &used);
	int bytes = feed(in, 1, p, &used);

	ok(whole == want && bytes == want, "%s: %d (whole %d, byte by byte %d)", what, want,
	   whole, bytes);
}

static void
test_names(struct ab_sni_parser *p)
{
	static const char *const bad[] = {
		"1.2.3.4", "127.1", "2130706433", "[::1]", "a..b", "-a.example", "a_b.example",
		"evil.com\xc0\xae" "example.com", "*.example.com", "",
	};
	struct buf *e = calloc(1, sizeof(*e)), *in = calloc(1, sizeof(*in));

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		client_exts(e, bad[i]);
		build(in, e, 16384);
		expect(p, in, -EBADMSG, bad[i][0] ? bad[i] : "(empty name)");
	}
	{	/* "evil.com\0.allowed.com": a NUL inside the name. */
		static const char nul[] = "evil.com\0.allowed.com";
		size_t n = sizeof(nul) - 1;

		e->n = 0;
		put16(e, 0);
		put16(e, (unsigned)(n + 5));
		put16(e, (unsigned)(n + 3));
		put8(e, 0);
		put16(e, (unsigned)n);
		put(e, nul, n);
		build(in, e, 16384);
		expect(p, in, -EBADMSG, "NUL inside the name");
	}
	free(e);
	free(in);
}

static void
test_hostile(struct ab_sni_parser *p)
{
	struct buf *e = calloc(1, sizeof(*e)), *in = calloc(1, sizeof(*in));
	static const uint8_t two_names[] = { 0, 19, 0, 0, 5, 'a', '.', 'c', 'o', 'm',
					     0, 0, 8, 'e', 'v', 'i', 'l', '.', 'c', 'o', 'm' };
	static const uint8_t other_type[] = { 0, 8, 1, 0, 5, 'a', '.', 'c', 'o', 'm' };
	static const uint8_t ech[] = { 0 };

	in->n = 0;
	put(in, "GET / HTTP/1.1\r\n\r\n", 18);
	expect(p, in, -EPROTO, "plain HTTP in a tunnel");
	in->n = 0;
	put(in, "SSH-2.0-OpenSSH_9.2\r\n", 21);
	expect(p, in, -EPROTO, "SSH in a tunnel");
	in->n = 0;
	put(in, "\x80\x2e\x01\x00\x02", 5);
	expect(p, in, -EPROTO, "an SSLv2-format hello");

	client_exts(e, "a.com");
	sni_ext(e, "evil.com");
	build(in, e, 16384);
	expect(p, in, -EBADMSG, "two server_name extensions");
	client_exts(e, NULL);
	ext(e, 0, two_names, sizeof(two_names));
	build(in, e, 16384);
	expect(p, in, -EBADMSG, "two host_names in one server_name");
	client_exts(e, NULL);
	ext(e, 0, other_type, sizeof(other_type));
	build(in, e, 16384);
	expect(p, in, -EBADMSG, "a name type other than host_name");
	client_exts(e, "a.com");
	ext(e, AB_TLS_EXT_ECH, ech, 1);
	ext(e, AB_TLS_EXT_ECH, ech, 1);
	build(in, e, 16384);
	expect(p, in, -EBADMSG, "ECH twice");

	/* Lengths that lie. */
	client_exts(e, "a.com");
	build(in, e, 16384);
	in->b[5 + 4 + 2 + 32] = 33;	/* session id length 33 */
	expect(p, in, -EBADMSG, "legacy_session_id longer than 32");
	build(in, e, 16384);
	in->b[in->n - 1 - 6] ^= 0x40;	/* an extension length past the end */
	expect(p, in, -EBADMSG, "an extension length past the end");
	build(in, e, 16384);
	in->b[3] = 0x40;
	in->b[4] = 0x01;		/* record of 16385 bytes */
	expect(p, in, -EBADMSG, "a record longer than 2^14");
	build(in, e, 16384);
	in->b[5] = 2;			/* ServerHello */
	expect(p, in, -EBADMSG, "a handshake message that is not a ClientHello");
	build(in, e, 16384);
	in->b[10] = 0x02;		/* legacy_version 0x0302 is fine; 0x0202 is not */
	in->b[9] = 0x02;
	expect(p, in, -EBADMSG, "legacy_version 0x0202");
	{	/* A zero-length handshake record before the hello. */
		struct buf *z = calloc(1, sizeof(*z));

		put(z, "\x16\x03\x01\x00\x00", 5);
		put(z, in->b, in->n);
		expect(p, z, -EBADMSG, "a zero-length handshake record");
		/* An alert record in the middle of a split hello. */
		build(in, e, 40);
		z->n = 0;
		put(z, in->b, 45);
		put(z, "\x15\x03\x03\x00\x02\x01\x00", 7);
		put(z, in->b + 45, in->n - 45);
		expect(p, z, -EBADMSG, "an alert between two records of the hello");
		free(z);
	}
	/* Bytes after the hello inside its last record. */
	{
		struct buf msg = { .n = 0 };

		hello(&msg, e, true);
		put(&msg, "\x0b\x00\x00\x00", 4);
		in->n = 0;
		records(in, &msg, 16384);
		expect(p, in, -EBADMSG, "another handshake message after the hello in its record");
	}
	/* The same in a record larger than what is left of the buffer: the verdict must not
	 * depend on how the bytes arrive (whole, the old code said -EMSGSIZE). */
	{
		static uint8_t pad[9000];
		struct buf *msg = calloc(1, sizeof(*msg));

		client_exts(e, "a.com");
		ext(e, 21, pad, sizeof(pad));
		hello(msg, e, true);
		in->n = 0;
		put8(in, 22);
		put16(in, 0x0301);
		put16(in, 5000);
		put(in, msg->b, 5000);
		put8(in, 22);
		put16(in, 0x0301);
		put16(in, 16384);
		put(in, msg->b + 5000, msg->n - 5000);
		memset(in->b + in->n, 0, 16384 - (msg->n - 5000));
		in->n += 16384 - (msg->n - 5000);
		expect(p, in, -EBADMSG, "bytes after the hello in a record bigger than the buffer");
		free(msg);
	}
	/* Oversized: a hello body over AB_SNI_HELLO_MAX, over two records. */
	{
		static uint8_t pad[AB_SNI_HELLO_MAX];

		client_exts(e, "a.com");
		ext(e, 21, pad, sizeof(pad) - 200);	/* padding: just under */
		build(in, e, 10000);
		expect(p, in, 0, "a ClientHello just under the cap, over two records");
		client_exts(e, "a.com");
		ext(e, 21, pad, sizeof(pad));
		build(in, e, 16384);
		expect(p, in, -EMSGSIZE, "a ClientHello over the cap");
	}
	/* Truncated: never completes. */
	client_exts(e, "a.com");
	build(in, e, 16384);
	in->n -= 1;
	expect(p, in, -EAGAIN, "a hello missing its last byte waits");
	free(e);
	free(in);
}

/* A real ClientHello: OpenSSL 3 through Python's ssl module, for example.com (the
 * fuzzer's seed; its first byte is the fuzzer's chunk selector). Run from the top. */
static void
test_openssl(struct ab_sni_parser *p)
{
	const char *path = "tests/fuzz/seeds/fuzz_netd_sni/openssl-hello";
	struct buf *in = calloc(1, sizeof(*in));
	FILE *f = in != NULL ? fopen(path, "rbe") : NULL;
	size_t n = f != NULL ? fread(in->b, 1, sizeof(in->b), f) : 0, used;

	if (f != NULL)
		fclose(f);
	if (n < 2) {
		ok(0, "cannot read %s (run from the top of the tree)", path);
		free(in);
		return;
	}
	memmove(in->b, in->b + 1, n - 1);
	in->n = n - 1;
	ok(feed(in, 1, p, &used) == 0 && p->res.has_name && !p->res.ech &&
	   strcmp(p->res.name.text, "example.com") == 0 && used == in->n,
	   "OpenSSL 3's ClientHello: SNI example.com");
	free(in);
}

int
main(void)
{
	struct ab_sni_parser *p = malloc(sizeof(*p));

	if (p == NULL)
		return 1;
	test_good(p);
	test_names(p);
	test_hostile(p);
	test_openssl(p);
	free(p);
	return done_testing();
}
