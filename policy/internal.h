/*
 * Internal helpers shared by the policy/ sources.  Not part of the API in policy.h:
 * other directories must not include this file.
 */
#ifndef AB_POLICY_INTERNAL_H
#define AB_POLICY_INTERNAL_H

#include <stddef.h>
#include "policy.h"

#define AB_PATTERN_MAX		4096		/* bytes in one mask/protect pattern */
#define AB_POLICY_FILE_MAX	(4u << 20)	/* refuse policy files bigger than 4 MiB */

/* String vectors (ab_strv_*) and the user-name rule (ab_user_name_valid): lib/abutil.h. */

/* Append "fmt..." to DIAG.  0 or -ENOMEM (the message is then lost, the caller fails). */
int	ab_diag_add(struct ab_diag *diag, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Names shared by the parser, the plan and agentbox check. */
const char *ab_network_name(enum ab_network n);
const char *ab_audit_name(enum ab_audit_mode a);

/* A valid environment variable name: [A-Za-z_][A-Za-z0-9_]*, at most 255 bytes. */
int	ab_env_name_valid(const char *name);

/* SHA-256 of the policy files (digest.c, nettle). */
struct ab_digest_ctx;
int	ab_digest_begin(struct ab_digest_ctx **ctx);
int	ab_digest_file(struct ab_digest_ctx *ctx, const char *path, const char *buf, size_t len);
int	ab_digest_end(struct ab_digest_ctx *ctx, unsigned char out[AB_DIGEST_LEN]);
void	ab_digest_abort(struct ab_digest_ctx *ctx);

/*
 * A policy set being read (parse.c): every file's lines, validated one by one, then
 * compiled per user.  Problems go to DIAG as "FILE:LINE: reason" and are counted;
 * reading goes on after a bad line so that every error is reported at once.
 */
struct ab_pset;
int	ab_pset_new(struct ab_diag *diag, struct ab_pset **out);
void	ab_pset_free(struct ab_pset *ps);
/*
 * Load for USER only (before parsing; USER must outlive PS): a problem that is a fact
 * about the host rather than the text (a project directory missing, not a directory,
 * reached through a symlink) then counts only in [defaults] and [user:USER], not in
 * another user's section.  Without it (ab_policy_check) every problem counts.
 */
void	ab_pset_set_user(struct ab_pset *ps, const char *user);
/* 0 if nothing went wrong so far, else the first non-policy -errno, else -EINVAL. */
int	ab_pset_status(const struct ab_pset *ps);
/* Count a problem found outside parse.c (unsafe file, I/O error) and remember R. */
void	ab_pset_fail(struct ab_pset *ps, int r, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* Parse one file's bytes; DISPLAY names it in messages.  0 or -ENOMEM. */
int	ab_pset_parse(struct ab_pset *ps, const char *display, const char *buf, size_t len);
/*
 * Check the whole set (conflicts across files, users without a project).  With USER,
 * build that user's policy into *out (NULL when USER has no section).  With USERS,
 * list the enrolled names.  Returns 0 when valid, -EINVAL when any problem was found
 * (in parsing or here), or the first other -errno given to ab_pset_fail().
 */
int	ab_pset_compile(struct ab_pset *ps, const unsigned char digest[AB_DIGEST_LEN],
	    const char *user, struct ab_policy **out, struct ab_strv *users);

#endif /* AB_POLICY_INTERNAL_H */
