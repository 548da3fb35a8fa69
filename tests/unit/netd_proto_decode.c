/*
 * netd/proto.c, the daemon's side: the open message round-trips through the PAM side's
 * encoder and the daemon's decoder, and the decoder refuses every message the encoder
 * would not write (hostile or broken senders).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"
#include "tap.h"

#define D64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define GOOD "agentbox-netd 1\nop=open\nses=7\nuid=1001\nuser=alice\ndigest=" D64 \
	"\ninit_pid=4242\nncred=2\n"

static const struct {
	const char *name, *msg;
} bad[] = {
	{ "empty", "" },
	{ "header only", "agentbox-netd 1\nop=open\n" },
	{ "version 2", "agentbox-netd 2\nop=open\nses=7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "op=close", "agentbox-netd 1\nop=close\nses=7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "keys swapped", "agentbox-netd 1\nop=open\nuid=1\nses=7\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "key repeated", "agentbox-netd 1\nop=open\nses=7\nses=7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "unknown key", GOOD "x=1\n" },
	{ "no final newline", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0" },
	{ "CRLF", "agentbox-netd 1\r\nop=open\nses=7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "CR in a value", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a\r\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "leading zero", "agentbox-netd 1\nop=open\nses=07\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "sign", "agentbox-netd 1\nop=open\nses=+7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "empty number", "agentbox-netd 1\nop=open\nses=\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "ses unset (-1)", "agentbox-netd 1\nop=open\nses=4294967295\nuid=1\nuser=a\ndigest="
	  D64 "\ninit_pid=9\nncred=0\n" },
	{ "ses over 32 bits", "agentbox-netd 1\nop=open\nses=42949672950\nuid=1\nuser=a\ndigest="
	  D64 "\ninit_pid=9\nncred=0\n" },
	{ "uid -1", "agentbox-netd 1\nop=open\nses=7\nuid=4294967295\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "init_pid 1", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=1\nncred=0\n" },
	{ "init_pid 0", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=0\nncred=0\n" },
	{ "init_pid over int", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=2147483648\nncred=0\n" },
	{ "ncred 17", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=17\n" },
	{ "user empty", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "user with space", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a b\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "user with a control", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a\x01\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "user with UTF-8", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=\xc3\xa9\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "digest upper case", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a\ndigest="
	  "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"
	  "\ninit_pid=9\nncred=0\n" },
	{ "digest short", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a\ndigest=abc"
	  "\ninit_pid=9\nncred=0\n" },
	{ "digest long", "agentbox-netd 1\nop=open\nses=7\nuid=1\nuser=a\ndigest=" D64 "0"
	  "\ninit_pid=9\nncred=0\n" },
	{ "space before =", "agentbox-netd 1\nop=open\nses =7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
	{ "key prefix", "agentbox-netd 1\nop=open\nsess=7\nuid=1\nuser=a\ndigest=" D64
	  "\ninit_pid=9\nncred=0\n" },
};

static void
test_roundtrip(void)
{
	struct ab_netd_open m = { .ses = 7, .uid = 1001, .user = "alice", .init_pid = 4242,
				  .ncred = 2 }, got;
	char buf[AB_NETD_MSG_MAX], user[64];
	size_t len = 0, i;

	for (i = 0; i < 32; i++)
		m.digest[i] = (unsigned char)(i * 8 + i / 2);
	memcpy(m.digest, "\x01\x23\x45\x67\x89\xab\xcd\xef", 8);
	ok(ab_netd_proto_open_encode(&m, buf, sizeof(buf), &len) == 0, "encode");
	ok(ab_netd_proto_open_decode(buf, len, &got, user, sizeof(user)) == 0,
	   "decode what the encoder wrote");
	ok(got.ses == 7 && got.uid == 1001 && strcmp(got.user, "alice") == 0 &&
	   memcmp(got.digest, m.digest, 32) == 0 && got.init_pid == 4242 && got.ncred == 2,
	   "every field survives");
	ok(ab_netd_proto_open_decode(GOOD, strlen(GOOD), &got, user, 6) == 0,
	   "a user buffer that just fits");
	ok(ab_netd_proto_open_decode(GOOD, strlen(GOOD), &got, user, 5) == -EBADMSG,
	   "a user longer than the buffer is refused, not cut");
}

static void
test_hostile(void)
{
	struct ab_netd_open got;
	char big[AB_NETD_MSG_MAX + 2], nul[] = GOOD, user[300];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(ab_netd_proto_open_decode(bad[i].msg, strlen(bad[i].msg), &got, user, sizeof(user)) == -EBADMSG,
		   "refused: %s", bad[i].name);
	nul[strlen("agentbox-netd 1\nop=open\nses=7\nuid=1001\nuser=al")] = '\0';
	ok(ab_netd_proto_open_decode(nul, sizeof(nul) - 1, &got, user, sizeof(user)) == -EBADMSG, "refused: NUL in user");
	memset(big, 'a', sizeof(big));
	memcpy(big, GOOD, strlen(GOOD));
	ok(ab_netd_proto_open_decode(big, sizeof(big), &got, user, sizeof(user)) == -EBADMSG, "refused: over 1024 bytes");
	for (i = 0; i < strlen(GOOD); i++)
		if (ab_netd_proto_open_decode(GOOD, i, &got, user, sizeof(user)) != -EBADMSG)
			break;
	ok(i == strlen(GOOD), "every truncation of a good message is refused");
}

int
main(void)
{
	test_roundtrip();
	test_hostile();
	return done_testing();
}
