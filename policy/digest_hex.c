/* Hex of a digest: in libabplan.a, so it must not pull in nettle. */
#include "policy.h"

void
ab_digest_hex(const unsigned char digest[AB_DIGEST_LEN], char *out)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < AB_DIGEST_LEN; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[2 * AB_DIGEST_LEN] = '\0';
}
