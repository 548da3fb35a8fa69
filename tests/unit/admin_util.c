/*
 * Unit tests of the admin tool's pure helpers (no root, no host changes): line edits
 * used on /etc/shells, cron.deny and PAM files, auditd.conf reads, user-name
 * validation, the audit rule text that must match what auditctl -l prints back, and
 * the reading of sshd -T output for an in-process sftp server (FINDINGS F8), and the
 * project ACL walk on a scratch tree the test owns (masked paths denied, FINDINGS F7;
 * progress reports; revoke takes everything back).
 */
#include <acl/libacl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libaudit.h>

#include "admin.h"
#include "auditscope.h"
#include "../tap.h"

static void
test_lines(void)
{
	int removed = -1;
	char *out;

	ok(adm_has_line("a\nb\nc\n", "b"), "has_line finds a middle line");
	ok(adm_has_line("a\nb  \t\n", "b"), "has_line ignores trailing blanks");
	ok(adm_has_line("a\nlast", "last"), "has_line finds a last line without newline");
	ok(!adm_has_line("a\nbb\n", "b"), "has_line matches whole lines only");
	ok(!adm_has_line("xb\n", "b"), "has_line does not match a suffix");
	ok(!adm_has_line("", "b"), "has_line on empty text");

	out = adm_without_line("root\nabt\nabtx\nabt\n", "abt", &removed);
	ok(out != NULL && strcmp(out, "root\nabtx\n") == 0, "without_line drops every copy, keeps others");
	ok(removed == 2, "without_line counts removals (%d)", removed);
	free(out);
	out = adm_without_line("only", "only", &removed);
	ok(out != NULL && out[0] == '\0' && removed == 1, "without_line on a last line without newline");
	free(out);
	out = adm_without_line("a\nb\n", "c", &removed);
	ok(out != NULL && strcmp(out, "a\nb\n") == 0 && removed == 0, "without_line leaves text without the line alone");
	free(out);
}

static void
test_auditd_get(void)
{
	const char *conf = "# comment\nlog_file = /var/log/audit/audit.log\n"
	    "  num_logs=5\nmax_log_file_action = ROTATE  \nnum_logs_extra = 9\n";
	char *v;

	v = adm_auditd_get(conf, "num_logs");
	ok(v != NULL && strcmp(v, "5") == 0, "auditd_get reads key=value without spaces");
	free(v);
	v = adm_auditd_get(conf, "max_log_file_action");
	ok(v != NULL && strcmp(v, "ROTATE") == 0, "auditd_get trims trailing blanks");
	free(v);
	ok(adm_auditd_get(conf, "max_log_file") == NULL, "auditd_get does not match a key prefix");
	ok(adm_auditd_get(conf, "comment") == NULL, "auditd_get ignores comments");
	ok(adm_auditd_get("#max_log_file = 1\n", "max_log_file") == NULL, "a commented-out key is absent");
}

/* enroll and unenroll take the policy's rule (lib/names.c): a name the policy refuses
 * would be an account whose every login pam_agentbox refuses. */
static void
test_names(void)
{
	ok(ab_user_name_valid("abt_adm1"), "abt_adm1 is a valid user name");
	ok(ab_user_name_valid("agent-1.x"), "dots and dashes are valid");
	ok(ab_user_name_valid("_agent"), "leading underscore is valid");
	ok(!ab_user_name_valid(""), "empty name refused");
	ok(!ab_user_name_valid("-rf"), "leading dash refused (option injection into useradd)");
	ok(!ab_user_name_valid("1abc"), "leading digit refused");
	ok(!ab_user_name_valid(".hidden"), "leading dot refused (the policy refuses it)");
	ok(!ab_user_name_valid(".."), "\"..\" refused (paths are built from the name)");
	ok(!ab_user_name_valid("a b"), "space refused");
	ok(!ab_user_name_valid("a/b"), "slash refused (paths are built from the name)");
	ok(!ab_user_name_valid("a\nb"), "newline refused (line-based files)");
	ok(!ab_user_name_valid("abcdefghijklmnopqrstuvwxyz0123456"), "33 characters refused");
}

static void
test_rule_text(void)
{
	char buf[256];

	ok(adm_audit_rule_text(1234, 0, buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "-a always,exit -S all -F uid=1234 -F exit=-EACCES -k agentbox") == 0,
	    "first rule text: %s", buf);
	ok(adm_audit_rule_text(1234, 2, buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "-a always,exit -S all -F uid=1234 -F exit=-EROFS -k agentbox") == 0,
	    "last rule text: %s", buf);
	ok(adm_audit_rule_text(1234, ADM_AUDIT_NRULES, buf, sizeof(buf)) == -EINVAL,
	    "rule index out of range refused");
	ok(adm_audit_rule_text(1234, 0, buf, 10) == -ENAMETOOLONG, "short buffer refused");
}

static void
test_settings_table(void)
{
	size_t i;
	int keep = 0, blind = 0;

	for (i = 0; adm_auditd_settings[i].key != NULL; i++) {
		if (strcmp(adm_auditd_settings[i].key, "max_log_file_action") == 0)
			keep = strcmp(adm_auditd_settings[i].value, "keep_logs") == 0;
		if (strcasecmp(adm_auditd_settings[i].value, "suspend") == 0 ||
		    strcasecmp(adm_auditd_settings[i].value, "ignore") == 0)
			blind = 1;
	}
	ok(keep, "auditd: rotation never deletes evidence (keep_logs)");
	ok(!blind, "auditd: no action that stops recording silently");
}

static void
test_sftp_inprocess(void)
{
	ok(adm_sshd_sftp_inprocess("port 22\nsubsystem sftp internal-sftp\nx11forwarding no\n"),
	    "sftp: subsystem internal-sftp is in-process");
	ok(adm_sshd_sftp_inprocess("subsystem sftp internal-sftp -l INFO\n"),
	    "sftp: internal-sftp with arguments");
	ok(adm_sshd_sftp_inprocess("Subsystem\tsftp\tINTERNAL-SFTP"),
	    "sftp: config-file spelling, tabs, any case, last line without newline");
	ok(adm_sshd_sftp_inprocess("forcecommand internal-sftp\n"),
	    "sftp: ForceCommand internal-sftp");
	ok(!adm_sshd_sftp_inprocess("subsystem sftp /usr/lib/openssh/sftp-server\n"),
	    "sftp: sftp-server runs through the login shell");
	ok(!adm_sshd_sftp_inprocess("forcecommand none\nsubsystem other internal-sftp\n"),
	    "sftp: another subsystem name or no ForceCommand is not sftp");
	ok(!adm_sshd_sftp_inprocess("subsystem sftp internal-sftpx\n"),
	    "sftp: a longer word is not internal-sftp");
	ok(!adm_sshd_sftp_inprocess("# subsystem sftp internal-sftp\n"),
	    "sftp: a comment is not a setting");
	ok(!adm_sshd_sftp_inprocess(""), "sftp: empty output");
}

#define T_UID 4242	/* any uid: the owner may name any user in an ACL */

/* Permission bits (4 r, 2 w, 1 x) of user:T_UID in PATH's ACL of TYPE, -1 if none. */
static int
perms_of(const char *path, acl_type_t type)
{
	acl_permset_t ps;
	acl_entry_t e;
	acl_tag_t tag;
	acl_t acl;
	int id, r = -1;

	if ((acl = acl_get_file(path, type)) == NULL)
		return -2;
	for (id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &e) == 1; id = ACL_NEXT_ENTRY) {
		uid_t *q;
		if (acl_get_tag_type(e, &tag) != 0 || tag != ACL_USER ||
		    (q = acl_get_qualifier(e)) == NULL)
			continue;
		if (*q == T_UID && acl_get_permset(e, &ps) == 0)
			r = 4 * acl_get_perm(ps, ACL_READ) + 2 * acl_get_perm(ps, ACL_WRITE) +
			    acl_get_perm(ps, ACL_EXECUTE);
		acl_free(q);
	}
	acl_free(acl);
	return r;
}

static int nprogress;

static void
count_progress(const struct adm_acl_stats *st, const char *path, void *arg)
{
	(void)st;
	(void)path;
	(void)arg;
	nprogress++;
}

static void
touch(const char *dir, const char *name)
{
	char p[2 * PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0)
		close(fd);
}

static int
at(const char *dir, const char *name, acl_type_t type)
{
	char p[2 * PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return perms_of(p, type);
}

/* Remove FILES, then DIRS (innermost first), under DIR. */
static void
remove_all(const char *dir, const char *const *files, const char *const *dirs)
{
	char p[2 * PATH_MAX];
	int i;

	for (i = 0; files[i] != NULL; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	for (i = 0; dirs[i] != NULL; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, dirs[i]);
		rmdir(p);
	}
}

static void
test_acl_walk(void)
{
	char *mpats[] = { ".env", "*.pem", "secrets/" }, *proj[1];
	struct ab_strv mask = { mpats, 3 }, projects = { proj, 1 };
	struct adm_acl_opts opts = { .tree = 1, .progress = count_progress, .progress_ns = 1 };
	char dir[] = "/tmp/admin-acl.XXXXXX", p[PATH_MAX + 32], why[PATH_MAX + 64];
	struct ab_maskset *masks;
	struct adm_acl_stats st;
	int i, r;

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	proj[0] = dir;
	if (ab_maskset_new(&mask, NULL, &projects, AB_MASKSET_MASKS, &masks) != 0) {
		ok(0, "ab_maskset_new");
		return;
	}
	opts.masks = masks;
	snprintf(p, sizeof(p), "%s/sub", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/secrets", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/secrets/inner", dir);
	mkdir(p, 0755);
	touch(dir, ".env");
	touch(dir, ".ENV~");
	touch(dir, "sub/a.PEM.bak");
	touch(dir, "sub/x.txt");
	touch(dir, "secrets/inner/key");
	for (i = 0; i < 600; i++) {
		snprintf(p, sizeof(p), "sub/f%d", i);
		touch(dir, p);
	}
	r = adm_acl_grant(dir, T_UID, &opts, &st, why, sizeof(why));
	if (r == -EOPNOTSUPP) {
		ok(0, "acl walk: %s has no POSIX ACLs (%s)", dir, why);
		goto out;
	}
	ok(r == 0, "acl grant: %d %s", r, why);
	ok(st.masked == 4, "acl grant: 4 masked entries (%lu)", st.masked);
	ok(nprogress > 0, "acl grant: progress reported (%d times)", nprogress);
	ok(at(dir, ".", ACL_TYPE_ACCESS) == 7 && at(dir, ".", ACL_TYPE_DEFAULT) == 7,
	    "acl grant: project root rwx, access and default");
	ok(at(dir, "sub/x.txt", ACL_TYPE_ACCESS) == 6, "acl grant: a plain file rw-");
	ok(at(dir, ".env", ACL_TYPE_ACCESS) == 0, "acl grant: .env gets ---");
	ok(at(dir, ".ENV~", ACL_TYPE_ACCESS) == 0, "acl grant: .ENV~ (case folded, decoration) gets ---");
	ok(at(dir, "sub/a.PEM.bak", ACL_TYPE_ACCESS) == 0, "acl grant: sub/a.PEM.bak gets ---");
	ok(at(dir, "secrets", ACL_TYPE_ACCESS) == 0 && at(dir, "secrets", ACL_TYPE_DEFAULT) == 0,
	    "acl grant: secrets/ gets --- access and default");
	ok(at(dir, "secrets/inner", ACL_TYPE_ACCESS) == -1 &&
	    at(dir, "secrets/inner/key", ACL_TYPE_ACCESS) == -1,
	    "acl grant: the walk does not enter a masked directory");
	r = adm_acl_grant(dir, T_UID, NULL, &st, why, sizeof(why));
	ok(r == 0 && at(dir, ".env", ACL_TYPE_ACCESS) == 6,
	    "acl grant without masks: .env rw- (the mask list is what decides)");
	r = adm_acl_grant(dir, T_UID, &opts, &st, why, sizeof(why));
	ok(r == 0 && at(dir, ".env", ACL_TYPE_ACCESS) == 0, "acl grant again: back to ---");
	r = adm_acl_revoke(dir, T_UID, NULL, &st, why, sizeof(why));
	ok(r == 0, "acl revoke: %d %s", r, why);
	ok(at(dir, ".env", ACL_TYPE_ACCESS) == -1 && at(dir, "secrets", ACL_TYPE_ACCESS) == -1 &&
	    at(dir, "sub/x.txt", ACL_TYPE_ACCESS) == -1 && at(dir, ".", ACL_TYPE_ACCESS) == -1,
	    "acl revoke: every entry for the uid is gone, --- included");
	ok(at(dir, "secrets", ACL_TYPE_DEFAULT) == -1 && at(dir, ".", ACL_TYPE_DEFAULT) == -1,
	    "acl revoke: default entries gone too");
out:
	for (i = 0; i < 600; i++) {
		snprintf(p, sizeof(p), "%s/sub/f%d", dir, i);
		unlink(p);
	}
	{
		static const char *const files[] = { ".env", ".ENV~", "sub/a.PEM.bak",
		    "sub/x.txt", "secrets/inner/key", NULL };
		static const char *const dirs[] = { "secrets/inner", "secrets", "sub", "", NULL };
		remove_all(dir, files, dirs);
	}
	ab_maskset_free(masks);
}

/*
 * A project inside the home, and an anchored mask written relative to
 * the home that reaches into it ("/proj/secret.txt").  The session masks the file; the
 * ACL walk of the project must deny it too, and agree with the PAM walk of the home (a
 * walk over the same mask set, from the home) on every entry.
 */
static const char *const nest_files[] = { "proj/secret.txt", "proj/sub/secret.txt",
	"proj/notes.txt", "proj/.ENV~", "proj/inner/secret.txt", "proj/inner/key.txt",
	"proj/cfg/key.txt", NULL };
static const char *const nest_dirs[] = { "proj/inner", "proj/sub", "proj/cfg", "proj", "",
	NULL };

/* The PAM walk of the home, by the walk's rule: a masked directory is not entered. */
static int
session_masks(const struct ab_maskset *m, const char *rel, int is_dir)
{
	return ab_maskset_match_path(m, 0, rel, is_dir);
}

/* Does the ACL on each of LIST (under HOME) say what the session decides?  1 if so. */
static int
agree_on(const struct ab_maskset *m, const char *home, const char *const *list, int is_dir)
{
	int i, acl, want, agree = 1;

	for (i = 0; list[i] != NULL; i++) {
		if (*list[i] == '\0' || strcmp(list[i], "proj") == 0)
			continue;	/* the trees' roots: never masked here */
		acl = at(home, list[i], ACL_TYPE_ACCESS);
		want = session_masks(m, list[i], is_dir);
		if ((acl == 0 || acl == -1) != (want == 1)) {
			agree = 0;
			printf("# %s: ACL %d, session %s\n", list[i], acl, want ? "masks" : "shows");
		}
	}
	return agree;
}

static void
test_acl_home_project(void)
{
	char *mpats[] = { "/proj/secret.txt", "cfg/key.txt", ".env", "inner/" }, *proj[1];
	struct ab_strv mask = { mpats, 4 }, projects = { proj, 1 };
	struct adm_acl_opts opts = { .tree = 1 };
	char home[] = "/tmp/admin-home.XXXXXX", pdir[PATH_MAX], p[PATH_MAX + 32];
	char why[PATH_MAX + 64];
	struct ab_maskset *masks;
	struct adm_acl_stats st;
	int i, r, agree;

	if (mkdtemp(home) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(pdir, sizeof(pdir), "%s/proj", home);
	proj[0] = pdir;
	for (i = 3; i >= 0; i--) {
		snprintf(p, sizeof(p), "%s/%s", home, nest_dirs[i]);
		mkdir(p, 0755);
	}
	for (i = 0; nest_files[i] != NULL; i++)
		touch(home, nest_files[i]);
	if (ab_maskset_new(&mask, home, &projects, AB_MASKSET_MASKS, &masks) != 0) {
		ok(0, "ab_maskset_new");
		goto out;
	}
	opts.masks = masks;
	r = adm_acl_grant(pdir, T_UID, &opts, &st, why, sizeof(why));
	ok(r == 0, "acl grant, project inside the home: %d %s", r, why);
	ok(at(home, "proj/secret.txt", ACL_TYPE_ACCESS) == 0,
	    "the home's /proj/secret.txt: the project's secret.txt gets --- (it got rw-)");
	ok(at(home, "proj/sub/secret.txt", ACL_TYPE_ACCESS) == 6,
	    "anchored: proj/sub/secret.txt stays rw-");
	/* Every entry: --- (or not reached, below a ---) exactly where the session masks. */
	agree = agree_on(masks, home, nest_files, 0) & agree_on(masks, home, nest_dirs, 1);
	ok(agree, "the ACL walk and the session agree on every entry of the tree");
	r = adm_acl_revoke(pdir, T_UID, NULL, &st, why, sizeof(why));
	ok(r == 0, "acl revoke: %d %s", r, why);
	ab_maskset_free(masks);
out:
	remove_all(home, nest_files, nest_dirs);
}

/* Run FN with stdout going to a file: what act() printed, malloc'd. */
static char *
captured(int (*fn)(const char *), const char *arg, int *ret)
{
	char tmpl[] = "/tmp/ab-admin-out.XXXXXX", *text = NULL;
	int fd, saved;

	fflush(stdout);
	if ((fd = mkstemp(tmpl)) == -1 || (saved = dup(STDOUT_FILENO)) == -1 ||
	    dup2(fd, STDOUT_FILENO) == -1)
		abort();
	*ret = fn(arg);
	fflush(stdout);
	if (dup2(saved, STDOUT_FILENO) == -1 || adm_read_file(tmpl, &text, NULL) != 0)
		abort();
	close(saved);
	close(fd);
	unlink(tmpl);
	text[strcspn(text, "\n")] = '\0';	/* the first line: one TAP line per check */
	return text;
}

static char wic_dir[64];

static int
wic_write(const char *path)
{
	return adm_write_if_changed(path, "one\ntwo\n", 0640, wic_dir, 0750, "write %s", path);
}

static int
rl_two(const char *path)
{
	return adm_remove_line(path, "two", "'two'", 0);
}

static int
rl_two_unlink(const char *path)
{
	return adm_remove_line(path, "two", "'two'", 1);
}

/* The two file idioms of enroll and unenroll, --dry-run included. */
static void
test_file_idioms(void)
{
	char top[] = "/tmp/ab-admin-wic.XXXXXX", path[128], *buf = NULL, *out;
	struct stat st;
	ino_t ino;
	int r;

	if (geteuid() != 0) {	/* adm_write_file makes new files root-owned */
		ok(1, "file idioms # SKIP need root");
		return;
	}
	if (mkdtemp(top) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(wic_dir, sizeof(wic_dir), "%s/d", top);
	snprintf(path, sizeof(path), "%s/f", wic_dir);

	adm_dry_run = 1;
	out = captured(wic_write, path, &r);
	ok(r == 0 && !adm_path_exists(wic_dir), "write_if_changed --dry-run: nothing created");
	ok(strstr(out, "would write ") != NULL, "  but says what it would write (%s)", out);
	free(out);
	adm_dry_run = 0;

	out = captured(wic_write, path, &r);
	ok(r == 1 && adm_read_file(path, &buf, NULL) == 0 && strcmp(buf, "one\ntwo\n") == 0,
	    "write_if_changed: directory made, file written (%d)", r);
	ok(strstr(out, "write ") == out, "  and said so (%s)", out);
	free(out);
	free(buf);
	buf = NULL;
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0640, "  with the mode asked for");
	ino = st.st_ino;
	out = captured(wic_write, path, &r);
	ok(r == 0 && out[0] == '\0' && stat(path, &st) == 0 && st.st_ino == ino,
	    "write_if_changed again: silent, file untouched");
	free(out);

	adm_dry_run = 1;
	out = captured(rl_two, path, &r);
	ok(r == 0 && strstr(out, "would remove 'two' from ") == out &&
	    adm_read_file(path, &buf, NULL) == 0 && strcmp(buf, "one\ntwo\n") == 0,
	    "remove_line --dry-run: says it, changes nothing (%s)", out);
	free(out);
	free(buf);
	buf = NULL;
	adm_dry_run = 0;
	out = captured(rl_two, path, &r);
	ok(r == 0 && adm_read_file(path, &buf, NULL) == 0 && strcmp(buf, "one\n") == 0,
	    "remove_line: the line is gone, the rest kept (%s)", out);
	free(out);
	free(buf);
	buf = NULL;
	out = captured(rl_two, path, &r);
	ok(r == 0 && out[0] == '\0', "remove_line of an absent line: silent no-op");
	free(out);

	ok(adm_write_file(path, "two  \n", 6, 0644) == 0, "a file with only the line");
	out = captured(rl_two_unlink, path, &r);
	ok(r == 0 && !adm_path_exists(path), "remove_line, unlink_empty: the empty file goes");
	free(out);
	out = captured(rl_two_unlink, path, &r);
	ok(r == 0 && out[0] == '\0', "remove_line of a missing file: silent no-op");
	free(out);
	ok(adm_write_file(path, "two\n", 4, 0644) == 0 && (out = captured(rl_two, path, &r)) &&
	    r == 0 && adm_read_file(path, &buf, NULL) == 0 && buf[0] == '\0',
	    "remove_line without unlink_empty: the empty file stays");
	free(out);
	free(buf);
	unlink(path);
	rmdir(wic_dir);
	rmdir(top);
}
/*
 * A rule as the kernel lists it (struct audit_rule_data, the list in flags): fields and
 * values, string fields' bytes concatenated in buf in field order.
 */
static struct audit_rule_data *
listed(uint32_t list, const uint32_t *fields, const uint32_t *values, const char *strings,
    size_t n)
{
	size_t blen = strlen(strings), i;
	struct audit_rule_data *d = calloc(1, sizeof(*d) + blen);

	if (d == NULL)
		abort();
	d->flags = list;
	d->action = AUDIT_ALWAYS;
	d->field_count = (uint32_t)n;
	for (i = 0; i < n; i++) {
		d->fields[i] = fields[i];
		d->values[i] = values[i];
		d->fieldflags[i] = AUDIT_EQUAL;
	}
	memcpy(d->buf, strings, blen);
	d->buflen = (uint32_t)blen;
	return d;
}

static void
test_rule_class(void)
{
	static const struct {
		uint32_t list;
		uint32_t fields[3], values[3];
		size_t n;
		const char *strings;
		int want;
		const char *what;
	} rows[] = {
		{ AUDIT_FILTER_EXIT, { AUDIT_UID, AUDIT_EXIT, AUDIT_FILTERKEY },
		  { 1234, (uint32_t)-EACCES, 8 }, 3, "agentbox", ADM_RULE_OURS,
		  "enroll's exit rule is ours" },
		{ AUDIT_FILTER_EXIT, { AUDIT_UID, AUDIT_FILTERKEY }, { 1234, 9 }, 2, "agentboxx",
		  ADM_RULE_HOST, "a key that only starts with agentbox is the host's" },
		{ AUDIT_FILTER_EXIT, { AUDIT_UID, AUDIT_FILTERKEY }, { 1234, 7 }, 2, "agentbo",
		  ADM_RULE_HOST, "a key that is a prefix of agentbox is the host's" },
		{ AUDIT_FILTER_EXIT, { AUDIT_WATCH, AUDIT_PERM, AUDIT_FILTERKEY }, { 11, 2, 8 }, 3,
		  "/etc/shadowagentbox", ADM_RULE_OURS,
		  "the key after a watch path is found at its offset" },
		{ AUDIT_FILTER_EXIT, { AUDIT_WATCH, AUDIT_FILTERKEY }, { 11, 8 }, 2,
		  "/etc/passwdidentity", ADM_RULE_HOST, "a CIS watch rule is the host's" },
		{ AUDIT_FILTER_EXIT, { AUDIT_ARCH }, { 0xc000003e }, 1, "", ADM_RULE_HOST,
		  "an exit rule without a key is the host's" },
		{ AUDIT_FILTER_TASK, { AUDIT_LOGINUID }, { 4242 }, 1, "", ADM_RULE_HOST,
		  "a task rule costs every task (the kernel counts it in audit_n_rules)" },
		{ AUDIT_FILTER_EXIT | AUDIT_FILTER_PREPEND, { AUDIT_FILTERKEY }, { 8 }, 1,
		  "agentbox", ADM_RULE_OURS, "the prepend flag does not change the list" },
		{ AUDIT_FILTER_EXCLUDE, { AUDIT_MSGTYPE }, { 1300 }, 1, "", ADM_RULE_FREE,
		  "an exclude rule costs no task" },
		{ AUDIT_FILTER_USER, { AUDIT_UID }, { 0 }, 1, "", ADM_RULE_FREE,
		  "a user-message rule costs no task" },
		{ AUDIT_FILTER_FS, { AUDIT_FSTYPE }, { 0x9fa0 }, 1, "", ADM_RULE_FREE,
		  "a filesystem rule costs no task" },
		{ AUDIT_FILTER_EXIT, { AUDIT_WATCH, AUDIT_FILTERKEY }, { 40, 8 }, 2,
		  "/etc/shadowagentbox", ADM_RULE_HOST,
		  "a string length past buf is not read (the host's)" },
	};
	struct audit_rule_data *d;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		d = listed(rows[i].list, rows[i].fields, rows[i].values, rows[i].strings,
		    rows[i].n);
		ok(adm_audit_rule_class(d) == rows[i].want, "rule class: %s", rows[i].what);
		free(d);
	}
}

/*
 * The audit scope rule's checks (pam_module/auditscope.c): which listed rule is the
 * scope, and whom it exempts.  The login's refusal rests on these.
 */
static void
test_scope_rule(void)
{
	static const uint32_t f2[] = { AUDIT_LOGINUID, AUDIT_UID, AUDIT_LOGINUID, AUDIT_UID,
	    AUDIT_FILTERKEY };
	static const uint32_t v2[] = { 994, 994, 60100, 60100, 8 };
	struct audit_rule_data *d;
	uint32_t i;

	d = listed(AUDIT_FILTER_TASK, f2, v2, "agentbox", 5);
	d->action = AUDIT_NEVER;
	for (i = 0; i < 4; i++)
		d->fieldflags[i] = AUDIT_NOT_EQUAL;
	ok(ab_auditscope_is(d), "scope: a never,task rule keyed agentbox is the scope");
	ok(adm_audit_rule_class(d) == ADM_RULE_OURS, "scope: it is agentbox's, not the host's");
	ok(ab_auditscope_exempts(d, 994) && ab_auditscope_exempts(d, 60100),
	    "scope: it exempts each agent named by loginuid");
	ok(!ab_auditscope_exempts(d, 1000), "scope: not another uid");
	d->fieldflags[2] = AUDIT_EQUAL;
	ok(!ab_auditscope_exempts(d, 60100), "scope: auid == A is not an exemption");
	d->fieldflags[2] = AUDIT_NOT_EQUAL;
	d->fields[2] = AUDIT_GID;
	ok(!ab_auditscope_exempts(d, 60100) && ab_auditscope_exempts(d, 994),
	    "scope: a uid field alone does not exempt (su forks as root)");
	d->action = AUDIT_ALWAYS;
	ok(!ab_auditscope_is(d), "scope: an always,task rule is not the scope");
	d->action = AUDIT_NEVER;
	d->flags = AUDIT_FILTER_EXIT;
	ok(!ab_auditscope_is(d), "scope: a never rule on the exit list is not the scope");
	d->flags = AUDIT_FILTER_TASK | AUDIT_FILTER_PREPEND;
	ok(ab_auditscope_is(d), "scope: the prepend flag does not change the list");
	d->values[4] = 40;	/* the key's length past buf */
	ok(!ab_auditscope_is(d), "scope: a key length past buf is not read");
	d->values[4] = 8;
	d->field_count = AUDIT_MAX_FIELDS + 7;	/* hostile: bounded by the array */
	ok(!ab_auditscope_exempts(d, 4242), "scope: a field count past the array is bounded");
	free(d);
}

/* The login's verdict on what the listing held (pam_module/auditscope.c). */
static void
test_scope_verdict(void)
{
	struct ab_scope_session sess = { .agent = 994, .auid = 994 };
	const char *why;

	ok(ab_auditscope_judge(0, 0, 0, &sess, &why) == 0 && why == NULL,
	    "verdict: no scope, no host never rule: the session goes on");
	ok(ab_auditscope_judge(1, 1, 0, &sess, &why) == 0, "verdict: a scope exempting the agent");
	ok(ab_auditscope_judge(2, 1, 0, &sess, &why) == -EPERM && strstr(why, "does not exempt"),
	    "verdict: one of two scope rules not exempting it refuses");
	ok(ab_auditscope_judge(0, 0, 1, &sess, &why) == -EACCES && strstr(why, "never,task"),
	    "verdict: a host never,task rule that may match: -EACCES (the policy's audit decides)");
	sess.auid = 1000;	/* loginuid immutable: the caller's stays */
	ok(ab_auditscope_judge(1, 1, 0, &sess, &why) == -EPERM && strstr(why, "immutable"),
	    "verdict: a scope and an immutable loginuid not the agent's refuses");
	ok(ab_auditscope_judge(0, 0, 0, &sess, &why) == 0,
	    "verdict: an immutable loginuid without a scope goes on (new_ses=no)");
}

/* A rule as the kernel lists it, on LIST, action never, every operator "=". */
static struct audit_rule_data *
never_rule(uint32_t list, const uint32_t *fields, const uint32_t *values, const char *strings,
    size_t n)
{
	struct audit_rule_data *d = listed(list, fields, values, strings, n);

	d->action = AUDIT_NEVER;
	return d;
}

/* A never,task rule of the host's own: may it take a session's audit context? */
static void
test_never_task(void)
{
	/* su run by uid 1000 (euid 0) forks the session's first task; the agent, 994. */
	static const struct ab_task_creds su = { 1000, 0, 0, 0, 994 }, agent = { 994, 994, 994,
	    994, 994 };
	static const uint32_t f1[] = { AUDIT_LOGINUID }, v1[] = { 994 };
	static const uint32_t f2[] = { AUDIT_UID, AUDIT_PID }, v2[] = { 33, 1 };
	static const uint32_t f3[] = { AUDIT_EUID }, v3[] = { 0 };
	static const uint32_t f4[] = { AUDIT_GID }, v4[] = { 4242 };
	static const uint32_t f5[] = { AUDIT_LOGINUID_SET }, v5[] = { 0 };
	static const uint32_t f6[] = { AUDIT_LOGINUID, AUDIT_FILTERKEY }, v6[] = { 994, 8 };
	static const uint32_t f7[] = { AUDIT_PPID, AUDIT_FILTERKEY }, v7[] = { 4, 8 };
	struct audit_rule_data *d;

	d = never_rule(AUDIT_FILTER_TASK, f1, v1, "", 1);
	ok(ab_audit_never_task_may_match(d, &agent), "never,task: auid=A matches A's tasks");
	d->fieldflags[0] = AUDIT_NOT_EQUAL;
	ok(!ab_audit_never_task_may_match(d, &agent) && !ab_audit_never_task_may_match(d, &su),
	    "never,task: auid!=A matches none of them");
	d->fieldflags[0] = AUDIT_GREATER_THAN_OR_EQUAL;
	d->values[0] = 1000;
	ok(!ab_audit_never_task_may_match(d, &agent), "never,task: auid>=1000 not a system uid's");
	d->fieldflags[0] = AUDIT_LESS_THAN;
	ok(ab_audit_never_task_may_match(d, &agent), "never,task: auid<1000 does");
	d->fieldflags[0] = AUDIT_BIT_MASK;
	ok(ab_audit_never_task_may_match(d, &agent), "never,task: an operator not judged may match");
	d->fieldflags[0] = AUDIT_EQUAL;
	d->action = AUDIT_ALWAYS;
	ok(!ab_audit_never_task_may_match(d, &agent), "never,task: an always rule takes nothing");
	d->action = AUDIT_NEVER;
	d->flags = AUDIT_FILTER_EXIT;
	ok(!ab_audit_never_task_may_match(d, &agent), "never,task: nor a rule on the exit list");
	free(d);
	d = never_rule(AUDIT_FILTER_TASK | AUDIT_FILTER_PREPEND, f2, v2, "", 2);
	ok(!ab_audit_never_task_may_match(d, &agent) && !ab_audit_never_task_may_match(d, &su),
	    "never,task: uid=33 and a pid: one false field is enough");
	d->values[0] = 1000;
	ok(ab_audit_never_task_may_match(d, &su) && !ab_audit_never_task_may_match(d, &agent),
	    "never,task: uid=1000 may match su's fork (its real uid), the pid not judged");
	free(d);
	d = never_rule(AUDIT_FILTER_TASK, f3, v3, "", 1);
	ok(ab_audit_never_task_may_match(d, &su) && !ab_audit_never_task_may_match(d, &agent),
	    "never,task: euid=0 matches su's fork of the first task");
	free(d);
	d = never_rule(AUDIT_FILTER_TASK, f4, v4, "", 1);
	ok(ab_audit_never_task_may_match(d, &agent), "never,task: a group field is not judged");
	free(d);
	d = never_rule(AUDIT_FILTER_TASK, f5, v5, "", 1);
	ok(!ab_audit_never_task_may_match(d, &agent), "never,task: loginuid unset is not a session");
	free(d);
	d = never_rule(AUDIT_FILTER_TASK, f6, v6, "agentbox", 2);
	d->fieldflags[0] = AUDIT_NOT_EQUAL;
	ok(!ab_audit_never_task_may_match(d, &su),
	    "never,task: the scope rule is judged as the scope, not as the host's");
	free(d);
	/* ppid's number sits among the LSM strings' but it has no bytes in buf. */
	d = never_rule(AUDIT_FILTER_TASK, f7, v7, "agentbox", 2);
	ok(ab_auditscope_is(d), "scope: a ppid field does not shift the key's offset");
	free(d);
	d = never_rule(AUDIT_FILTER_TASK, f1, v1, "", 1);
	d->fieldflags[0] = AUDIT_NOT_EQUAL;
	d->field_count = AUDIT_MAX_FIELDS + 7;	/* hostile: bounded by the array */
	ok(!ab_audit_never_task_may_match(d, &agent),
	    "never,task: a field count past the array (the rest unset fields) still judged");
	free(d);
}

/* agentbox run's reader of agentbox-audit --json lines (admin/jsonl.c). */
static void
test_jsonl(void)
{
	static const char line[] = "{\"v\":1,\"session\":659,\"node\":null,\"user\":\"a\\\"b\","
	    "\"nested\":{\"x\":[1,{\"y\":\"}\"}],\"z\":true},\"path\":\"/p/\\u00e9\\ud83d\\ude00\\n\","
	    "\"ok\":false,\"exit\":-13}";
	char out[64], small[4];

	ok(adm_jsonl_get(line, "session", out, sizeof(out)) == 2 && strcmp(out, "659") == 0,
	    "jsonl: a number is copied as written");
	ok(adm_jsonl_get(line, "node", out, sizeof(out)) == 0 && out[0] == '\0',
	    "jsonl: null is 0 and an empty string");
	ok(adm_jsonl_get(line, "user", out, sizeof(out)) == 1 && strcmp(out, "a\"b") == 0,
	    "jsonl: an escaped quote is decoded");
	ok(adm_jsonl_get(line, "path", out, sizeof(out)) == 1 &&
	    strcmp(out, "/p/\xc3\xa9\xf0\x9f\x98\x80\n") == 0,
	    "jsonl: \\u escapes and a surrogate pair become UTF-8");
	ok(adm_jsonl_get(line, "exit", out, sizeof(out)) == 2 && strcmp(out, "-13") == 0,
	    "jsonl: a negative number, after a nested object that holds a '}' in a string");
	ok(adm_jsonl_get(line, "ok", out, sizeof(out)) == 2 && strcmp(out, "false") == 0,
	    "jsonl: false");
	ok(adm_jsonl_get(line, "y", out, sizeof(out)) == -ENOENT,
	    "jsonl: a key inside a nested object is not a field of the line");
	ok(adm_jsonl_get(line, "user", small, sizeof(small)) == 1 && strcmp(small, "a\"b") == 0,
	    "jsonl: a value longer than OUT is cut, NUL-terminated");
	ok(adm_jsonl_get("{\"a\":\"x", "a", out, sizeof(out)) == -EINVAL,
	    "jsonl: an unterminated string is malformed");
	ok(adm_jsonl_get("not json", "a", out, sizeof(out)) == -EINVAL,
	    "jsonl: not an object");
	ok(adm_jsonl_get("{\"a\":\"\x01\"}", "a", out, sizeof(out)) == -EINVAL,
	    "jsonl: a raw control character is malformed");
}

int
main(void)
{
	test_lines();
	test_auditd_get();
	test_names();
	test_rule_text();
	test_rule_class();
	test_scope_rule();
	test_never_task();
	test_scope_verdict();
	test_settings_table();
	test_sftp_inprocess();
	test_acl_walk();
	test_acl_home_project();
	test_file_idioms();
	test_jsonl();
	return done_testing();
}
