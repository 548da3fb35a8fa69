/*
 * agentbox's own audit records (docs/audit-records.md): one sender for the daemon's
 * (learn.c's agentbox-learn, record.c's agentbox-mask) and the PAM module's session
 * records (pam_module/auditrec.c links this file too), and what the daemon's say about
 * the process a record is about, read from its /proc.
 *
 * The kernel stamps the daemon's own pid/uid/auid/ses on the header of what we send
 * (AUDIT_TRUSTED_APP through audit_log_user_message): the session a record is about is
 * the message's own ses=, the opener's /proc/PID/sessionid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaudit.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "maskd.h"

int
ab_maskd_audit_open(void)
{
	int fd;

	if ((fd = audit_open()) < 0)
		return -errno;
	/* libaudit's socket is not close-on-exec; nothing we exec may hold it. */
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
		int e = errno;

		audit_close(fd);
		return -e;
	}
	return fd;
}

int
ab_maskd_audit_send(int fd, int ok, const char *fmt, ...)
{
	char *msg;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n == -1)
		return -ENOMEM;
	/* libaudit appends exe= hostname= addr= terminal= res=: the daemon's, after ours. */
	n = audit_log_user_message(fd, AUDIT_TRUSTED_APP, msg, NULL, NULL, NULL, ok);
	free(msg);
	return n <= 0 ? -EIO : 0;
}

int
ab_maskd_audit_sink(void *arg, int ok, const char *msg)
{
	return ab_maskd_audit_send(*(const int *)arg, ok, "%s", msg);
}

void
ab_maskd_audit_lost(void *arg, uint32_t ses, uint64_t lost, int err)
{
	(void)arg;
	/* The reader's log is the daemon's syslog (daemon.c); a record we could not write
	 * must at least be said somewhere, and counted on the next one that gets through. */
	syslog(LOG_ERR, "ses %u: cannot write an agentbox-mask record (%s): %llu denial(s) "
	    "not on the record so far", ses, strerror(-err), (unsigned long long)lost);
}

void
ab_maskd_proc_line(pid_t pid, const char *name, char *out, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, out, len - 1);
	(void)close(fd);
	out[n > 0 ? n : 0] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

uint32_t
ab_maskd_proc_num(pid_t pid, const char *name, uint32_t fallback)
{
	char buf[16], *end;
	unsigned long v;

	ab_maskd_proc_line(pid, name, buf, sizeof(buf));
	errno = 0;
	v = strtoul(buf, &end, 10);
	/* 4294967295 is audit's "unset": no better than not knowing. */
	if (buf[0] == '\0' || *end != '\0' || errno != 0 || v >= UINT32_MAX)
		return fallback;
	return (uint32_t)v;
}

void
ab_maskd_proc_exe(pid_t pid, char *out, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if ((n = readlink(link, out, len - 1)) <= 0)
		n = 0;
	out[n] = '\0';
}
