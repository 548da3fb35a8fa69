/*
 * libFuzzer: bytes on the control socket -> ab_netd_proto_open_decode.  Whatever it accepts
 * must be exactly what the encoder writes for the decoded fields (one spelling per
 * message: nothing the daemon takes can mean two things); anything else aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ab_netd_open m;
	char out[AB_NETD_MSG_MAX + 1], user[AB_NETD_MSG_MAX];
	size_t len = 0;

	if (ab_netd_proto_open_decode((const char *)data, size, &m, user, sizeof(user)) != 0)
		return 0;
	if (ab_netd_proto_open_encode(&m, out, sizeof(out), &len) != 0 || len != size ||
	    memcmp(out, data, size) != 0)
		abort();
	return 0;
}
