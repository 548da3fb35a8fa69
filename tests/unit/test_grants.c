/* policy/grants.c: the one list of what a box may touch, as agentbox-shell's Landlock
 * ruleset and a learning session's recorder both ask it.  Unions by whole path
 * components, as Landlock unions the rules on the way down. */
#include <string.h>

#include "policy.h"
#include "tap.h"

#define R	(AB_FS_READ | AB_FS_LIST | AB_FS_EXEC)
#define W	(R | AB_FS_WRITE | AB_FS_TREE)
#define OWN	(W | AB_FS_SOCK)	/* the box's own trees: sockets too */

static int
count(void *ctx, const char *path, unsigned int rights)
{
	(void)path;
	(void)rights;
	(*(int *)ctx)++;
	return 0;
}

static int
stop_at_two(void *ctx, const char *path, unsigned int rights)
{
	(void)path;
	(void)rights;
	return ++*(int *)ctx == 2 ? 42 : 0;
}

int
main(void)
{
	static char *rd[] = { "/usr", "/etc/", "/var/lib" }, *wr[] = { "/var/cache/tool" },
	    *pj[] = { "/srv/proj" };
	const struct ab_strv reads = { rd, 3 }, writes = { wr, 1 }, projects = { pj, 1 };
	struct ab_fs_sets s = { &reads, &writes, &projects, "/home/a", 1001 };
	int n = 0;

	ok(ab_fs_rights_at(&s, "/usr/bin/cat") == R, "under a read path: read, list, exec");
	ok(ab_fs_rights_at(&s, "/usr") == R, "the read path itself");
	ok(ab_fs_rights_at(&s, "/usrx/bin") == 0, "a sibling sharing a prefix: nothing");
	ok(ab_fs_rights_at(&s, "/etc/passwd") == R, "a read path written with a slash");
	ok(ab_fs_rights_at(&s, "/var/cache/tool/x") == W, "under a write path: everything but "
	    "a socket file");
	ok(ab_fs_rights_at(&s, "/var/cache") == 0, "above a write path: nothing");
	ok(ab_fs_rights_at(&s, "/srv/proj/a/b") == W, "under a project: everything but a "
	    "socket file (every box of the user shares it)");
	ok(ab_fs_rights_at(&s, "/home/a/.cache/x") == W, "under the home: the same");
	ok(ab_fs_rights_at(&s, "/home/b/x") == 0, "another home: nothing");
	ok(ab_fs_rights_at(&s, "/run/user/1001/bus") == OWN, "the runtime dir of its uid: "
	    "sockets too (the box's own tmpfs)");
	ok(ab_fs_rights_at(&s, "/run/user/1002/bus") == 0, "another uid's: nothing");
	ok(ab_fs_rights_at(&s, "/tmp/x") == OWN && ab_fs_rights_at(&s, "/dev/shm/x") == OWN &&
	    ab_fs_rights_at(&s, "/var/tmp/x") == OWN, "the private trees: sockets too");
	ok(ab_fs_rights_at(&s, "/dev/null") == (AB_FS_READ | AB_FS_WRITE | AB_FS_IOCTL | AB_FS_LIST),
	    "/dev/null: read, write, ioctl (and /dev's listing above it)");
	ok(ab_fs_rights_at(&s, "/dev/sda") == AB_FS_LIST, "another device: only /dev's listing");
	ok(ab_fs_rights_at(&s, "/proc/self/status") == (AB_FS_READ | AB_FS_LIST),
	    "/proc: read and list, never exec");
	ok(ab_fs_rights_at(&s, "/srv/tool/x") == 0, "outside everything: nothing");
	s.home = NULL;
	ok(ab_fs_rights_at(&s, "/home/a/x") == 0, "no home: nothing there");
	ok(ab_fs_grants(&s, count, &n) == 0 && n > 10, "every grant visited (%d)", n);
	n = 0;
	ok(ab_fs_grants(&s, stop_at_two, &n) == 42 && n == 2, "the callback's error stops it");
	return done_testing();
}
