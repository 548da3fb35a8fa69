/*
 * netd/proto.c: encoder and strict decoder of the session-open message (proto.h).
 * Strict on purpose: the sender is root code of ours, so anything unexpected is a bug or
 * an attack, and a daemon that guessed would attribute traffic to the wrong session.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "abutil.h"
#include "proto.h"

#define HEADER "agentbox-netd 1\nop=open\n"

static bool
user_ok(const char *user)
{
	return strlen(user) <= AB_NETD_USER_MAX && ab_user_name_valid(user);
}

static bool
digest_ok(const char *d)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((d[i] >= '0' && d[i] <= '9') || (d[i] >= 'a' && d[i] <= 'f')))
			return false;
	return d[64] == '\0';
}

static bool
fields_ok(const struct ab_netd_open *m)
{
	return m->ses != UINT32_MAX && m->uid != UINT32_MAX && m->init_pid >= 2 &&
	    m->ncred <= AB_NETD_CRED_MAX && user_ok(m->user) && digest_ok(m->digest);
}

int
ab_netd_proto_encode(const struct ab_netd_open *m, char *buf, size_t cap, size_t *len)
{
	int n;

	if (!fields_ok(m))
		return -EINVAL;
	n = snprintf(buf, cap, HEADER "ses=%u\nuid=%u\nuser=%s\ndigest=%s\ninit_pid=%d\n"
	    "ncred=%u\n", m->ses, m->uid, m->user, m->digest, (int)m->init_pid, m->ncred);
	if (n < 0 || (size_t)n >= cap || n > AB_NETD_MSG_MAX)
		return -ENOBUFS;
	*len = (size_t)n;
	return 0;
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
	nl = memchr(*val, '\n', (size_t)(end - *val));
	if (nl == NULL)
		return -EBADMSG;
	*vlen = (size_t)(nl - *val);
	*p = nl + 1;
	return 0;
}

static int
take_u32(const char **p, const char *end, const char *key, uint32_t max, uint32_t *out)
{
	const char *v;
	size_t n, i;
	uint64_t x = 0;
	int r;

	if ((r = take(p, end, key, &v, &n)) != 0)
		return r;
	if (n == 0 || n > 10 || (n > 1 && v[0] == '0'))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -EBADMSG;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	if (x > max)
		return -EBADMSG;
	*out = (uint32_t)x;
	return 0;
}

static int
take_str(const char **p, const char *end, const char *key, char *out, size_t cap)
{
	const char *v;
	size_t n;
	int r;

	if ((r = take(p, end, key, &v, &n)) != 0)
		return r;
	if (n >= cap || memchr(v, '\0', n) != NULL)
		return -EBADMSG;
	memcpy(out, v, n);
	out[n] = '\0';
	return 0;
}

int
ab_netd_proto_decode(const char *buf, size_t len, struct ab_netd_open *m)
{
	const char *p = buf, *end = buf + len;
	uint32_t pid;

	memset(m, 0, sizeof(*m));
	if (len > AB_NETD_MSG_MAX || len < sizeof(HEADER) - 1 ||
	    memcmp(buf, HEADER, sizeof(HEADER) - 1) != 0)
		return -EBADMSG;
	p += sizeof(HEADER) - 1;
	if (take_u32(&p, end, "ses", UINT32_MAX - 1, &m->ses) != 0 ||
	    take_u32(&p, end, "uid", UINT32_MAX - 1, &m->uid) != 0 ||
	    take_str(&p, end, "user", m->user, sizeof(m->user)) != 0 ||
	    take_str(&p, end, "digest", m->digest, sizeof(m->digest)) != 0 ||
	    take_u32(&p, end, "init_pid", INT32_MAX, &pid) != 0 ||
	    take_u32(&p, end, "ncred", AB_NETD_CRED_MAX, &m->ncred) != 0 || p != end)
		return -EBADMSG;
	m->init_pid = (int32_t)pid;
	return fields_ok(m) ? 0 : -EBADMSG;
}
