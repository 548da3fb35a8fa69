/*
 * lib/ (libabutil): hostile bytes through the UTF-8 decoder, the terminal-safe writer
 * and the JSON writer; string vectors; the user-name rule; write_all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "abutil.h"
#include "tap.h"

/* What ab_text_put_safe writes for the N bytes at S. */
static char *
safe(const char *s, size_t n, size_t width, unsigned flags, size_t *cols)
{
	char *out = NULL;
	size_t len, c;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		abort();
	c = ab_text_put_safe(f, s, n, width, flags);
	if (cols != NULL)
		*cols = c;
	fclose(f);
	return out;
}

static char *
json(const char *s, size_t n)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		abort();
	ab_text_put_json(f, s, n);
	fclose(f);
	return out;
}

/* One hostile input, by its exact bytes, and what each writer must make of it. */
static const struct row {
	const char	*in;
	size_t		 n;
	const char	*safe, *json, *what;
} hostile[] = {
#define ROW(in, safe, json, what) { in, sizeof(in) - 1, safe, json, what }
	ROW("plain/path", "plain/path", "\"plain/path\"", "plain text"),
	ROW("caf\xc3\xa9", "caf\xc3\xa9", "\"caf\xc3\xa9\"", "printable UTF-8 kept"),
	ROW("", "", "\"\"", "empty"),
	ROW("a\x1b[31mb", "a\\x1b[31mb", "\"a\\u001b[31mb\"", "ESC (C0)"),
	ROW("a\nb\rc\td", "a\\x0ab\\x0dc\\x09d", "\"a\\u000ab\\u000dc\\u0009d\"",
	    "newline, CR, tab"),
	ROW("\x01\x1f\x7f", "\\x01\\x1f\\x7f", "\"\\u0001\\u001f\\u007f\"", "C0 ends, DEL"),
	ROW("a\0b", "a\\x00b", "\"a\\u0000b\"", "NUL inside the length"),
	ROW("a\"b\\c", "a\"b\\c", "\"a\\\"b\\\\c\"", "quote, backslash"),
	ROW("\xc2\x9b" "31m", "\\u{009b}31m", "\"\xc2\x9b" "31m\"", "C1 CSI U+009B"),
	ROW("\xc2\x85", "\\u{0085}", "\"\xc2\x85\"", "C1 NEL U+0085"),
	ROW("\xc2\x80\xc2\x9f", "\\u{0080}\\u{009f}", "\"\xc2\x80\xc2\x9f\"",
	    "C1 ends U+0080, U+009F"),
	ROW("\xc2\xa0", "\xc2\xa0", "\"\xc2\xa0\"", "U+00A0, past C1"),
	ROW("x\xe2\x80\xaegnp.exe", "x\\u{202e}gnp.exe", "\"x\xe2\x80\xaegnp.exe\"",
	    "RLO U+202E"),
	ROW("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad",
	    "\\u{202a}\\u{202b}\\u{202c}\\u{202d}",
	    "\"\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\"", "LRE RLE PDF LRO"),
	ROW("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
	    "\\u{2066}\\u{2067}\\u{2068}\\u{2069}",
	    "\"\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9\"", "isolates U+2066..U+2069"),
	ROW("\xe2\x80\x8e\xe2\x80\x8f", "\\u{200e}\\u{200f}", "\"\xe2\x80\x8e\xe2\x80\x8f\"",
	    "LRM, RLM"),
	ROW("\xe2\x80\x8d", "\xe2\x80\x8d", "\"\xe2\x80\x8d\"", "ZWJ, not bidi"),
	ROW("\xe2\x80\xa8\xe2\x80\xa9", "\xe2\x80\xa8\xe2\x80\xa9", "\"\\u2028\\u2029\"",
	    "U+2028, U+2029"),
	ROW("a\xff" "b", "a\\xffb", "\"a\\ufffdb\"", "invalid byte"),
	ROW("\xc0\xaf", "\\xc0\\xaf", "\"\\ufffd\\ufffd\"", "overlong '/'"),
	ROW("\xed\xa0\x80", "\\xed\\xa0\\x80", "\"\\ufffd\\ufffd\\ufffd\"", "surrogate"),
	ROW("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
	    "beyond U+10FFFF"),
	ROW("ab\xe2\x82", "ab\\xe2\\x82", "\"ab\\ufffd\\ufffd\"", "truncated at the end"),
#undef ROW
};

static void
test_decode(void)
{
	static const struct { const char *in; size_t n, len; uint32_t cp; const char *what; }
	rows[] = {
		{ "A", 1, 1, 'A', "ASCII" },
		{ "", 1, 1, 0, "NUL is U+0000" },
		{ "\xc3\xa9", 2, 2, 0xe9, "2 bytes" },
		{ "\xe2\x82\xac", 3, 3, 0x20ac, "3 bytes" },
		{ "\xf0\x9f\x98\x80", 4, 4, 0x1f600, "4 bytes" },
		{ "\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff, "U+10FFFF, the last" },
		{ "\xc0\xaf", 2, 0, 0, "overlong '/' in 2 bytes" },
		{ "\xc1\xbf", 2, 0, 0, "overlong DEL" },
		{ "\xc0\x80", 2, 0, 0, "overlong NUL" },
		{ "\xe0\x80\xaf", 3, 0, 0, "overlong '/' in 3 bytes" },
		{ "\xf0\x80\x80\xaf", 4, 0, 0, "overlong '/' in 4 bytes" },
		{ "\xed\xa0\x80", 3, 0, 0, "high surrogate U+D800" },
		{ "\xed\xbf\xbf", 3, 0, 0, "low surrogate U+DFFF" },
		{ "\xf4\x90\x80\x80", 4, 0, 0, "beyond U+10FFFF" },
		{ "\x80", 1, 0, 0, "stray continuation byte" },
		{ "\xe2\x82", 2, 0, 0, "truncated sequence" },
		{ "\xe2\x28\xa1", 3, 0, 0, "bad continuation" },
		{ "\xf8\x88\x80\x80\x80", 5, 0, 0, "5-byte form" },
		{ "\xff", 1, 0, 0, "0xff" },
	};
	size_t i, len;
	uint32_t cp;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cp = 0xdeadbeef;
		len = ab_utf8_decode(rows[i].in, rows[i].n, &cp);
		ok(len == rows[i].len && (len == 0 ? cp == 0xdeadbeef : cp == rows[i].cp),
		    "decode: %s (len %zu cp %#x)", rows[i].what, len, (unsigned)cp);
	}
	ok(ab_utf8_decode("A", 0, &cp) == 0, "decode: nothing to read is no character");
	ok(ab_utf8_valid("caf\xc3\xa9", 5), "valid: café");
	ok(!ab_utf8_valid("caf\xc3", 4), "valid: a cut sequence at the end is not");
	ok(ab_utf8_valid("a\0b", 3), "valid: NUL inside is valid UTF-8");
}

static void
test_safe(void)
{
	size_t cols, i;
	char *o;

	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		o = safe(hostile[i].in, hostile[i].n, 0, 0, NULL);
		ok(strcmp(o, hostile[i].safe) == 0, "safe: %s (got %s)", hostile[i].what, o);
		free(o);
	}
	o = safe("a\\x1b", 5, 0, AB_TEXT_ESC_BACKSLASH, NULL);
	ok(strcmp(o, "a\\\\x1b") == 0, "safe: backslash doubled with the flag (%s)", o);
	free(o);
	o = safe("abcdefgh", 8, 5, 0, &cols);
	ok(strcmp(o, "abcd…") == 0 && cols == 5, "safe: cut to 5 columns, marked (%s)", o);
	free(o);
	o = safe("ab\x1b" "cdef", 7, 6, 0, &cols);
	ok(strcmp(o, "ab…") == 0 && cols == 3, "safe: an escape is never cut in half (%s)", o);
	free(o);
	o = safe("abc", 3, 3, 0, &cols);
	ok(strcmp(o, "abc") == 0 && cols == 3, "safe: text that fits is not cut (%s)", o);
	free(o);
}

/* Every row as JSON, which must also be valid UTF-8 from end to end. */
static void
test_json(void)
{
	size_t i;
	char *o;

	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		o = json(hostile[i].in, hostile[i].n);
		ok(strcmp(o, hostile[i].json) == 0 && ab_utf8_valid(o, strlen(o)),
		    "json: %s (got %s)", hostile[i].what, o);
		free(o);
	}
}

static void
test_strv(void)
{
	struct ab_strv sv = { 0 };

	ok(ab_strv_push(&sv, "b") == 0 && ab_strv_push(&sv, "a") == 0 &&
	    ab_strv_push_n(&sv, "bxx", 1) == 0 && ab_strv_push(&sv, "c") == 0,
	    "strv: push");
	ok(sv.n == 4 && sv.v[4] == NULL, "strv: NULL-terminated");
	ok(ab_strv_has(&sv, "a") && !ab_strv_has(&sv, "bx"), "strv: has");
	ok(ab_strv_uniq(&sv) == 0 && sv.n == 3 && strcmp(sv.v[0], "b") == 0 &&
	    strcmp(sv.v[1], "a") == 0 && strcmp(sv.v[2], "c") == 0 && sv.v[3] == NULL,
	    "strv: uniq keeps the first of each, in order");
	{
		struct ab_strv to = { 0 };

		ok(ab_strv_push(&to, "x") == 0 && ab_strv_append(&to, &sv) == 0 && to.n == 4 &&
		    strcmp(to.v[0], "x") == 0 && strcmp(to.v[1], sv.v[0]) == 0 &&
		    strcmp(to.v[3], sv.v[2]) == 0 && to.v[4] == NULL && to.v[1] != sv.v[0],
		    "strv: append copies every string after what is there, in order");
		ab_strv_free(&to);
	}
	ab_strv_free(&sv);
	ok(sv.n == 0 && sv.v == NULL, "strv: free leaves it empty");
	ab_strv_free(NULL);
}

static void
test_names(void)
{
	static const struct { const char *name; int valid; } rows[] = {
		{ "abt_adm1", 1 }, { "_svc", 1 }, { "Agent-1.x", 1 },
		{ "abcdefghijklmnopqrstuvwxyz012345", 1 },
		{ "", 0 }, { ".hidden", 0 }, { "..", 0 }, { "-rf", 0 }, { "1abc", 0 },
		{ "a b", 0 }, { "a/b", 0 }, { "a\nb", 0 }, { "a:b", 0 }, { "caf\xc3\xa9", 0 },
		{ "abcdefghijklmnopqrstuvwxyz0123456", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ok(ab_user_name_valid(rows[i].name) == rows[i].valid, "name: \"%.*s\" %s",
		    (int)strcspn(rows[i].name, "\n"), rows[i].name,
		    rows[i].valid ? "valid" : "refused");	/* one TAP line each */
}

static void
test_io(void)
{
	static char big[256 * 1024];
	char back[16];
	int p[2];

	ok(pipe2(p, O_CLOEXEC) == 0, "io: pipe");
	ok(ab_io_write_all(p[1], "hello", 5) == 0 && read(p[0], back, sizeof(back)) == 5 &&
	    memcmp(back, "hello", 5) == 0, "io: write_all writes it all");
	close(p[0]);
	/* The reader is gone: EPIPE comes back as -EPIPE (SIGPIPE ignored below). */
	ok(ab_io_write_all(p[1], big, sizeof(big)) == -EPIPE, "io: a failed write is -errno");
	close(p[1]);
	ok(ab_io_write_all(-1, "x", 1) == -EBADF, "io: bad fd is -EBADF");
	ok(ab_read_small("/proc/self/stat", back, sizeof(back)) == (ssize_t)sizeof(back) - 1 &&
	    back[sizeof(back) - 1] == '\0', "io: read_small fills the buffer, NUL-terminated");
	ok(ab_read_small("/dev/null", back, sizeof(back)) == 0 && back[0] == '\0',
	    "io: read_small of an empty file: 0");
	ok(ab_read_small("/nonexistent/x", back, sizeof(back)) == -ENOENT,
	    "io: read_small of no file: -ENOENT");
	ok(ab_read_small("/dev/null", back, 1) == -EINVAL, "io: read_small with no room: -EINVAL");
}

/* ab_pidfd_pid: a live process's pid, a reaped one's refusal, a file that is no pidfd. */
static void
test_pidfd(void)
{
	pid_t pid = -1, child;
	int fd, nul;

	fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	ok(fd >= 0 && ab_pidfd_pid(fd, &pid) == 0 && pid == getpid(), "pidfd: our own pid back");
	if (fd >= 0)
		close(fd);
	if ((child = fork()) == 0)
		_exit(0);
	fd = (int)syscall(SYS_pidfd_open, child, 0);
	ok(fd >= 0 && waitpid(child, NULL, 0) == child && ab_pidfd_pid(fd, &pid) == -EBADF,
	    "pidfd: a process gone and reaped: -EBADF, not its old pid");
	if (fd >= 0)
		close(fd);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ok(nul >= 0 && ab_pidfd_pid(nul, &pid) == -EBADF, "pidfd: /dev/null is no pidfd");
	if (nul >= 0)
		close(nul);
	ok(ab_pidfd_pid(-1, &pid) < 0, "pidfd: no fd at all refused");
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_decode();
	test_safe();
	test_json();
	test_strv();
	test_names();
	test_io();
	test_pidfd();
	return done_testing();
}
