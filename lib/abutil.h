/*
 * libabutil: the small helpers every agentbox program shares, written once.
 *
 *   UTF-8 decoding, terminal-safe text and JSON strings (text.c), string vectors
 *   (strv.c), the user-name rule (names.c), write_all (io.c).
 *
 * libc only: agentbox-shell links it statically against musl, pam_agentbox.so inside
 * sshd.  No global state, no exit, no messages: functions return 0 or -errno, and the
 * text writers write only to the stream the caller hands them.
 */
#ifndef AB_ABUTIL_H
#define AB_ABUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ---- UTF-8 (RFC 3629) ---- */

/*
 * Decode the UTF-8 sequence that starts at P, of which N > 0 bytes are readable.
 * Returns its length (1 to 4) and stores the code point in *CP; returns 0, *CP
 * untouched, when the bytes at P start no valid sequence: a stray continuation byte,
 * a truncated sequence, an overlong form, a UTF-16 surrogate (U+D800..U+DFFF) or a
 * value beyond U+10FFFF.  A NUL byte is U+0000, of length 1.
 */
size_t	ab_utf8_decode(const void *p, size_t n, uint32_t *cp);

/* 1 if P[0..N) is valid UTF-8 from end to end (NUL bytes included), else 0. */
int	ab_utf8_valid(const void *p, size_t n);

/* ---- text for a human's terminal ---- */

/*
 * 1 if code point CP must not reach a terminal raw: C0 controls, DEL, C1 controls
 * (U+0080..U+009F, which some terminals obey as ESC sequences), and the bidirectional
 * controls that reorder what the reader sees: U+200E/U+200F, the embeddings and
 * overrides U+202A..U+202E and the isolates U+2066..U+2069.
 */
int	ab_text_cp_unsafe(uint32_t cp);

/* Flag of ab_text_put_safe: write '\' as "\\", so every escape in the output is ours. */
#define AB_TEXT_ESC_BACKSLASH	0x1u

/*
 * Write P[0..N) to F so that it can neither drive a terminal nor hide what it says:
 * invalid UTF-8 bytes and unsafe ASCII (see ab_text_cp_unsafe) become \xNN, other
 * unsafe code points \u{NNNN}; with AB_TEXT_ESC_BACKSLASH, '\' becomes "\\".  With
 * WIDTH > 0 at most WIDTH columns are written (a character is one column, an escape
 * as many as its length) and text that does not fit is cut and ends in "…".
 * Returns the columns written.  Write errors stay in ferror(F) for the caller.
 */
size_t	ab_text_put_safe(FILE *f, const char *p, size_t n, size_t width, unsigned flags);

/*
 * Write P[0..N) to F as one JSON string, quotes included, that is always valid
 * (RFC 8259): '"', '\', C0 controls and DEL escaped, U+2028/U+2029 as \u2028/\u2029
 * (JavaScript embedders break on them raw), each byte that is not part of valid UTF-8
 * replaced by \ufffd.  Write errors stay in ferror(F) for the caller.
 */
void	ab_text_put_json(FILE *f, const char *p, size_t n);

/* ---- string vectors ---- */

/* A list of strings, each malloc'd; v[n] is NULL once anything was pushed (argv shape). */
struct ab_strv {
	char	**v;
	size_t	  n;
};

/* Append a copy of S (of its first N bytes).  0 or -ENOMEM (SV is then unchanged). */
int	ab_strv_push(struct ab_strv *sv, const char *s);
int	ab_strv_push_n(struct ab_strv *sv, const char *s, size_t n);
/* Free every string and the vector; SV is left empty and reusable.  NULL is a no-op. */
void	ab_strv_free(struct ab_strv *sv);
/* Push a copy of every string of FROM onto SV, in order.  0 or -ENOMEM (SV may then
 * hold some of them: the caller frees it). */
int	ab_strv_append(struct ab_strv *sv, const struct ab_strv *from);
/* 1 if SV holds a string equal to S, else 0. */
int	ab_strv_has(const struct ab_strv *sv, const char *s);
/* Sort SV's strings by strcmp; then ab_strv_sorted_has finds S by binary search. */
void	ab_strv_sort(struct ab_strv *sv);
int	ab_strv_sorted_has(const struct ab_strv *sv, const char *s);
/* Remove later duplicates in place, keeping first occurrences in order.  0 or -ENOMEM. */
int	ab_strv_uniq(struct ab_strv *sv);
/* ab_strv_uniq, dropping TWIN's items (same count, may be NULL) with SV's: SV's first
 * occurrence and its twin stay.  -EINVAL when the counts differ. */
int	ab_strv_uniq_twin(struct ab_strv *sv, struct ab_strv *twin);

/* ---- names ---- */

/*
 * 1 if NAME is a user name agentbox accepts, else 0: [A-Za-z_][A-Za-z0-9._-]{0,31}
 * (POSIX portable names, first character not a digit, '-' or '.').  The one rule for
 * the policy's [user:NAME], the session plan and agentbox enroll: a name one of them
 * takes and another refuses would make an account nobody can confine.
 */
int	ab_user_name_valid(const char *name);

/* ---- I/O ---- */

/* Write all LEN bytes of BUF to FD, retrying short writes and EINTR.  0 or -errno. */
int	ab_io_write_all(int fd, const void *buf, size_t len);
/* One read of the file at PATH into BUF[0..CAP), NUL-terminated: what a procfs file
 * gives whole on its first read.  The bytes read (0: empty), or -errno. */
ssize_t	ab_read_small(const char *path, char *buf, size_t cap);
/* The path of FD as the kernel shows it (readlink of /proc/self/fd/FD), NUL-terminated
 * in OUT[0..OUTLEN).  0, -ENAMETOOLONG, or -errno. */
int	ab_fd_path(int fd, char *out, size_t outlen);
/* Split one mountinfo LINE in place into its first five fields (F[0] mount id, F[2]
 * major:minor, F[4] mount point, its octal escapes undone: \040 space, \011 tab, \012
 * newline, \134 backslash).  0, or -EINVAL for a short line. */
int	ab_mountinfo_fields(char *line, char *f[5]);

/* FNV-1a of P[0..N): the hash of every table here that hashes bytes. */
static inline uint64_t
ab_fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ULL;

	while (n-- > 0)
		h = (h ^ *b++) * 1099511628211ULL;
	return h;
}

/* ---- file descriptors passed on a unix socket (fdpass.c) ---- */

#define AB_FDPASS_MAX	32	/* fds in one datagram, either way */
/* Send MSG[0..LEN) with the N fds at FDS (SCM_RIGHTS; N may be 0) as one datagram,
 * MSG_NOSIGNAL.  0, -E2BIG (N over AB_FDPASS_MAX), -EMSGSIZE (sent short) or -errno. */
int	ab_send_fds(int sock, const void *msg, size_t len, const int *fds, size_t n);
/* Receive one datagram into BUF[0..LEN) and the fds of its first SCM_RIGHTS message,
 * close-on-exec, at most MAX (<= AB_FDPASS_MAX) of them into FDS, *N set.  Every fd
 * not taken (past MAX, or in another SCM_RIGHTS message) is closed.  The datagram's
 * length (0: the peer hung up), -E2BIG when the datagram or its fds did not fit (none
 * kept then), or -errno. */
ssize_t	ab_recv_fds(int sock, void *buf, size_t len, int *fds, size_t max, size_t *n);

/* ---- the loopback interface (loopback.c) ---- */

/* lo up in the network namespace the calling thread is in, if it is not.  0 or -errno. */
int	ab_lo_up(void);

/* ---- processes, as root reads them in /proc (proc.c) ---- */

/* The pid (in our pid namespace) of the process PIDFD refers to, from
 * /proc/self/fdinfo.  0, -EBADF (not a pidfd, or its process is gone) or -errno. */
int	ab_pidfd_pid(int pidfd, pid_t *pid);
/* /proc/PID/status into BUF[0..LEN), NUL-terminated.  0, -ESRCH (gone) or -errno. */
int	ab_proc_status(int pid, char *buf, size_t len);
/* The value of "KEY:" in a status text, its leading blanks skipped.  0 or -ENOENT. */
int	ab_status_field(const char *status, const char *key, char *out, size_t len);
/* 1 if the status's real and effective uids are both UID (a process of that user), 0
 * if not, -EPROTO if the Uid line cannot be read.  A root process that borrows the uid
 * for a moment (sshd and PAM modules reading the user's files with seteuid or setfsuid)
 * keeps its real uid: it is root's, and the user cannot ptrace or steer it. */
int	ab_status_is_uid(const char *status, unsigned uid);
/* 1 if PID is a box's pid 1: root, named agentbox-init, pid 1 of its pid namespace,
 * not a zombie.  0 otherwise (gone included). */
int	ab_proc_is_box_init(int pid);
/* 1 if PID lives in a box (the mount namespace of the box pid 1 of its pid namespace),
 * 0 if not (HOST_PIDNS, the inode of the caller's pid namespace, is no box's), -ESRCH
 * if it is gone, -errno if it cannot be told. */
int	ab_proc_boxed(int pid, ino_t host_pidns);
/* Call FN for each process of UID (any of its four uids) outside a box, or whose place
 * cannot be told, with its pid and name, until FN returns non-zero (returned).  Reads
 * every process's status: grows with the host, never on a login's path. */
int	ab_proc_unboxed_each(unsigned uid, int (*fn)(void *ctx, int pid, const char *comm),
	    void *ctx);

#endif /* AB_ABUTIL_H */
