/*
 * The policy language end to end through ab_policy_load/check: merging, defaults,
 * every error reported with FILE:LINE, hostile input, unsafe files refused, digest.
 * Runs without root (files owned by the caller are accepted then); as root it also
 * checks that a file owned by another user is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
/* OpenSSL only as the independent reference for the digest (the library uses nettle). */
#include <openssl/evp.h>

#include "policy.h"
#include "../tap.h"

static char top[256];		/* real path of the temp dir */
static char p1[300], p2[300];	/* two project directories */

static void
die(const char *what)
{
	perror(what);
	exit(2);
}

/* Write ROOT/REL (LEN bytes of DATA, or strlen when LEN is -1). */
static void
put(const char *root, const char *rel, const char *data, long len)
{
	char path[PATH_MAX * 2];
	FILE *f;
	size_t n = len < 0 ? strlen(data) : (size_t)len;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if ((f = fopen(path, "we")) == NULL || fwrite(data, 1, n, f) != n || fclose(f) != 0)
		die(path);
	if (chmod(path, 0644) != 0)
		die("chmod");
}

static void
rm(const char *root, const char *rel)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (unlink(path) != 0 && errno != ENOENT)
		die(path);
}

/* A fresh policy root: ROOT/etc/agentbox/policy.d, all 0755. */
static char *
new_root(const char *name)
{
	char *root, path[PATH_MAX * 2];

	if (asprintf(&root, "%s/%s", top, name) < 0)
		die("asprintf");
	snprintf(path, sizeof(path), "mkdir -p '%s/etc/agentbox/policy.d' && chmod -R 0755 '%s'",
	    root, root);
	if (system(path) != 0)
		die(path);
	return root;
}

static int
diag_has(const struct ab_diag *d, const char *needle)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (strstr(d->msg[i], needle) != NULL)
			return 1;
	return 0;
}

static void
diag_show(const struct ab_diag *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		diag("%s", d->msg[i]);
}

static int
strv_is(const struct ab_strv *sv, const char *const *want)
{
	size_t i;

	for (i = 0; want[i] != NULL; i++)
		if (i >= sv->n || strcmp(sv->v[i], want[i]) != 0)
			return 0;
	return i == sv->n;
}

/* ab_policy_check on ROOT; returns r, fills diag and users. */
static int
check(const char *root, struct ab_diag *d, struct ab_strv *users)
{
	return ab_policy_check(root, NULL, users, d);
}

/* The digest as policy/digest.c documents it, computed independently. */
static void
manual_digest(const char *root, const char *const *rels, unsigned char out[AB_DIGEST_LEN])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned int n;
	size_t i;

	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	for (i = 0; rels[i] != NULL; i++) {
		char path[PATH_MAX * 2], logical[PATH_MAX], *buf;
		unsigned char be[8];
		long len;
		FILE *f;
		int k;

		snprintf(path, sizeof(path), "%s/%s", root, rels[i]);
		snprintf(logical, sizeof(logical), "/%s", rels[i]);
		if ((f = fopen(path, "re")) == NULL)
			die(path);
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		buf = malloc((size_t)len + 1);
		if (fread(buf, 1, (size_t)len, f) != (size_t)len)
			die("fread");
		fclose(f);
		for (k = 7; k >= 0; k--)
			be[7 - k] = (unsigned char)((unsigned long)len >> (8 * k));
		EVP_DigestUpdate(md, logical, strlen(logical) + 1);
		EVP_DigestUpdate(md, be, 8);
		EVP_DigestUpdate(md, buf, (size_t)len);
		free(buf);
	}
	EVP_DigestFinal_ex(md, out, &n);
	EVP_MD_CTX_free(md);
}

static void
test_merge(void)
{
	char *root = new_root("merge"), conf[4096], *root2;
	struct ab_diag d = { 0 };
	struct ab_policy *alice = NULL, *bob = NULL, *x = NULL, *again = NULL;
	struct ab_strv users = { 0 };
	unsigned char want[AB_DIGEST_LEN];
	int r;

	snprintf(conf, sizeof(conf),
	    "\xef\xbb\xbf# comment\r\n"
	    "[defaults]\r\n"
	    "read = /usr /bin ; an inline comment\n"
	    "; another comment\n"
	    "mask = .env\n"
	    "network = loopback\n"
	    "\n"
	    "[user:alice]\n"
	    "project = %s\n"
	    "read = /opt /usr //srv///data/ /opt/My\\ App\n"
	    "network = tcp:443,22,443\n"
	    "shell = /bin/sh\n"
	    "shell = /bin/dash\n"
	    "mask = a\\ b\n", p1);
	put(root, "etc/agentbox/agentbox.conf", conf, -1);
	snprintf(conf, sizeof(conf), "[user:alice]\nproject = %s\nproject = %s\nmask = *.pem\n"
	    "env_keep = TERM LANG TERM\n", p2, p1);
	put(root, "etc/agentbox/policy.d/20-alice.conf", conf, -1);
	snprintf(conf, sizeof(conf), "[user:bob]\nproject = %s\n", p1);
	put(root, "etc/agentbox/policy.d/10-bob.conf", conf, -1);
	/* Not policy: hidden, backup, no .conf suffix.  Garbage would fail if read. */
	put(root, "etc/agentbox/policy.d/.hidden.conf", "garbage\n", -1);
	put(root, "etc/agentbox/policy.d/x.conf~", "garbage\n", -1);
	put(root, "etc/agentbox/policy.d/README", "garbage\n", -1);

	r = ab_policy_load(root, "alice", &alice, &d);
	ok(r == 0 && alice != NULL, "load alice (r=%d)", r);
	diag_show(&d);
	if (alice != NULL) {
		const char *proj[] = { p1, p2, NULL };
		const char *rd[] = { "/usr", "/bin", "/opt", "/srv/data", "/opt/My App", NULL };
		const char *mk[] = { ".env", "a\\ b", "*.pem", NULL };
		const char *env[] = { "TERM", "LANG", NULL };

		ok(strcmp(alice->user, "alice") == 0, "user name");
		ok(strv_is(&alice->project, proj), "projects in order, duplicate dropped");
		ok(strv_is(&alice->read, rd), "read: defaults first, normalised, deduplicated, "
		    "escaped space kept");
		ok(alice->write.n == 0, "write empty");
		ok(strv_is(&alice->mask, mk), "mask accumulates across sections and files");
		ok(strv_is(&alice->env_keep, env), "env_keep deduplicated");
		ok(alice->network == AB_NET_TCP && alice->nports == 2 && alice->ports[0] == 22 &&
		    alice->ports[1] == 443, "tcp ports sorted and unique");
		ok(strcmp(alice->shell, "/bin/dash") == 0, "last scalar of a file wins");
		ok(alice->landlock_min_abi == 1 && alice->audit == AB_AUDIT_REQUIRED,
		    "defaults: landlock_min_abi 1, audit required");
		ok(alice->persist == AB_NO && alice->linger == 86400,
		    "defaults: persist no, linger 1 day");
	}
	ab_diag_free(&d);
	r = ab_policy_load(root, "bob", &bob, &d);
	ok(r == 0 && bob != NULL && bob->network == AB_NET_LOOPBACK &&
	    strcmp(bob->shell, "/bin/bash") == 0 && bob->protect.n == 0,
	    "bob: network from defaults, shell /bin/bash by default");
	ok(r == 0 && alice && memcmp(alice->digest, bob->digest, AB_DIGEST_LEN) == 0,
	    "one digest for the whole set");
	{
		const char *rels[] = { "etc/agentbox/agentbox.conf",
		    "etc/agentbox/policy.d/10-bob.conf", "etc/agentbox/policy.d/20-alice.conf",
		    NULL };

		manual_digest(root, rels, want);
		ok(bob && memcmp(bob->digest, want, AB_DIGEST_LEN) == 0,
		    "digest = SHA-256 of (path NUL len64be bytes) per file, as documented");
	}
	ab_diag_free(&d);
	r = ab_policy_load(root, "carol", &x, &d);
	ok(r == -ENOENT && x == NULL && d.n == 0, "carol has no section: -ENOENT (r=%d)", r);
	ab_diag_free(&d);
	r = check(root, &d, &users);
	ok(r == 0 && users.n == 2 && strcmp(users.v[0], "alice") == 0 &&
	    strcmp(users.v[1], "bob") == 0, "check lists the enrolled users, sorted");
	ab_strv_free(&users);
	ab_diag_free(&d);

	/* The same files elsewhere: the same digest (the root prefix is not hashed). */
	root2 = new_root("merge2");
	snprintf(conf, sizeof(conf), "cp -a '%s/etc' '%s/'", root, root2);
	if (system(conf) != 0)
		die(conf);
	r = ab_policy_load(root2, "bob", &again, &d);
	ok(r == 0 && bob && memcmp(again->digest, bob->digest, AB_DIGEST_LEN) == 0,
	    "same bytes under another root: same digest");
	ab_policy_free(again);
	again = NULL;
	put(root2, "etc/agentbox/policy.d/10-bob.conf", "[user:bob]\n", -1);
	snprintf(conf, sizeof(conf), "[user:bob]\nproject = %s \n", p1);	/* one more byte */
	put(root2, "etc/agentbox/policy.d/10-bob.conf", conf, -1);
	r = ab_policy_load(root2, "bob", &again, &d);
	ok(r == 0 && bob && memcmp(again->digest, bob->digest, AB_DIGEST_LEN) != 0,
	    "one more byte: another digest");
	ab_policy_free(again);
	ab_diag_free(&d);

	ab_policy_free(alice);
	ab_policy_free(bob);
	free(root);
	free(root2);
}

static void
test_conflicts(void)
{
	char *root = new_root("conflict"), conf[4096];
	struct ab_diag d = { 0 };
	struct ab_policy *p = NULL;
	int r;

	snprintf(conf, sizeof(conf), "[defaults]\nnetwork = none\n[user:alice]\nproject = %s\n"
	    "network = loopback\n", p1);
	put(root, "etc/agentbox/agentbox.conf", conf, -1);
	put(root, "etc/agentbox/policy.d/a.conf", "[user:alice]\nnetwork = loopback\n", -1);
	r = ab_policy_load(root, "alice", &p, &d);
	ok(r == 0 && p && p->network == AB_NET_LOOPBACK, "same scalar in two files: fine");
	ab_policy_free(p);
	p = NULL;
	ab_diag_free(&d);

	put(root, "etc/agentbox/policy.d/a.conf", "# x\n[user:alice]\nnetwork = host\n", -1);
	r = ab_policy_load(root, "alice", &p, &d);
	ok(r == -EINVAL && p == NULL, "conflicting scalar across files refused (r=%d)", r);
	ok(diag_has(&d, "policy.d/a.conf:3: network = host for [user:alice] conflicts with") &&
	    diag_has(&d, "agentbox.conf:5"), "the message names both places");
	diag_show(&d);
	ab_diag_free(&d);

	/* Within one file, the last value wins: not a conflict. */
	put(root, "etc/agentbox/policy.d/a.conf", "[user:alice]\nnetwork = host\n"
	    "network = loopback\n", -1);
	r = ab_policy_load(root, "alice", &p, &d);
	ok(r == 0 && p && p->network == AB_NET_LOOPBACK, "file's final value is compared");
	ab_policy_free(p);
	p = NULL;
	ab_diag_free(&d);

	/* [defaults] in two files must agree too. */
	put(root, "etc/agentbox/policy.d/a.conf", "[defaults]\naudit = best-effort\n", -1);
	put(root, "etc/agentbox/policy.d/b.conf", "[defaults]\naudit = required\n", -1);
	r = ab_policy_load(root, "alice", &p, &d);
	ok(r == -EINVAL && diag_has(&d, "b.conf:2: audit = required for [defaults] conflicts"),
	    "conflicting [defaults] across files refused");
	ab_diag_free(&d);
	rm(root, "etc/agentbox/policy.d/b.conf");

	/* A user without any project. */
	put(root, "etc/agentbox/policy.d/b.conf", "\n[user:dave]\nread = /usr\n", -1);
	r = ab_policy_load(root, "alice", &p, &d);
	ok(r == -EINVAL && diag_has(&d, "b.conf:2: [user:dave] has no project"),
	    "a user without a project refuses the set, for every user");
	ab_diag_free(&d);
	free(root);
}

/* One bad line each: every one reported, at its own line, and nothing else. */
static void
test_errors(void)
{
	char *root = new_root("errors"), link[PATH_MAX * 2], file[PATH_MAX * 2];
	static const char *const rows[][2] = {
		{ "raed = /usr", "unknown key 'raed'" },
		{ "Read = /usr", "unknown key 'Read'" },
		{ "read = usr", "'usr' is not an absolute path" },
		{ "write = /a/../b", "'.' or '..' component" },
		{ "write = /a/./b", "'.' or '..' component" },
		{ "shell = sh", "'sh' is not an absolute path" },
		{ "network = wifi", "is not none, loopback, host, tcp:PORT[,PORT...] or proxy" },
		{ "network = tcp:", "needs at least one port" },
		{ "network = tcp:0", "bad port" },
		{ "network = tcp:65536", "bad port" },
		{ "network = tcp:22,,23", "bad port" },
		{ "network = tcp:022", "bad port" },
		{ "network = tcp:22,", "bad port" },
		{ "network = tcp:-1", "bad port" },
		{ "network = none host", "takes one value" },
		{ "audit = maybe", "not required or best-effort" },
		{ "landlock_min_abi = 0", "not an ABI version" },
		{ "landlock_min_abi = 8", "not an ABI version" },
		{ "landlock_min_abi = 1.0", "not an ABI version" },
		{ "landlock_min_abi = 01", "not an ABI version" },
		{ "persist = maybe", "not no or yes" },
		{ "persist = YES", "not no or yes" },
		{ "linger = 1w", "is not a duration" },
		{ "linger = -1", "is not a duration" },
		{ "linger = 2 h", "takes one value" },
		{ "linger = 366d", "is not a duration" },
		{ "linger = 31536001", "is not a duration" },
		{ "linger = h", "is not a duration" },
		{ "linger = 99999999999999999999s", "is not a duration" },
		{ "mask = !x", "invalid pattern '!x'" },
		{ "protect = [a", "invalid pattern '[a'" },
		{ "mask = a//b", "invalid pattern" },
		{ "env_keep = 1X", "not a valid variable name" },
		{ "env_keep = A-B", "not a valid variable name" },
		{ "project = /nonexistent-agentbox-test-dir", "No such file or directory" },
		{ "project = @FILE@", "is not a directory" },
		{ "project = @LINK@", "through a symlink" },
		{ "project = relative", "not an absolute path" },
		{ "read =", "empty value" },
		{ "  read = /x", "indented line" },
		{ "\tmask = .env", "indented line" },
		{ "read = /x\x01", "control character 0x01" },
		{ "read = /x\x1b[31m", "control character 0x1b" },
		{ "read = /\xc0\x80", "invalid UTF-8" },		/* overlong NUL */
		{ "read = /\xed\xa0\x80", "invalid UTF-8" },	/* surrogate */
		{ "read = /\xf5\x80\x80\x80", "invalid UTF-8" },	/* beyond U+10FFFF */
		{ "read = /\xe2\x82", "invalid UTF-8" },		/* cut short */
		{ "read = /\xff", "invalid UTF-8" },
		{ "just text", "expected KEY = VALUE" },
		/* section lines last: they change where the following keys go */
		{ "[defaults] x", "text after ']'" },
		{ "[defaults", "without ']'" },
		{ "[users:bob]", "unknown section [users:bob]" },
		{ "[user:b@d]", "invalid user name 'b@d'" },
		{ "[user:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]",
		  "invalid user name" },
		{ "[user:]", "invalid user name ''" },
		{ "[ defaults ]", "unknown section" },
	};
	size_t nrows = sizeof(rows) / sizeof(rows[0]), i, len = 0;
	char *conf = NULL, want[512], *line;
	struct ab_diag d = { 0 };
	struct ab_strv users = { 0 };
	FILE *f;
	int r, all = 1;

	snprintf(file, sizeof(file), "%s/a-file", top);
	put(top, "a-file", "x", -1);
	snprintf(link, sizeof(link), "%s/link-to-p1", top);
	unlink(link);
	if (symlink(p1, link) != 0)
		die("symlink");
	if ((f = open_memstream(&conf, &len)) == NULL)
		die("open_memstream");
	fputs("[defaults]\n", f);
	for (i = 0; i < nrows; i++) {
		const char *s = rows[i][0];

		if (strcmp(s, "project = @FILE@") == 0)
			fprintf(f, "project = %s\n", file);
		else if (strcmp(s, "project = @LINK@") == 0)
			fprintf(f, "project = %s\n", link);
		else
			fprintf(f, "%s\n", s);
	}
	/* A NUL byte in a line (fputs would stop at it). */
	fwrite("read = /a\0b\n", 1, 12, f);
	fclose(f);
	put(root, "etc/agentbox/agentbox.conf", conf, (long)len);
	free(conf);

	r = check(root, &d, &users);
	ok(r == -EINVAL, "a file full of errors is invalid (r=%d)", r);
	for (i = 0; i < nrows; i++) {
		snprintf(want, sizeof(want), "etc/agentbox/agentbox.conf:%zu: ", i + 2);
		line = NULL;
		for (size_t k = 0; k < d.n; k++)
			if (strstr(d.msg[k], want) != NULL && strstr(d.msg[k], rows[i][1]) != NULL)
				line = d.msg[k];
		if (line == NULL)
			all = 0;
		ok(line != NULL, "line %zu '%s': reported as '%s'", i + 2, rows[i][0], rows[i][1]);
	}
	snprintf(want, sizeof(want), "agentbox.conf:%zu: NUL byte at column 10", nrows + 2);
	ok(diag_has(&d, want), "NUL byte reported with line and column");
	ok(d.n == nrows + 1, "exactly one message per bad line (%zu for %zu)", d.n, nrows + 1);
	if (!all || d.n != nrows + 1)
		diag_show(&d);
	ab_diag_free(&d);
	ab_strv_free(&users);

	/* A key before any section. */
	put(root, "etc/agentbox/agentbox.conf", "read = /usr\n[defaults]\n", -1);
	r = check(root, &d, NULL);
	ok(r == -EINVAL && diag_has(&d, "agentbox.conf:1: 'read' before any"),
	    "key before any section");
	ab_diag_free(&d);
	free(root);
}

static char *
repeat(int c, size_t n)
{
	char *s = malloc(n + 1);

	if (s == NULL)
		die("malloc");
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void
test_hostile(void)
{
	char *root = new_root("hostile"), *big, *conf;
	struct ab_diag d = { 0 };
	struct ab_strv users = { 0 };
	struct ab_policy *p = NULL;
	size_t i, n;
	FILE *f;
	double t;
	struct timespec t0, t1;
	int r;

	/* 198 bytes is the longest line inih (INI_MAX_LINE 200) takes whole. */
	big = repeat('a', 198 - strlen("read = /"));
	if (asprintf(&conf, "[defaults]\nread = /%s\n", big) < 0)
		die("asprintf");
	put(root, "etc/agentbox/agentbox.conf", conf, -1);
	r = check(root, &d, NULL);
	ok(r == 0, "a 198-byte line is fine (r=%d)", r);
	diag_show(&d);
	ab_diag_free(&d);
	free(conf);
	free(big);

	big = repeat('a', 199 - strlen("read = /"));
	if (asprintf(&conf, "[defaults]\nread = /%s\n", big) < 0)
		die("asprintf");
	put(root, "etc/agentbox/agentbox.conf", conf, -1);
	r = check(root, &d, NULL);
	ok(r == -EINVAL && d.n == 1 && diag_has(&d, "agentbox.conf:2: line too long (199 bytes"),
	    "a 199-byte line is an error, not cut short");
	ab_diag_free(&d);
	free(conf);
	free(big);

	/* 1 MiB line: one error; its tail is never read as lines of its own. */
	big = repeat('a', 1 << 20);
	if (asprintf(&conf, "[defaults]\nread = /%s\nnetwork = none\n", big) < 0)
		die("asprintf");
	put(root, "etc/agentbox/agentbox.conf", conf, -1);
	r = check(root, &d, NULL);
	ok(r == -EINVAL && d.n == 1 && diag_has(&d, "agentbox.conf:2: line too long (1048584"),
	    "a 1 MiB line: exactly one error, at line 2");
	diag_show(&d);
	ab_diag_free(&d);
	free(conf);

	/* A long line whose first 198 bytes would be a valid, weaker value. */
	memset(big, ' ', 400);
	memcpy(big, "network = host", 14);
	memcpy(big + 390, "x = y", 5);
	big[400] = '\0';
	if (asprintf(&conf, "[user:bob]\nproject = %s\n%s\n", p1, big) < 0)
		die("asprintf");
	put(root, "etc/agentbox/agentbox.conf", conf, -1);
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == -EINVAL && p == NULL && d.n == 1, "a cut line never yields a value");
	ab_diag_free(&d);
	free(conf);
	free(big);

	/* 10,000 sections. */
	if ((f = open_memstream(&conf, &n)) == NULL)
		die("open_memstream");
	fputs("[defaults]\nread = /usr\nmask = .env\n", f);
	for (i = 0; i < 10000; i++)
		fprintf(f, "[user:u%zu]\nproject = %s\nread = /opt/%zu\n", i, p1, i);
	fclose(f);
	put(root, "etc/agentbox/agentbox.conf", conf, (long)n);
	free(conf);
	/* CPU time, not wall time: other tests may be loading the machine. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	r = check(root, &d, &users);
	r = r == 0 ? ab_policy_load(root, "u9999", &p, &d) : r;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	t = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(r == 0 && users.n == 10000 && p != NULL && p->read.n == 2 &&
	    strcmp(p->read.v[1], "/opt/9999") == 0, "10,000 sections: all enrolled, right merge");
	ok(t < 30.0, "10,000 sections checked and loaded in %.2f s of CPU (< 30 s, ASan)", t);
	ab_policy_free(p);
	p = NULL;
	ab_strv_free(&users);
	ab_diag_free(&d);

	/* 10,000 sections of one user across the file: lists accumulate. */
	if ((f = open_memstream(&conf, &n)) == NULL)
		die("open_memstream");
	for (i = 0; i < 10000; i++)
		fprintf(f, "[user:bob]\nproject = %s\nmask = p%zu\n", p1, i % 5000);
	fclose(f);
	put(root, "etc/agentbox/agentbox.conf", conf, (long)n);
	free(conf);
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == 0 && p && p->mask.n == 5000 && p->project.n == 1,
	    "10,000 sections of one user: lists merged and deduplicated");
	ab_policy_free(p);
	p = NULL;
	ab_diag_free(&d);

	/* 100,000 repeats of one scalar in each of two files: linear, not quadratic. */
	if ((f = open_memstream(&conf, &n)) == NULL)
		die("open_memstream");
	fprintf(f, "[user:bob]\nproject = %s\n", p1);
	for (i = 0; i < 100000; i++)
		fputs("audit = required\n", f);
	fclose(f);
	put(root, "etc/agentbox/agentbox.conf", conf, (long)n);
	put(root, "etc/agentbox/policy.d/bob.conf", conf, (long)n);
	free(conf);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	r = ab_policy_load(root, "bob", &p, &d);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	t = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(r == 0 && p != NULL && t < 10.0, "200,000 scalar lines for one user: %.2f s of CPU", t);
	ab_policy_free(p);
	p = NULL;
	ab_diag_free(&d);
	rm(root, "etc/agentbox/policy.d/bob.conf");

	/* Bigger than 4 MiB: refused before parsing. */
	big = repeat('#', (4u << 20) + 1);
	put(root, "etc/agentbox/agentbox.conf", big, (4l << 20) + 1);
	free(big);
	r = check(root, &d, NULL);
	ok(r == -EFBIG && diag_has(&d, "larger than"), "a file over 4 MiB is refused (r=%d)", r);
	ab_diag_free(&d);

	/* Empty and comment-only files are valid and enroll nobody. */
	put(root, "etc/agentbox/agentbox.conf", "", 0);
	r = check(root, &d, &users);
	ok(r == 0 && users.n == 0, "an empty agentbox.conf is valid, enrolls nobody");
	ab_diag_free(&d);
	ab_strv_free(&users);
	free(root);
}

static void
test_unsafe(void)
{
	char *root = new_root("unsafe"), path[PATH_MAX * 2], conf[1024];
	struct ab_diag d = { 0 };
	struct ab_policy *p = NULL;
	int r;

	snprintf(conf, sizeof(conf), "[user:bob]\nproject = %s\n", p1);
	put(root, "etc/agentbox/agentbox.conf", conf, -1);
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == 0, "baseline loads");
	ab_policy_free(p);
	p = NULL;
	ab_diag_free(&d);

	snprintf(path, sizeof(path), "%s/etc/agentbox/agentbox.conf", root);
	chmod(path, 0664);
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == -EPERM && p == NULL && diag_has(&d, "agentbox.conf: group-writable (mode 0664)"),
	    "group-writable file refused (r=%d)", r);
	ab_diag_free(&d);
	chmod(path, 0646);
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == -EPERM && diag_has(&d, "world-writable"), "world-writable file refused");
	ab_diag_free(&d);
	chmod(path, 0644);

	snprintf(path, sizeof(path), "%s/etc/agentbox/policy.d", root);
	chmod(path, 0777);
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == -EPERM && diag_has(&d, "policy.d: world-writable"), "world-writable policy.d refused");
	ab_diag_free(&d);
	chmod(path, 0755);
	snprintf(path, sizeof(path), "%s/etc/agentbox", root);
	chmod(path, 0775);
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == -EPERM && diag_has(&d, "etc/agentbox: group-writable"), "group-writable etc/agentbox refused");
	ab_diag_free(&d);
	chmod(path, 0755);

	/* A symlinked policy file or directory is refused, even pointing somewhere sane. */
	snprintf(path, sizeof(path), "%s/etc/agentbox/policy.d/x.conf", root);
	snprintf(conf, sizeof(conf), "%s/etc/agentbox/agentbox.conf", root);
	if (symlink(conf, path) != 0)
		die("symlink");
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == -ELOOP && diag_has(&d, "x.conf: ") && diag_has(&d, "symlink"),
	    "symlinked drop-in refused (r=%d)", r);
	ab_diag_free(&d);
	unlink(path);

	/* A FIFO named *.conf: refused at once, the read never blocks (O_NONBLOCK). */
	if (mkfifo(path, 0644) != 0)
		die("mkfifo");
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == -EPERM && diag_has(&d, "x.conf: not a regular file"), "FIFO drop-in refused");
	ab_diag_free(&d);
	unlink(path);
	if (mkdir(path, 0755) != 0)
		die("mkdir");
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == -EPERM && diag_has(&d, "not a regular file"), "directory named x.conf refused");
	ab_diag_free(&d);
	rmdir(path);

	/* policy.d as a symlink. */
	snprintf(path, sizeof(path), "%s/etc/agentbox/policy.d", root);
	rmdir(path);
	snprintf(conf, sizeof(conf), "%s/etc", root);
	if (symlink(conf, path) != 0)
		die("symlink");
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r != 0 && p == NULL && diag_has(&d, "policy.d: ") && diag_has(&d, "symlink"),
	    "symlinked policy.d refused (r=%d)", r);
	ab_diag_free(&d);
	unlink(path);
	mkdir(path, 0755);

	/* Owned by someone else: needs root to arrange. */
	snprintf(path, sizeof(path), "%s/etc/agentbox/agentbox.conf", root);
	if (geteuid() == 0) {
		if (chown(path, 65534, 65534) != 0)
			die("chown");
		r = ab_policy_load(root, "bob", &p, &d);
		ok(r == -EPERM && diag_has(&d, "owned by uid 65534, not root"),
		    "file owned by uid 65534 refused");
		ab_diag_free(&d);
		if (chown(path, 0, 0) != 0)
			die("chown");
		snprintf(path, sizeof(path), "%s/etc/agentbox", root);
		if (chown(path, 65534, 65534) != 0)
			die("chown");
		r = ab_policy_load(root, "bob", &p, &d);
		ok(r == -EPERM && diag_has(&d, "etc/agentbox: owned by uid 65534"),
		    "directory owned by uid 65534 refused");
		ab_diag_free(&d);
		if (chown(path, 0, 0) != 0)
			die("chown");
	} else if (getenv("CI") != NULL) {
		ok(0, "cannot run: the ownership cases need root");
	} else {
		ok(1, "ownership cases # SKIP need root");
	}

	/* No agentbox.conf: policy.d alone still enrolls (load), check says it is missing. */
	snprintf(path, sizeof(path), "%s/etc/agentbox/agentbox.conf", root);
	unlink(path);
	snprintf(conf, sizeof(conf), "[user:bob]\nproject = %s\n", p1);
	put(root, "etc/agentbox/policy.d/bob.conf", conf, -1);
	r = ab_policy_load(root, "bob", &p, &d);
	ok(r == 0 && p != NULL, "missing agentbox.conf: policy.d still enrolls bob");
	ab_policy_free(p);
	p = NULL;
	ab_diag_free(&d);
	r = ab_policy_check(root, NULL, NULL, &d);
	ok(r == -ENOENT && diag_has(&d, "agentbox.conf: No such file"),
	    "check reports the missing agentbox.conf");
	ab_diag_free(&d);

	/* One FILE, under the same rules. */
	snprintf(path, sizeof(path), "%s/etc/agentbox/policy.d/bob.conf", root);
	r = ab_policy_load_file(path, "bob", &p, &d);
	ok(r == 0 && p && p->project.n == 1, "ab_policy_load_file");
	ab_policy_free(p);
	p = NULL;
	ab_diag_free(&d);
	chmod(path, 0620);
	r = ab_policy_check(NULL, path, NULL, &d);
	ok(r == -EPERM && diag_has(&d, "group-writable"), "check FILE refuses a group-writable file");
	ab_diag_free(&d);
	free(root);
}

/* Load USER from ROOT: r, with *n diagnostics and whether one contains NEEDLE. */
static int
load_says(const char *root, const char *user, const char *needle, size_t *n, int *has)
{
	struct ab_diag d = { 0 };
	struct ab_policy *p = NULL;
	int r = ab_policy_load(root, user, &p, &d);

	if (r == 0 && (p == NULL || strcmp(p->user, user) != 0))
		r = -EBADMSG;		/* 0 must come with USER's policy */
	if (r != 0 && p != NULL)
		r = -EBADMSG;		/* and failure without one */
	*n = d.n;
	*has = needle != NULL && diag_has(&d, needle);
	if (r != 0 && needle == NULL)
		diag_show(&d);
	ab_policy_free(p);
	ab_diag_free(&d);
	return r;
}

/*
 * A project that is not (or no longer) there as written, in [user:bob]: bob's load
 * fails, alice's does not and her diag stays clean, check reports it.  In [defaults] it
 * fails everyone; a syntax error in bob's section still fails everyone.
 */
static void
test_env_per_user(void)
{
	char *root = new_root("envuser"), conf[2048], file[PATH_MAX * 2], link[PATH_MAX * 2];
	static const char *const who[] = { "alice", "bob", NULL };
	struct {
		const char *what, *value, *says;
	} rows[] = {
		{ "missing", "/nonexistent-agentbox-env-dir", "No such file or directory" },
		{ "a file", file, "is not a directory" },
		{ "through a symlink", link, "through a symlink" },
		{ "under a file", NULL, "Not a directory" },
	};
	char under[PATH_MAX * 2 + 8];
	struct ab_diag d = { 0 };
	struct ab_strv users = { 0 };
	struct ab_policy *p = NULL;
	size_t i, n;
	int r, has;

	snprintf(file, sizeof(file), "%s/env-a-file", top);
	put(top, "env-a-file", "x", -1);
	snprintf(link, sizeof(link), "%s/env-link-to-p2", top);
	unlink(link);
	if (symlink(p2, link) != 0)
		die("symlink");
	snprintf(under, sizeof(under), "%s/sub", file);
	rows[3].value = under;

	put(root, "etc/agentbox/agentbox.conf", "[defaults]\nread = /usr\n", -1);
	snprintf(conf, sizeof(conf), "[user:alice]\nproject = %s\n", p1);
	put(root, "etc/agentbox/policy.d/alice.conf", conf, -1);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(conf, sizeof(conf), "[user:bob]\nproject = %s\n", rows[i].value);
		put(root, "etc/agentbox/policy.d/bob.conf", conf, -1);
		r = load_says(root, "alice", NULL, &n, &has);
		ok(r == 0 && n == 0, "bob's project %s: alice still loads, clean diag (r=%d, %zu)",
		    rows[i].what, r, n);
		r = load_says(root, "bob", rows[i].says, &n, &has);
		ok(r == -EINVAL && n == 1 && has, "  bob's own load fails, saying '%s' (r=%d)",
		    rows[i].says, r);
		r = load_says(root, "carol", NULL, &n, &has);
		ok(r == -ENOENT && n == 0, "  carol (not enrolled) is -ENOENT, not -EINVAL (r=%d)", r);
		r = check(root, &d, &users);
		ok(r == -EINVAL && d.n == 1 && diag_has(&d, "bob.conf:2: project: ") &&
		    diag_has(&d, rows[i].says) && strv_is(&users, who),
		    "  check reports it at bob.conf:2, and only it (r=%d, %zu)", r, d.n);
		if (d.n != 1)
			diag_show(&d);
		ab_diag_free(&d);
		ab_strv_free(&users);
	}

	/* One bad project among good ones still refuses bob: his box would lack it. */
	snprintf(conf, sizeof(conf), "[user:bob]\nproject = %s\nproject = /nonexistent-ab-x\n"
	    "project = %s\n", p2, p1);
	put(root, "etc/agentbox/policy.d/bob.conf", conf, -1);
	r = load_says(root, "bob", "bob.conf:3: project: '/nonexistent-ab-x'", &n, &has);
	ok(r == -EINVAL && has, "one missing project among three refuses bob");
	r = load_says(root, "alice", NULL, &n, &has);
	ok(r == 0 && n == 0, "  and not alice");

	/* bob split over two files, the bad project in the second; sorted before alice. */
	rm(root, "etc/agentbox/policy.d/bob.conf");
	snprintf(conf, sizeof(conf), "[user:bob]\nproject = %s\nread = /opt\n", p2);
	put(root, "etc/agentbox/policy.d/0bob.conf", conf, -1);
	put(root, "etc/agentbox/policy.d/zbob.conf",
	    "# later\n[user:bob]\nwrite = /tmp\nproject = /nonexistent-ab-y\n", -1);
	r = load_says(root, "alice", NULL, &n, &has);
	ok(r == 0 && n == 0, "bob over two files, second one bad: alice loads");
	r = load_says(root, "bob", "zbob.conf:4: project: '/nonexistent-ab-y'", &n, &has);
	ok(r == -EINVAL && has, "  bob does not");
	rm(root, "etc/agentbox/policy.d/0bob.conf");
	rm(root, "etc/agentbox/policy.d/zbob.conf");

	/* The section's only project is unusable: no "has no project" error besides. */
	put(root, "etc/agentbox/policy.d/bob.conf",
	    "[user:bob]\nproject = /nonexistent-ab-z\n", -1);
	r = check(root, &d, NULL);
	ok(r == -EINVAL && d.n == 1 && !diag_has(&d, "has no project"),
	    "an unusable only project is not also reported as no project");
	ab_diag_free(&d);

	/* In [defaults] it concerns everyone. */
	put(root, "etc/agentbox/policy.d/bob.conf", "", -1);
	put(root, "etc/agentbox/agentbox.conf",
	    "[defaults]\nread = /usr\nproject = /nonexistent-ab-dflt\n", -1);
	r = load_says(root, "alice", "agentbox.conf:3: project: '/nonexistent-ab-dflt'", &n, &has);
	ok(r == -EINVAL && has, "a missing project in [defaults] refuses alice (r=%d)", r);
	r = load_says(root, "carol", "agentbox.conf:3: project: ", &n, &has);
	ok(r == -EINVAL && has, "  and the set is unusable for a user without a section too");
	put(root, "etc/agentbox/agentbox.conf", "[defaults]\nread = /usr\n", -1);

	/* Text errors in bob's section still refuse everyone: a typo must not weaken. */
	{
		static const char *const text[][2] = {
			{ "[user:bob]\nproject = relative/dir\n", "not an absolute path" },
			{ "[user:bob]\nproject = /a/../b\n", "'.' or '..' component" },
			{ "[user:bob]\nprojcet = /tmp\n", "unknown key 'projcet'" },
			{ "[user:bob]\nread = /usr\n", "[user:bob] has no project" },
			{ "[user:b@b]\nproject = /nonexistent-ab-q\n", "invalid user name" },
		};

		for (i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
			put(root, "etc/agentbox/policy.d/bob.conf", text[i][0], -1);
			r = load_says(root, "alice", text[i][1], &n, &has);
			ok(r == -EINVAL && has, "bob's '%s' still refuses alice (r=%d)", text[i][1], r);
		}
	}

	/* ab_policy_load_file: the same rule within one file. */
	snprintf(conf, sizeof(conf), "[user:bob]\nproject = /nonexistent-ab-f\n"
	    "[user:alice]\nproject = %s\n", p1);
	put(root, "one.conf", conf, -1);
	snprintf(file, sizeof(file), "%s/one.conf", root);
	r = ab_policy_load_file(file, "alice", &p, &d);
	ok(r == 0 && p != NULL && d.n == 0 && p->project.n == 1 && strcmp(p->project.v[0], p1) == 0,
	    "load_file: alice loads beside bob's missing project");
	ab_policy_free(p);
	p = NULL;
	ab_diag_free(&d);
	r = ab_policy_load_file(file, "bob", &p, &d);
	ok(r == -EINVAL && p == NULL && diag_has(&d, "one.conf:2: project: "),
	    "load_file: bob does not");
	ab_diag_free(&d);
	r = ab_policy_check(NULL, file, NULL, &d);
	ok(r == -EINVAL && diag_has(&d, "one.conf:2: project: "), "check FILE reports it");
	ab_diag_free(&d);
	free(root);
}

/* ab_policy_mentions_user: a line scan that answers when the set is invalid. */
static void
test_mentions(void)
{
	char *root = new_root("mentions"), path[PATH_MAX * 2], target[PATH_MAX * 2], *big, *line;
	static const char drop[] =
	    "\xef\xbb\xbf[user:bom]\n"		/* a BOM before the first header */
	    "[defaults]\n"
	    "raed = /usr\n"				/* the set is invalid */
	    "[user:alice]\n"
	    "  [ user : spaced ]  \n"
	    "\t[user:\ttabbed\t]\r\n"
	    "[USER:upper]\n"
	    "[user:junk] trailing text\n"
	    "[user:noclose\n"
	    "[user:b@d]\n"
	    "[user:bobby]\n"
	    "[user:xcarol]\n"
	    "[user:dave x]\n"
	    "# [user:commented]\n"
	    "; [user:semi]\n"
	    "read = [user:invalue]\n"
	    "[users:plural]\n"
	    "[user:al\0ice]\n"
	    "[user:after-nul]\n"
	    "[user:crlf]\r\n"
	    "[user:last]";				/* no final newline */
	static const struct {
		const char *user;
		int want;
	} rows[] = {
		{ "bom", 1 }, { "alice", 1 }, { "spaced", 1 }, { "tabbed", 1 }, { "upper", 1 },
		{ "junk", 1 }, { "noclose", 1 }, { "b@d", 1 }, { "bobby", 1 },
		{ "after-nul", 1 }, { "crlf", 1 }, { "last", 1 },
		{ "bob", 0 }, { "bobb", 0 }, { "carol", 0 }, { "xcaro", 0 }, { "dave", 0 },
		{ "commented", 0 }, { "semi", 0 }, { "invalue", 0 }, { "plural", 0 },
		{ "al", 0 }, { "defaults", 0 }, { "user", 0 }, { "Alice", 0 }, { "alice ", 0 },
	};
	struct ab_diag d = { 0 };
	struct ab_policy *p = NULL;
	size_t i;
	int r, all = 1;

	ok(ab_policy_mentions_user(root, "alice") == 0, "no policy files at all: 0");
	ok(ab_policy_mentions_user(root, "") == -EINVAL &&
	    ab_policy_mentions_user(root, NULL) == -EINVAL, "empty or NULL user: -EINVAL");
	put(root, "etc/agentbox/agentbox.conf", "[defaults]\nread = /usr\n", -1);
	put(root, "etc/agentbox/policy.d/x.conf", drop, (long)sizeof(drop) - 1);
	r = ab_policy_load(root, "alice", &p, &d);
	ok(r == -EINVAL && p == NULL, "the set is invalid for ab_policy_load (r=%d)", r);
	ab_diag_free(&d);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		r = ab_policy_mentions_user(root, rows[i].user);
		if (r != rows[i].want) {
			all = 0;
			diag("'%s': %d, want %d", rows[i].user, r, rows[i].want);
		}
	}
	ok(all, "%zu names: lenient headers count, other names and prefixes never do",
	    sizeof(rows) / sizeof(rows[0]));

	/* Found in agentbox.conf too, and past a 1 MiB line (no line limit here). */
	line = repeat('a', 1 << 20);
	if (asprintf(&big, "[defaults]\nread = /%s\n[user:farmain]\n", line) < 0)
		die("asprintf");
	free(line);
	put(root, "etc/agentbox/agentbox.conf", big, -1);
	free(big);
	ok(ab_policy_mentions_user(root, "farmain") == 1, "agentbox.conf read, past a 1 MiB line");

	/* Only policy.d/ *.conf, like the loader: a leftover does not enroll. */
	put(root, "etc/agentbox/policy.d/y.conf~", "[user:leftover]\n", -1);
	put(root, "etc/agentbox/policy.d/.hidden.conf", "[user:hidden]\n", -1);
	ok(ab_policy_mentions_user(root, "leftover") == 0 &&
	    ab_policy_mentions_user(root, "hidden") == 0, "editor leftovers and hidden files ignored");

	/* Unsafe files: -errno, even for a user found in a safe one. */
	snprintf(path, sizeof(path), "%s/etc/agentbox/policy.d/y.conf~", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/etc/agentbox/policy.d/x.conf", root);
	chmod(path, 0664);
	ok(ab_policy_mentions_user(root, "alice") == -EPERM &&
	    ab_policy_mentions_user(root, "nobody-here") == -EPERM,
	    "a group-writable drop-in: -EPERM whoever asks");
	chmod(path, 0644);
	snprintf(path, sizeof(path), "%s/etc/agentbox/policy.d/z.conf", root);
	snprintf(target, sizeof(target), "%s/etc/agentbox/agentbox.conf", root);
	if (symlink(target, path) != 0)
		die("symlink");
	ok(ab_policy_mentions_user(root, "alice") == -ELOOP, "a symlinked drop-in: -ELOOP");
	unlink(path);
	snprintf(path, sizeof(path), "%s/etc/agentbox/policy.d", root);
	chmod(path, 0777);
	ok(ab_policy_mentions_user(root, "alice") == -EPERM, "a world-writable policy.d: -EPERM");
	chmod(path, 0755);
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/etc/agentbox/policy.d/x.conf", root);
		if (chown(path, 65534, 65534) != 0)
			die("chown");
		ok(ab_policy_mentions_user(root, "alice") == -EPERM, "a drop-in owned by uid 65534: -EPERM");
		if (chown(path, 0, 0) != 0)
			die("chown");
	} else if (getenv("CI") != NULL) {
		ok(0, "cannot run: the ownership case needs root");
	} else {
		ok(1, "ownership case # SKIP need root");
	}
	snprintf(path, sizeof(path), "%s/etc/agentbox/agentbox.conf", root);
	unlink(path);
	ok(ab_policy_mentions_user(root, "alice") == 1, "a missing agentbox.conf is no error");
	free(root);
}

/* The shipped default policy passes, and gives an enrolled user what it promises. */
static void
test_default_policy(void)
{
	char *root = new_root("default"), cmd[PATH_MAX * 3], conf[1024];
	const char *src = getenv("AB_DEFAULT_POLICY") ? getenv("AB_DEFAULT_POLICY") :
	    "policy/agentbox.conf";
	struct ab_diag d = { 0 };
	struct ab_policy *p = NULL;
	int r;

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/etc/agentbox/agentbox.conf' && chmod 0644 "
	    "'%s/etc/agentbox/agentbox.conf'", src, root, root);
	if (system(cmd) != 0) {
		ok(0, "cannot copy %s (run from the source tree)", src);
		return;
	}
	r = ab_policy_check(root, NULL, NULL, &d);
	ok(r == 0 && d.n == 0, "default policy passes check (r=%d)", r);
	diag_show(&d);
	ab_diag_free(&d);
	snprintf(conf, sizeof(conf), "[user:agent]\nproject = %s\n", p1);
	put(root, "etc/agentbox/policy.d/agent.conf", conf, -1);
	r = ab_policy_load(root, "agent", &p, &d);
	ok(r == 0 && p != NULL, "default policy + enrolment loads");
	if (p != NULL) {
		size_t i;
		int env = 0, ssh = 0, hooks = 0, usr = 0;

		for (i = 0; i < p->mask.n; i++) {
			env |= ab_pattern_match(p->mask.v[i], "app/.env", 0);
			ssh |= ab_pattern_match(p->mask.v[i], ".ssh/id_ed25519", 0);
		}
		for (i = 0; i < p->protect.n; i++)
			hooks |= ab_pattern_match(p->protect.v[i], ".git/hooks/pre-commit", 0);
		for (i = 0; i < p->read.n; i++)
			usr |= strcmp(p->read.v[i], "/usr") == 0;
		ok(env && ssh && hooks && usr, "masks .env and ssh keys, protects git hooks, reads /usr");
		ok(p->network == AB_NET_NONE && p->audit == AB_AUDIT_REQUIRED,
		    "network none, audit required");
		{
			struct ab_plan plan = { .policy = p, .uid = 1001, .gid = 1001,
			    .home = "/home/agent", .service = "su", .tty = "", .rhost = "" };
			struct ab_plan *back = NULL;
			char *buf = NULL;
			size_t len = 0;

			r = ab_plan_serialize(&plan, &buf, &len);
			r = r == 0 ? ab_plan_parse(buf, len, &back) : r;
			ok(r == 0 && back->policy->mask.n == p->mask.n &&
			    back->policy->protect.n == p->protect.n &&
			    memcmp(back->policy->digest, p->digest, AB_DIGEST_LEN) == 0,
			    "its session plan round-trips (%zu bytes)", len);
			ab_plan_free(back);
			free(buf);
		}
	}
	ab_policy_free(p);
	ab_diag_free(&d);
	free(root);
}

/* ---- network = proxy ---- */

/*
 * CONF (with "@P1@" replaced by the first project) must be refused by ab_policy_check
 * with a message "agentbox.conf:LINE: ..." holding WANT.
 */
static void
proxy_refused(const char *conf, unsigned int line, const char *want, const char *what)
{
	char *root = new_root("proxy-bad"), *text, loc[64];
	struct ab_diag d = { 0 };
	const char *at;
	int r, found = 0;

	if ((at = strstr(conf, "@P1@")) != NULL) {
		if (asprintf(&text, "%.*s%s%s", (int)(at - conf), conf, p1, at + 4) < 0)
			die("asprintf");
	} else if ((text = strdup(conf)) == NULL) {
		die("strdup");
	}
	put(root, "etc/agentbox/agentbox.conf", text, -1);
	r = check(root, &d, NULL);
	snprintf(loc, sizeof(loc), "agentbox.conf:%u: ", line);
	for (size_t i = 0; i < d.n; i++)
		if (strstr(d.msg[i], loc) != NULL && strstr(d.msg[i], want) != NULL)
			found = 1;
	ok(r == -EINVAL && found, "%s: line %u says '%s' (r=%d)", what, line, want, r);
	if (!found)
		diag_show(&d);
	ab_diag_free(&d);
	free(text);
	free(root);
}

#define PROXY_USER "[user:u]\nproject = @P1@\nnetwork = proxy\n"	/* lines 1-3 */
/* A whole [credential:NAME] setting ENV: five lines. */
#define CRED(NAME, HOST, ENV) "[credential:" NAME "]\nhost = " HOST "\nheader = h\n" \
	"file = /s\nenv = " ENV "\n"

static void
test_proxy_values(void)
{
	static const char *const rows[][2] = {
		{ "allow_host = *", "a bare * would allow every host" },
		{ "allow_host = *.*.example.com", "a wildcard is only a whole first label" },
		{ "allow_host = a*.example.com", "a wildcard is only a whole first label" },
		{ "allow_host = example.com:0", "the port is not 1 to 65535" },
		{ "allow_host = example.com:65536", "the port is not 1 to 65535" },
		{ "allow_host = example.com:080", "the port is not 1 to 65535" },
		{ "allow_host = 127.1", "not a host name" },
		{ "allow_host = 0x7f.0.0.1", "not a host name" },
		{ "allow_host = exa_mple.com", "not a host name" },
		{ "allow_host = 2001:db8::1", "not a host name" },
		{ "allow_host = 10.0.0.1/8", "not an address/prefix" },
		{ "allow_host = @", "not @NAME" },
		{ "allow_host = @nosuch", "no [hosts:nosuch] section" },
		{ "deny_host = *", "a bare * would allow every host" },
		{ "deny_host = @nosuch", "no [hosts:nosuch] section" },
		{ "allow_private = 10.0.0.0", "is not ADDRESS/LENGTH" },
		{ "allow_private = 10.1.2.3/8", "is not ADDRESS/LENGTH" },
		{ "allow_private = 10.1/8", "is not ADDRESS/LENGTH" },
		{ "allow_private = ::ffff:10.0.0.0/104", "is not ADDRESS/LENGTH" },
		{ "allow_private = example.com", "is not ADDRESS/LENGTH" },
		{ "credential = b@d", "is not a [credential:NAME] name" },
		{ "credential = nosuch", "no [credential:nosuch] section" },
		{ "host = example.com", "'host' does not belong in this section" },
	};
	char conf[512];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(conf, sizeof(conf), PROXY_USER "%s\n", rows[i][0]);
		proxy_refused(conf, 4, rows[i][1], rows[i][0]);
	}
}

static void
test_proxy_sections(void)
{
	static const struct {
		const char *conf;
		unsigned int line;
		const char *want, *what;
	} rows[] = {
		{ PROXY_USER "[hosts:]\nhost = a.example\n", 4, "invalid host set name ''",
		  "set without a name" },
		{ PROXY_USER "[hosts:b@d]\nhost = a.example\n", 4, "invalid host set name",
		  "set with a bad name" },
		{ PROXY_USER "[credential:-x]\n", 4, "invalid credential name",
		  "credential with a bad name" },
		{ PROXY_USER "allow_host = @e\n[hosts:e]\n", 5, "[hosts:e] has no host",
		  "empty set" },
		{ PROXY_USER "allow_host = @a\n[hosts:a]\nhost = @a\n", 6, "sets do not nest",
		  "recursive set" },
		{ PROXY_USER "[hosts:a]\nhost = @b\n[hosts:b]\nhost = x.example\n", 5,
		  "sets do not nest", "set naming another set" },
		{ PROXY_USER "[hosts:a]\nhost = x.example\n[hosts:a]\nhost = y.example\n", 6,
		  "[hosts:a] again (first at", "set defined twice" },
		{ PROXY_USER "[hosts:a]\nhost = *\n", 5, "a bare * would allow every host",
		  "set with a bare *" },
		{ PROXY_USER "[hosts:a]\nheader = x\n", 5, "'header' does not belong",
		  "credential key in a set" },
		{ PROXY_USER "[credential:c]\nproject = /tmp\n", 5, "'project' does not belong",
		  "policy key in a credential" },
		{ PROXY_USER "[credential:c]\nheader = x-api-key\nfile = /s\nenv = K\n", 4,
		  "[credential:c] has no host (required)", "credential without host" },
		{ PROXY_USER "[credential:c]\nhost = a.example\nfile = /s\nenv = K\n", 4,
		  "[credential:c] has no header (required)", "credential without header" },
		{ PROXY_USER "[credential:c]\nhost = a.example\nheader = h\nenv = K\n", 4,
		  "[credential:c] has no file (required)", "credential without file" },
		{ PROXY_USER "[credential:c]\nhost = a.example\nheader = h\nfile = /s\n", 4,
		  "[credential:c] has no env (required)", "credential without env" },
		{ PROXY_USER CRED("c", "a.example", "K") "header = i\n", 9, "header given twice in [credential:c]", "key given twice" },
		{ PROXY_USER CRED("c", "a.example", "K")
		  CRED("c", "a.example", "K"), 9,
		  "[credential:c] again (first at", "duplicate credential name" },
		{ PROXY_USER "[credential:c]\nhost = 10.0.0.1\n", 5, "is not a host name",
		  "credential host an address" },
		{ PROXY_USER "[credential:c]\nhost = a.example b.example\n", 5,
		  "takes one value", "credential host twice on a line" },
		{ PROXY_USER "[credential:c]\nheader = x:y\n", 5, "is not an HTTP header name",
		  "bad header" },
		{ PROXY_USER "[credential:c]\nfile = secret\n", 5, "is not an absolute path",
		  "relative secret file" },
		{ PROXY_USER "[credential:c]\nfile = /a/../s\n", 5, "is not an absolute path",
		  "secret file with .." },
		{ PROXY_USER "[credential:c]\nenv = 1X\n", 5, "is not a valid variable name",
		  "bad env" },
		{ PROXY_USER "[credential:c]\nbase_url_env = A-B\n", 5,
		  "is not a valid variable name", "bad base_url_env" },
		{ PROXY_USER "[credential:c]\nbase_path = v1\n", 5, "is not a URL path",
		  "relative base_path" },
		{ PROXY_USER "[credential:c]\nbase_path = /v1?x=1\n", 5, "is not a URL path",
		  "base_path with a query" },
		{ PROXY_USER "[credential:c]\nprefix = "
		  "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n", 5,
		  "is not printable ASCII of at most 64 bytes", "prefix too long" },
		/* The proxy keys mean nothing without network = proxy. */
		{ "[user:u]\nproject = @P1@\nallow_host = example.com\n", 3,
		  "allow_host needs network = proxy ([user:u] has network = none)",
		  "allow_host without proxy" },
		{ "[user:u]\nproject = @P1@\nnetwork = host\ndeny_host = example.com\n", 4,
		  "deny_host needs network = proxy", "deny_host with network = host" },
		{ "[user:u]\nproject = @P1@\nnetwork = loopback\nallow_private = 10.0.0.0/8\n",
		  4, "allow_private needs network = proxy", "allow_private with loopback" },
		{ "[user:u]\nproject = @P1@\nnetwork = tcp:443\ncredential = c\n"
		  CRED("c", "a.example", "K"), 4,
		  "credential needs network = proxy", "credential with tcp" },
		{ "[defaults]\nnetwork = proxy\nallow_host = example.com\n[user:u]\n"
		  "project = @P1@\nnetwork = none\n", 3,
		  "allow_host needs network = proxy ([user:u] has network = none)",
		  "a user leaving proxy keeps the defaults' rules: refused" },
		{ PROXY_USER "credential = a b\n"
		  CRED("a", "a.example", "K") CRED("b", "b.example", "K"), 4,
		  "'b' sets K, which another credential of [user:u] sets too",
		  "two credentials, one variable" },
		{ PROXY_USER "credential = a b\n"
		  CRED("a", "a.example", "A") "base_url_env = URL\n"
		  CRED("b", "b.example", "B") "base_url_env = URL\n", 4, "'b' sets URL", "two credentials, one base URL" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		proxy_refused(rows[i].conf, rows[i].line, rows[i].want, rows[i].what);
}

/* At most 16 credentials: the 17th name is refused where it is written. */
static void
test_proxy_cred_max(void)
{
	char *conf = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	if ((f = open_memstream(&conf, &len)) == NULL)
		die("open_memstream");
	fputs(PROXY_USER, f);
	for (i = 0; i < 17; i++)
		fprintf(f, "credential = c%d\n", i);	/* lines 4-20 */
	for (i = 0; i < 17; i++)
		fprintf(f, "[credential:c%d]\nhost = a.example\nheader = h\nfile = /s\n"
		    "env = K%d\n", i, i);
	fclose(f);
	proxy_refused(conf, 20, "has more than 16 credentials", "17 credentials");
	free(conf);
}

static void
test_proxy_build(void)
{
	char *root = new_root("proxy-good"), *text;
	static const char *const allow[] = { "example.com", "*.example.com", "a.example",
		"b.example:8443", "10.0.0.0/8", "[2001:db8::/32]:443", NULL };
	static const char *const deny[] = { "bad.example.com", "A.Example", NULL };
	static const char *const priv[] = { "10.0.0.0/8", "fd00::/8", "127.0.0.1/32", NULL };
	static const char *const credv[] = { "two", "one", NULL };
	struct ab_diag d = { 0 };
	struct ab_policy *p = NULL;
	char want[PATH_MAX * 2];
	int r;

	if (asprintf(&text,
	    "[defaults]\n"					/* 1 */
	    "allow_host = example.com\n"			/* 2 */
	    "[hosts:set]\n"					/* 3 */
	    "host = a.example b.example:8443\n"		/* 4 */
	    "host = example.com\n"				/* 5: a duplicate, dropped */
	    "[user:u]\n"					/* 6 */
	    "project = %s\n"					/* 7 */
	    "network = proxy\n"				/* 8 */
	    "allow_host = *.example.com @set @set\n"		/* 9 */
	    "allow_host = 10.0.0.0/8 [2001:db8::/32]:443\n"	/* 10 */
	    "deny_host = bad.example.com @other\n"		/* 11 */
	    "allow_private = 10.0.0.0/8 fd00::/8 127.0.0.1/32\n"	/* 12 */
	    "credential = two one two\n"			/* 13 */
	    "[hosts:other]\n"					/* 14 */
	    "host = A.Example\n"				/* 15 */
	    "[credential:one]\n"				/* 16 */
	    "host = API.one.example.\n"			/* 17 */
	    "header = x-api-key\n"				/* 18 */
	    "file = /etc/agentbox/secrets/one\n"		/* 19 */
	    "env = ONE_KEY\n"					/* 20 */
	    "[credential:two]\n"				/* 21 */
	    "host = two.example\n"				/* 22 */
	    "header = Authorization\n"			/* 23 */
	    "prefix = \"Bearer \"\n"				/* 24 */
	    "file = /etc/agentbox/secrets/two\n"		/* 25 */
	    "env = TWO_KEY\n"					/* 26 */
	    "base_url_env = TWO_BASE_URL\n"			/* 27 */
	    "base_path = /v1\n"				/* 28 */
	    CRED("unused", "x.example", "TWO_KEY"), p1) < 0)	/* 29-33 */
		die("asprintf");
	put(root, "etc/agentbox/agentbox.conf", text, -1);
	free(text);
	r = ab_policy_load(root, "u", &p, &d);
	ok(r == 0 && p != NULL, "proxy policy loads (r=%d)", r);
	if (r != 0) {
		diag_show(&d);
		ab_diag_free(&d);
		free(root);
		return;
	}
	ok(p->network == AB_NET_PROXY && strcmp(ab_network_name(p->network), "proxy") == 0,
	    "network = proxy is AB_NET_PROXY, named \"proxy\"");
	ok(strv_is(&p->allow_host, allow), "allow_host: defaults first, @set expanded in "
	    "place once, duplicates dropped (%zu rules)", p->allow_host.n);
	snprintf(want, sizeof(want), "%s/etc/agentbox/agentbox.conf:", root);
	ok(p->allow_host_src.n == p->allow_host.n && p->allow_host.n == 6 &&
	    strncmp(p->allow_host_src.v[0], want, strlen(want)) == 0 &&
	    strcmp(p->allow_host_src.v[0] + strlen(want), "2") == 0 &&
	    strcmp(p->allow_host_src.v[1] + strlen(want), "9") == 0 &&
	    strcmp(p->allow_host_src.v[2] + strlen(want), "4") == 0 &&
	    strcmp(p->allow_host_src.v[3] + strlen(want), "4") == 0 &&
	    strcmp(p->allow_host_src.v[4] + strlen(want), "10") == 0,
	    "allow_host_src: FILE:LINE of each rule, a set's host at the set's line");
	ok(strv_is(&p->deny_host, deny) && p->deny_host_src.n == 2 &&
	    strcmp(p->deny_host_src.v[1] + strlen(want), "15") == 0,
	    "deny_host: @other expanded (rules kept as written), its source the set's line");
	ok(strv_is(&p->allow_private, priv), "allow_private kept in order");
	ok(strv_is(&p->credential, credv) && p->ncreds == 2,
	    "credential: the user's, in order, once; the unused one left out");
	ok(p->ncreds == 2 && strcmp(p->creds[0].name, "two") == 0 &&
	    strcmp(p->creds[0].host, "two.example") == 0 &&
	    strcmp(p->creds[0].header, "Authorization") == 0 &&
	    strcmp(p->creds[0].prefix, "Bearer ") == 0 &&
	    strcmp(p->creds[0].file, "/etc/agentbox/secrets/two") == 0 &&
	    strcmp(p->creds[0].env, "TWO_KEY") == 0 &&
	    strcmp(p->creds[0].base_url_env, "TWO_BASE_URL") == 0 &&
	    strcmp(p->creds[0].base_path, "/v1") == 0,
	    "credential two: every key, the prefix's quotes dropped and its blank kept");
	ok(p->ncreds == 2 && strcmp(p->creds[1].host, "api.one.example") == 0 &&
	    p->creds[1].prefix == NULL && p->creds[1].base_url_env == NULL &&
	    p->creds[1].base_path == NULL,
	    "credential one: host in normal form, optional keys unset");
	ab_policy_free(p);
	ab_diag_free(&d);

	/* The same user without any proxy key: nothing new is set. */
	put(root, "etc/agentbox/agentbox.conf", "[user:u]\nproject = /tmp\n", -1);
	r = ab_policy_load(root, "u", &p, &d);
	ok(r == 0 && p->allow_host.n == 0 && p->deny_host.n == 0 && p->allow_private.n == 0 &&
	    p->credential.n == 0 && p->ncreds == 0 && p->creds == NULL,
	    "a policy without proxy keys compiles as before");
	ab_policy_free(p);
	ab_diag_free(&d);
	free(root);
}

/* persist and linger: the duration syntax, the compiled values and their spelling. */
static void
test_persist(void)
{
	static const struct { const char *in; int r; uint32_t secs; } rows[] = {
		{ "0", 0, 0 }, { "2", 0, 2 }, { "2s", 0, 2 }, { "90m", 0, 5400 },
		{ "24h", 0, 86400 }, { "365d", 0, 31536000 }, { "31536000", 0, 31536000 },
		{ "366d", -EINVAL, 0 }, { "", -EINVAL, 0 }, { "s", -EINVAL, 0 },
		{ "1ss", -EINVAL, 0 }, { "1x", -EINVAL, 0 }, { "+1", -EINVAL, 0 },
		{ "4294967296", -EINVAL, 0 },
	};
	struct ab_policy *p = NULL;
	struct ab_diag d = { 0 };
	char *root, *conf, *v = NULL;
	uint32_t secs;
	size_t i, k;
	int r;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		secs = 12345;
		r = ab_duration_parse(rows[i].in, &secs);
		ok(r == rows[i].r && (r != 0 || secs == rows[i].secs),
		    "duration '%s' -> %d, %u s", rows[i].in, r, (unsigned)secs);
	}
	root = new_root("persist");
	put(root, "etc/agentbox/agentbox.conf", "", -1);
	if (asprintf(&conf, "[defaults]\nlinger = 2h\n\n[user:alice]\nproject = %s\n"
	    "persist = yes\nlinger = 90m\n", p1) == -1)
		die("asprintf");
	put(root, "etc/agentbox/policy.d/a.conf", conf, -1);
	free(conf);
	r = ab_policy_load(root, "alice", &p, &d);
	ok(r == 0 && p != NULL && p->persist == AB_YES && p->linger == 5400,
	    "persist = yes, the user's linger over the defaults' (%d)", r);
	for (k = 0; r == 0 && ab_policy_key(k) != NULL; k++)
		if (strcmp(ab_policy_key(k)->name, "linger") == 0 &&
		    ab_policy_scalar(p, k, &v) == 0)
			break;
	ok(v != NULL && strcmp(v, "90m") == 0, "linger spelt back in its largest unit (%s)",
	    v ? v : "?");
	free(v);
	ab_policy_free(p);
	ab_diag_free(&d);
	free(root);
}

/* USER's digest of the policy in force under ROOT (ab_policy_user_digest). */
static int
user_digest(const char *root, const char *user, unsigned char out[AB_DIGEST_LEN])
{
	struct ab_diag d = { 0 };
	struct ab_policy *p = NULL;
	int r;

	if ((r = ab_policy_load(root, user, &p, &d)) == 0)
		r = ab_policy_user_digest(p, out);
	ab_policy_free(p);
	ab_diag_free(&d);
	return r;
}

/* What a persistent box is kept by: the user's policy in force, not the files. */
static void
test_user_digest(void)
{
	char *root = new_root("udigest"), conf[1024];
	unsigned char a0[AB_DIGEST_LEN], a1[AB_DIGEST_LEN], b0[AB_DIGEST_LEN],
	    b1[AB_DIGEST_LEN];

	put(root, "etc/agentbox/agentbox.conf", "[defaults]\nread = /usr\nmask = .env\n", -1);
	snprintf(conf, sizeof(conf), "[user:alice]\nproject = %s\n", p1);
	put(root, "etc/agentbox/policy.d/alice.conf", conf, -1);
	snprintf(conf, sizeof(conf), "[user:bob]\nproject = %s\n", p2);
	put(root, "etc/agentbox/policy.d/bob.conf", conf, -1);
	ok(user_digest(root, "alice", a0) == 0 && user_digest(root, "bob", b0) == 0,
	    "user digests of alice and bob");
	ok(memcmp(a0, b0, AB_DIGEST_LEN) != 0, "two users: two digests");
	/* Another user's change, a comment, a line moved: alice's stays. */
	snprintf(conf, sizeof(conf), "# bob's tools\n[user:bob]\nproject = %s\nread = /opt\n",
	    p2);
	put(root, "etc/agentbox/policy.d/bob.conf", conf, -1);
	snprintf(conf, sizeof(conf), "\n# the agent of the web team\n[user:alice]\n"
	    "project   = %s\n", p1);
	put(root, "etc/agentbox/policy.d/alice.conf", conf, -1);
	ok(user_digest(root, "alice", a1) == 0 && memcmp(a0, a1, AB_DIGEST_LEN) == 0,
	    "bob's change and alice's comment leave alice's digest as it was");
	ok(user_digest(root, "bob", b1) == 0 && memcmp(b0, b1, AB_DIGEST_LEN) != 0,
	    "bob's own change changes his");
	/* Her own change, or the defaults she inherits: another digest. */
	snprintf(conf, sizeof(conf), "[user:alice]\nproject = %s\nmask = *.pem\n", p1);
	put(root, "etc/agentbox/policy.d/alice.conf", conf, -1);
	ok(user_digest(root, "alice", a1) == 0 && memcmp(a0, a1, AB_DIGEST_LEN) != 0,
	    "a mask added to alice's section: another digest");
	snprintf(conf, sizeof(conf), "[user:alice]\nproject = %s\n", p1);
	put(root, "etc/agentbox/policy.d/alice.conf", conf, -1);
	ok(user_digest(root, "alice", a1) == 0 && memcmp(a0, a1, AB_DIGEST_LEN) == 0,
	    "taken back: the first digest again");
	put(root, "etc/agentbox/agentbox.conf", "[defaults]\nread = /usr\nmask = .env\n"
	    "network = loopback\n", -1);
	ok(user_digest(root, "alice", a1) == 0 && memcmp(a0, a1, AB_DIGEST_LEN) != 0,
	    "a default she inherits changed: another digest");
	free(root);
}

int
main(void)
{
	char tmpl[] = "/tmp/ab-test-policy.XXXXXX", cmd[PATH_MAX + 32], real[PATH_MAX];

	umask(022);
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, real) == NULL)
		die("mkdtemp");
	if (strlen(real) >= sizeof(top))
		die("temp dir path too long");
	strcpy(top, real);
	if (chmod(top, 0755) != 0)
		die("chmod");
	snprintf(p1, sizeof(p1), "%s/p1", top);
	snprintf(p2, sizeof(p2), "%s/p2", top);
	if (mkdir(p1, 0755) != 0 || mkdir(p2, 0755) != 0)
		die("mkdir");

	test_merge();
	test_user_digest();
	test_conflicts();
	test_errors();
	test_hostile();
	test_unsafe();
	test_env_per_user();
	test_mentions();
	test_default_policy();
	test_proxy_values();
	test_proxy_sections();
	test_proxy_cred_max();
	test_proxy_build();
	test_persist();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		diag("could not remove %s", top);
	return done_testing();
}
