/*
 * Unit tests of the admin tool's pure helpers (no root, no host changes): line edits
 * used on /etc/shells, cron.deny and PAM files, auditd.conf reads, user-name
 * validation, the audit rule text that must match what auditctl -l prints back, and
 * the reading of sshd -T output for an in-process sftp server (FINDINGS F8).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
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

static void
test_names(void)
{
	ok(adm_valid_username("abt_adm1"), "abt_adm1 is a valid user name");
	ok(adm_valid_username("agent-1.x"), "dots and dashes are valid");
	ok(!adm_valid_username(""), "empty name refused");
	ok(!adm_valid_username("-rf"), "leading dash refused (option injection into useradd)");
	ok(!adm_valid_username("1abc"), "leading digit refused");
	ok(!adm_valid_username("a b"), "space refused");
	ok(!adm_valid_username("a/b"), "slash refused (paths are built from the name)");
	ok(!adm_valid_username("a\nb"), "newline refused (line-based files)");
	ok(!adm_valid_username("abcdefghijklmnopqrstuvwxyz0123456"), "33 characters refused");
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

int
main(void)
{
	test_lines();
	test_auditd_get();
	test_names();
	test_rule_text();
	test_settings_table();
	test_sftp_inprocess();
	return done_testing();
}
