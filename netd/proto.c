/*
 * The PAM -> agentbox-netd hand-off message and its reply (proto.h; netd-spec.md
 * section 3).  Strict on both sides: the daemon trusts nothing it did not check, and the
 * PAM module refuses a login on any reply but a well-formed "ok".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"

#define USER_MAX	256

static int
user_ok(const char *u)
{
	size_t n;

	if (u == NULL)
		return 0;
	for (n = 0; u[n] != '\0'; n++)
		if (n >= USER_MAX || u[n] < '!' || u[n] > '~')
			return 0;
	return n > 0;
}

int
ab_netd_proto_open_encode(const struct ab_netd_open *m, char *buf, size_t size,
    size_t *len)
{
	static const char hex[] = "0123456789abcdef";
	char digest[2 * sizeof(m->digest) + 1];
	size_t i;
	int n;

	if (!user_ok(m->user) || m->init_pid <= 0 || m->ncred > AB_NETD_CRED_MAX)
		return -EINVAL;
	for (i = 0; i < sizeof(m->digest); i++) {
		digest[2 * i] = hex[m->digest[i] >> 4];
		digest[2 * i + 1] = hex[m->digest[i] & 0xf];
	}
	digest[2 * i] = '\0';
	n = snprintf(buf, size, AB_NETD_PROTO_MAGIC "\nop=open\nses=%u\nuid=%u\nuser=%s\n"
	    "digest=%s\ninit_pid=%d\nncred=%u\n", (unsigned)m->ses, (unsigned)m->uid, m->user,
	    digest, (int)m->init_pid, (unsigned)m->ncred);
	if (n < 0 || (size_t)n >= size || n > AB_NETD_MSG_MAX)
		return -EMSGSIZE;
	*len = (size_t)n;
	return 0;
}

int
ab_netd_proto_reply_parse(const char *buf, size_t len, char *why, size_t whysize)
{
	static const char err[] = "error ";
	size_t i, n;

	if (whysize > 0)
		why[0] = '\0';
	if (len == 2 && memcmp(buf, "ok", 2) == 0)
		return 0;
	if (len > AB_NETD_REPLY_MAX || len <= sizeof(err) - 1 ||
	    memcmp(buf, err, sizeof(err) - 1) != 0)
		return -EBADMSG;
	for (i = sizeof(err) - 1; i < len; i++)
		if (buf[i] < ' ' || buf[i] > '~')
			return -EBADMSG;	/* one printable line, nothing else */
	if (whysize > 0) {
		n = len - (sizeof(err) - 1);
		if (n >= whysize)
			n = whysize - 1;
		memcpy(why, buf + sizeof(err) - 1, n);
		why[n] = '\0';
	}
	return -EACCES;
}
