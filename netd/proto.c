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

/* The value of line "KEY=...\n" at *p, advancing *p past it. */
static int
take(const char **p, const char *end, const char *key, const char **val, size_t *vlen)
{
	size_t k = strlen(key);
	const char *nl;

	if ((size_t)(end - *p) <= k || memcmp(*p, key, k) != 0 || (*p)[k] != '=')
		return -EBADMSG;
	*val = *p + k + 1;
	if ((nl = memchr(*val, '\n', (size_t)(end - *val))) == NULL)
		return -EBADMSG;
	*vlen = (size_t)(nl - *val);
	*p = nl + 1;
	return 0;
}

static int
take_u32(const char **p, const char *end, const char *key, uint32_t min, uint32_t max,
    uint32_t *out)
{
	const char *v;
	uint64_t x = 0;
	size_t n, i;

	if (take(p, end, key, &v, &n) != 0 || n == 0 || n > 10 || (n > 1 && v[0] == '0'))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -EBADMSG;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	if (x < min || x > max)
		return -EBADMSG;
	*out = (uint32_t)x;
	return 0;
}

/* 0..15 for a lower-case hex digit, -1 otherwise (upper case too: one spelling). */
static int
hexval(char c)
{
	static const char digits[] = "0123456789abcdef";
	const char *d = c != '\0' ? strchr(digits, c) : NULL;

	return d != NULL ? (int)(d - digits) : -1;
}

static int
take_digest(const char **p, const char *end, unsigned char out[32])
{
	const char *v;
	size_t n, i;

	if (take(p, end, "digest", &v, &n) != 0 || n != 64)
		return -EBADMSG;
	for (i = 0; i < 32; i++) {
		int hi = hexval(v[2 * i]), lo = hexval(v[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EBADMSG;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

int
ab_netd_proto_open_decode(const char *buf, size_t len, struct ab_netd_open *m,
    char *user, size_t usersize)
{
	static const char head[] = AB_NETD_PROTO_MAGIC "\nop=open\n";
	const char *p = buf, *end = buf + len, *u;
	uint32_t pid;
	size_t n;

	memset(m, 0, sizeof(*m));
	if (len > AB_NETD_MSG_MAX || len < sizeof(head) - 1 ||
	    memcmp(buf, head, sizeof(head) - 1) != 0)
		return -EBADMSG;
	p += sizeof(head) - 1;
	if (take_u32(&p, end, "ses", 0, UINT32_MAX - 1, &m->ses) != 0 ||
	    take_u32(&p, end, "uid", 0, UINT32_MAX - 1, &m->uid) != 0 ||
	    take(&p, end, "user", &u, &n) != 0 || n >= usersize || memchr(u, '\0', n) != NULL)
		return -EBADMSG;
	memcpy(user, u, n);
	user[n] = '\0';
	m->user = user;
	if (!user_ok(user) || take_digest(&p, end, m->digest) != 0 ||
	    take_u32(&p, end, "init_pid", 2, INT32_MAX, &pid) != 0 ||
	    take_u32(&p, end, "ncred", 0, AB_NETD_CRED_MAX, &m->ncred) != 0 || p != end)
		return -EBADMSG;
	m->init_pid = (int32_t)pid;
	return 0;
}
