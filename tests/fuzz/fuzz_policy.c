/*
 * libFuzzer: bytes -> policy parse (inih + our line checks) -> validation -> compile.
 * The input is one policy file; the fuzzer looks for crashes, leaks, UB, and checks
 * that a valid set compiles for each enrolled user and that an invalid one always says
 * why.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char digest[AB_DIGEST_LEN];
	struct ab_diag diag = { 0 };
	struct ab_strv users = { 0 };
	struct ab_pset *ps;
	struct ab_policy *p = NULL;
	int r;

	if (ab_pset_new(&diag, &ps) != 0)
		return 0;
	if (ab_pset_parse(ps, "fuzz.conf", (const char *)data, size) == 0) {
		r = ab_pset_compile(ps, digest, NULL, NULL, &users);
		if (r == -EINVAL && diag.n == 0)
			abort();	/* refused without saying why */
		if (r == 0 && users.n > 0) {
			/* Compile the first enrolled user in a fresh set, as load would. */
			struct ab_pset *ps2;
			struct ab_diag d2 = { 0 };

			if (ab_pset_new(&d2, &ps2) == 0) {
				if (ab_pset_parse(ps2, "fuzz.conf", (const char *)data, size) == 0 &&
				    ab_pset_compile(ps2, digest, users.v[0], &p, NULL) == 0 &&
				    (p == NULL || p->project.n == 0 || p->shell == NULL))
					abort();	/* valid, enrolled, but no usable policy */
				ab_policy_free(p);
				ab_pset_free(ps2);
			}
			ab_diag_free(&d2);
		}
	}
	ab_strv_free(&users);
	ab_pset_free(ps);
	ab_diag_free(&diag);
	return 0;
}
