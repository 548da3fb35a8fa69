/*
 * The policy digest: SHA-256 (libcrypto EVP) over exactly the bytes read, so the audit
 * record of a session names the policy text that confined it.
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
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include "internal.h"

struct ab_digest_ctx {
	EVP_MD_CTX *md;
};

int
ab_digest_begin(struct ab_digest_ctx **out)
{
	struct ab_digest_ctx *ctx;

	if ((ctx = calloc(1, sizeof(*ctx))) == NULL)
		return -ENOMEM;
	if ((ctx->md = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(ctx->md, EVP_sha256(), NULL) != 1) {
		ab_digest_abort(ctx);
		return -EIO;
	}
	*out = ctx;
	return 0;
}

int
ab_digest_file(struct ab_digest_ctx *ctx, const char *path, const char *buf, size_t len)
{
	unsigned char be[8];
	uint64_t n = len;
	int i;

	for (i = 7; i >= 0; i--, n >>= 8)
		be[i] = (unsigned char)(n & 0xff);
	if (EVP_DigestUpdate(ctx->md, path, strlen(path) + 1) != 1 ||
	    EVP_DigestUpdate(ctx->md, be, sizeof(be)) != 1 ||
	    EVP_DigestUpdate(ctx->md, buf, len) != 1)
		return -EIO;
	return 0;
}

int
ab_digest_end(struct ab_digest_ctx *ctx, unsigned char out[AB_DIGEST_LEN])
{
	unsigned int n = 0;
	int ok;

	ok = EVP_DigestFinal_ex(ctx->md, out, &n) == 1 && n == AB_DIGEST_LEN;
	ab_digest_abort(ctx);
	return ok ? 0 : -EIO;
}

void
ab_digest_abort(struct ab_digest_ctx *ctx)
{
	if (ctx == NULL)
		return;
	EVP_MD_CTX_free(ctx->md);
	free(ctx);
}
