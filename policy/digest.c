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

/* One framed value: its bytes and a NUL (no value holds a NUL), so "ab" "c" and "a" "bc"
 * differ. */
static void
put(struct sha256_ctx *sha, const char *v)
{
	if (v == NULL)
		v = "";
	sha256_update(sha, strlen(v) + 1, (const uint8_t *)v);
}

/*
 * The user's policy in force, not the files': every key of [defaults] and [user:NAME]
 * in the table's order as compiled (host sets expanded in place, each credential with
 * its keys), each framed as the key's name, then its values, then an empty value.  Where
 * a line is written (allow_host's FILE:LINE) is left out: a persistent box is kept while
 * this digest stays the same, so another user's enrolment, or a comment, does not end it
 * (pam_module/box.c).
 */
int
ab_policy_user_digest(const struct ab_policy *p, unsigned char out[AB_DIGEST_LEN])
{
	const struct ab_key_info *k;
	const struct ab_strv *sv;
	struct sha256_ctx sha;
	char *v;
	size_t i, j;
	int r;

	sha256_init(&sha);
	put(&sha, p->user);
	for (i = 0; (k = ab_policy_key(i)) != NULL; i++) {
		if ((k->sections & (AB_SECT_DEFAULTS | AB_SECT_USER)) == 0)
			continue;	/* a [hosts:NAME] or [credential:NAME] key: below */
		put(&sha, k->name);
		if ((sv = ab_policy_list(p, i)) != NULL) {
			for (j = 0; j < sv->n; j++)
				put(&sha, sv->v[j]);
		} else {
			if ((r = ab_policy_scalar(p, i, &v)) != 0)
				return r;
			put(&sha, v);
			free(v);
		}
		put(&sha, "");
	}
	for (i = 0; i < p->ncreds; i++) {
		const struct ab_cred *c = &p->creds[i];
		const char *f[] = { c->name, c->host, c->header, c->prefix, c->file, c->env,
		    c->base_url_env, c->base_path };

		put(&sha, "[credential]");
		for (j = 0; j < sizeof(f) / sizeof(f[0]); j++)
			put(&sha, f[j] != NULL ? f[j] : "\x01");	/* unset, unlike "" */
		put(&sha, "");
	}
	sha256_digest(&sha, AB_DIGEST_LEN, out);
	return 0;
}
