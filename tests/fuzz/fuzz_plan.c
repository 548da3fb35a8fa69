/*
 * libFuzzer: bytes -> ab_plan_parse.  The plan format is canonical, so whatever parses
 * must serialise back to exactly the same bytes; anything else is a parser that accepts
 * two spellings of one plan (or loses data), and aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ab_plan *plan = NULL;
	char *buf = NULL;
	size_t len = 0;

	if (ab_plan_parse((const char *)data, size, &plan) != 0) {
		if (plan != NULL)
			abort();
		return 0;
	}
	if (ab_plan_serialize(plan, &buf, &len) != 0)
		abort();
	if (len != size || memcmp(buf, data, size) != 0)
		abort();
	free(buf);
	ab_plan_free(plan);
	return 0;
}
