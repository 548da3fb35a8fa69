/*
 * netd/proto.c: the `open` message PAM sends agentbox-netd and the reply it accepts
 * (netd-spec.md section 3).  The exact bytes are the contract with the daemon's decoder,
 * so they are compared whole; every reply but a clean "ok" must refuse the login.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"
#include "tap.h"

static const char want_msg[] =
    "agentbox-netd 1\n"
    "op=open\n"
    "ses=4294967295\n"
    "uid=60150\n"
    "user=abt_np1\n"
    "digest=00017f80abcdeffe0000000000000000000000000000000000000000000000ff\n"
    "init_pid=4242\n"
    "ncred=2\n";

static struct ab_netd_open
sample(void)
{
	struct ab_netd_open m = {
		.ses = 4294967295u, .uid = 60150, .user = "abt_np1", .init_pid = 4242,
		.ncred = 2,
		.digest = { 0x00, 0x01, 0x7f, 0x80, 0xab, 0xcd, 0xef, 0xfe },
	};

	m.digest[31] = 0xff;
	return m;
}

static void
test_encode(void)
{
	struct ab_netd_open m = sample();
	char buf[AB_NETD_MSG_MAX + 1];
	size_t len = 0;

	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == 0 &&
	   len == strlen(want_msg) && memcmp(buf, want_msg, len) == 0,
	   "open message: exact bytes, every line ended by a newline (%zu bytes)", len);
	ok(ab_netd_proto_open_encode(&m, buf, strlen(want_msg), &len) == -EMSGSIZE,
	   "one byte short of room (the NUL): -EMSGSIZE");
	ok(ab_netd_proto_open_encode(&m, buf, strlen(want_msg) + 1, &len) == 0 &&
	   buf[len] == '\0', "exactly enough room: encoded, NUL-terminated");

	m.ncred = AB_NETD_CRED_MAX;
	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == 0 &&
	   strstr(buf, "\nncred=16\n") != NULL, "16 credentials: allowed");
	m.ncred = AB_NETD_CRED_MAX + 1;
	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == -EINVAL,
	   "17 credentials: -EINVAL (only 16 gateway ports)");
	m = sample();
	m.init_pid = 0;
	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == -EINVAL, "pid 0: -EINVAL");
	m.init_pid = -1;
	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == -EINVAL, "pid -1: -EINVAL");
	m = sample();
	m.ncred = 0;
	m.uid = 0;
	m.ses = 0;
	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == 0 &&
	   strstr(buf, "\nses=0\nuid=0\n") != NULL && strstr(buf, "\nncred=0\n") != NULL,
	   "zeros are written as 0");
}

static void
test_encode_user(void)
{
	static const char *const bad[] = {
		"", "a b", "a\nop=close", "a\tb", "a\rb", "\xc3\xa9t\xc3\xa9", "a\x7f",
	};
	struct ab_netd_open m = sample();
	char buf[AB_NETD_MSG_MAX + 1], big[258];
	size_t i, len;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m.user = bad[i];
		ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == -EINVAL,
		   "user #%zu (space, control, newline, UTF-8 or empty): -EINVAL", i);
	}
	m.user = NULL;
	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == -EINVAL, "NULL user: -EINVAL");
	memset(big, 'u', 256);
	big[256] = '\0';
	m.user = big;
	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == 0 && len < AB_NETD_MSG_MAX,
	   "256-byte user and the largest numbers fit in %d bytes (%zu)", AB_NETD_MSG_MAX, len);
	big[256] = 'u';
	big[257] = '\0';
	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == -EINVAL, "257-byte user: -EINVAL");
	m.user = "a=b.c-d_e$";
	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == 0 &&
	   strstr(buf, "\nuser=a=b.c-d_e$\n") != NULL, "printable punctuation is kept as is");
}

static void
test_reply(void)
{
	static const struct {
		const char *reply;
		size_t len;	/* 0: strlen */
		int want;
		const char *why;
	} rows[] = {
		{ "ok", 0, 0, "" },
		{ "error policy changed", 0, -EACCES, "policy changed" },
		{ "error x", 0, -EACCES, "x" },
		{ "", 0, -EBADMSG, "" },
		{ "ok\n", 0, -EBADMSG, "" },
		{ "OK", 0, -EBADMSG, "" },
		{ "okay", 0, -EBADMSG, "" },
		{ "o", 0, -EBADMSG, "" },
		{ "ok\0", 3, -EBADMSG, "" },
		{ "error", 0, -EBADMSG, "" },
		{ "error ", 0, -EBADMSG, "" },
		{ "errorx", 0, -EBADMSG, "" },
		{ "error two\nlines", 0, -EBADMSG, "" },
		{ "error tab\there", 0, -EBADMSG, "" },
		{ "error \x1b[2Jescape", 0, -EBADMSG, "" },
		{ "error caf\xc3\xa9", 0, -EBADMSG, "" },
		{ "error nul\0after", 15, -EBADMSG, "" },
		{ "yes", 0, -EBADMSG, "" },
	};
	char why[64], big[AB_NETD_REPLY_MAX + 2];
	size_t i, len;
	int r;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		len = rows[i].len ? rows[i].len : strlen(rows[i].reply);
		r = ab_netd_proto_reply_parse(rows[i].reply, len, why, sizeof(why));
		ok(r == rows[i].want && strcmp(why, rows[i].why) == 0,
		   "reply #%zu: %d (want %d), reason '%s'", i, r, rows[i].want, why);
	}
	memcpy(big, "error ", 6);
	memset(big + 6, 'r', sizeof(big) - 6);
	r = ab_netd_proto_reply_parse(big, AB_NETD_REPLY_MAX, why, sizeof(why));
	ok(r == -EACCES && strlen(why) == sizeof(why) - 1, "a long reason is cut to fit (%zu)",
	   strlen(why));
	r = ab_netd_proto_reply_parse(big, AB_NETD_REPLY_MAX + 1, why, sizeof(why));
	ok(r == -EBADMSG, "a reply over %d bytes: -EBADMSG", AB_NETD_REPLY_MAX);
	ok(ab_netd_proto_reply_parse("error x", 7, NULL, 0) == -EACCES, "no room for the reason: fine");
}

int
main(void)
{
	ok(AB_NETD_NFDS(0) == 4 && AB_NETD_FD_LIFELINE == 0 && AB_NETD_FD_PROXY == 1 &&
	   AB_NETD_FD_DNS_UDP == 2 && AB_NETD_FD_DNS_TCP == 3 && AB_NETD_FD_GATEWAY == 4,
	   "fd order: pidfd, TCP 3128, UDP 53, TCP 53, gateways");
	ok(strcmp(AB_NETD_CONTROL, "/run/agentbox-netd/control") == 0, "control socket path");
	test_encode();
	test_encode_user();
	test_reply();
	return done_testing();
}
