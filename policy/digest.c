/*
 * The policy digest: SHA-256 over exactly the bytes read, so the audit record of a
 * session names the policy text that confined it.
 *
 * Hashed, for each policy file in the order it was read (agentbox.conf first, then
 * policy.d/ *.conf sorted by strcmp):
 *     its path as seen from the policy root (e.g. "/etc/agentbox/policy.d/bob.conf"),
 *     one NUL byte,
 *     its length in bytes as 8 bytes big-endian,
 *     its bytes, unmodified.
 * The path and length make the framing unambiguous: moving a line from one file to the
 * next, or renaming a file, changes the digest.  The root prefix given for tests (--root)
 * is not hashed, so the same files give the same digest wherever they are.
 *
 * Nettle, not libcrypto: this runs in every login of an enrolled user, and OpenSSL 3's
 * first EVP digest in a process (provider and configuration loading) cost 3.3-3.8 ms on
 * the reference VM, two thirds of the whole PAM step.  Nettle's sha256 is plain code with
 * no global state (bench/README.md, session-start).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <nettle/sha2.h>

#include "internal.h"

_Static_assert(SHA256_DIGEST_SIZE == AB_DIGEST_LEN, "the digest is SHA-256");

struct ab_digest_ctx {
	struct sha256_ctx sha;
};

int
ab_digest_begin(struct ab_digest_ctx **out)
{
	struct ab_digest_ctx *ctx;

	if ((ctx = calloc(1, sizeof(*ctx))) == NULL)
		return -ENOMEM;
	sha256_init(&ctx->sha);
	*out = ctx;
	return 0;
}

int
ab_digest_file(struct ab_digest_ctx *ctx, const char *path, const char *buf, size_t len)
{
	uint8_t be[8];
	uint64_t n = len;
	int i;

	for (i = 7; i >= 0; i--, n >>= 8)
		be[i] = (uint8_t)(n & 0xff);
	sha256_update(&ctx->sha, strlen(path) + 1, (const uint8_t *)path);
	sha256_update(&ctx->sha, sizeof(be), be);
	sha256_update(&ctx->sha, len, (const uint8_t *)buf);
	return 0;
}

int
ab_digest_end(struct ab_digest_ctx *ctx, unsigned char out[AB_DIGEST_LEN])
{
	sha256_digest(&ctx->sha, AB_DIGEST_LEN, out);
	ab_digest_abort(ctx);
	return 0;
}

void
ab_digest_abort(struct ab_digest_ctx *ctx)
{
	free(ctx);
}
