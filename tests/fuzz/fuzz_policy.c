/*
 * libFuzzer: bytes -> policy parse (inih + our line checks) -> validation -> compile.
 * The input is one policy file; the fuzzer looks for crashes, leaks, UB, and checks
 * that an invalid set always says why, and that a valid one compiles for its first
 * enrolled user into a policy that survives the session plan round trip.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Whatever the policy compiler accepts, the PAM module must be able to hand to the
 * shell: serialise it as a session plan and parse it back, or abort.
 */
static void
plan_round_trip(struct ab_policy *p)
{
	struct ab_plan plan = { .policy = p, .uid = 1000, .gid = 1000, .home = "/home/a",
	    .service = "su", .tty = "", .rhost = "" };
	struct ab_plan *back = NULL;
	char *buf = NULL;
	size_t len = 0;

	if (ab_plan_serialize(&plan, &buf, &len) != 0 || ab_plan_parse(buf, len, &back) != 0)
		abort();
	if (back->policy->read.n != p->read.n || back->policy->mask.n != p->mask.n ||
	    back->policy->nports != p->nports || strcmp(back->policy->shell, p->shell) != 0 ||
	    back->policy->allow_host.n != p->allow_host.n ||
	    back->policy->deny_host_src.n != p->deny_host_src.n ||
	    back->policy->ncreds != p->ncreds)
		abort();
	ab_plan_free(back);
	free(buf);
}

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
				if (p != NULL)
					plan_round_trip(p);
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
