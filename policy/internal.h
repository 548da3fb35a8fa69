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

/*
 * The policy keys, one row each, in the order agentbox.conf(5) documents them.  Every
 * place that handles keys expands this list (as OpenSSH's servconf.h SSHCONF_* rows are
 * expanded in servconf.c): the parser's enum, names, "unknown key" hint, validation and
 * merging (parse.c), freeing, the key list and values agentbox check prints
 * (compiled.c), and the session plan's write and read order (plan.c: the scalars in
 * row order, then the lists in row order).  An X-macro rather than a const array with
 * offsetof: each expansion names the struct member directly, so the compiler checks its
 * type against the kind's code, and the static shell (plan.c, musl) never references
 * the parser's validators.  Adding a key is one row plus its mechanism: its member in
 * struct ab_policy, and for a new kind that kind's code in each file (the compiler
 * points at each place: an undefined <OP>_<KIND> macro, an enum case not handled).  A
 * new section kind ([credential:NAME], [hosts:NAME]) is one AB_SECT_* bit, its header
 * in parse.c's section_line(), and its keys' rows: the parser refuses a key in a
 * section its SECTIONS column leaves out.
 *
 *   X(ID, NAME, KIND, MEMBER, SECTIONS, MERGE, VALID, ARG, DOC)
 *   ID        AB_KEY_<ID>
 *   NAME      the key as written in the policy and in the plan
 *   KIND      AB_KIND_<KIND>: the value's syntax, which the parser and the plan
 *             reader check
 *   MEMBER    its member of struct ab_policy
 *   SECTIONS  AB_SECT_* where it may appear
 *   MERGE     AB_MERGE_*: how repeated lines combine
 *   VALID     parse.c's extra check of a value against the host, or NULL
 *   ARG, DOC  struct ab_key_info: the value's syntax and one line, which
 *             agentbox.conf(5) heads and opens the key's entry with
 *             (tests/unit/policy_check_keys.t holds the page to them)
 */
#define AB_SECT_POLICY	(AB_SECT_DEFAULTS | AB_SECT_USER)
#define AB_POLICY_KEYS(X) AB_USER_KEYS(X) AB_SET_KEYS(X) AB_CRED_KEYS(X)
#define AB_USER_KEYS(X) \
	X(PROJECT, "project", PATHS, project, AB_SECT_POLICY, AB_MERGE_APPEND, \
	    check_project, "DIR ...", \
	    "Directories the agent works in: read, write, create, remove, rename.") \
	X(READ, "read", PATHS, read, AB_SECT_POLICY, AB_MERGE_APPEND, NULL, \
	    "PATH ...", "Paths the session may read, list and execute.") \
	X(WRITE, "write", PATHS, write, AB_SECT_POLICY, AB_MERGE_APPEND, NULL, \
	    "PATH ...", "Paths the session may read and write.") \
	X(MASK, "mask", PATTERNS, mask, AB_SECT_POLICY, AB_MERGE_APPEND, NULL, \
	    "PATTERN ...", "Secrets: what matches is denied, by every name.") \
	X(PROTECT, "protect", PATTERNS, protect, AB_SECT_POLICY, AB_MERGE_APPEND, NULL, \
	    "PATTERN ...", "Paths that stay read-only even inside a writable tree.") \
	X(NETWORK, "network", NETWORK, network, AB_SECT_POLICY, AB_MERGE_LAST, NULL, \
	    AB_ENUM_ARG(AB_NETWORK_MODES), "What the session may reach on the network.") \
	X(ALLOW_HOST, "allow_host", HOSTS, allow_host, AB_SECT_POLICY, AB_MERGE_APPEND, \
	    NULL, "HOST[:PORT] ...", \
	    "With network = proxy: the hosts the session may reach, by name.") \
	X(DENY_HOST, "deny_host", HOSTS, deny_host, AB_SECT_POLICY, AB_MERGE_APPEND, \
	    NULL, "HOST[:PORT] ...", \
	    "With network = proxy: hosts refused even where an allow_host matches.") \
	X(ALLOW_PRIVATE, "allow_private", CIDRS, allow_private, AB_SECT_POLICY, \
	    AB_MERGE_APPEND, NULL, "CIDR ...", \
	    "With network = proxy: private addresses an allowed name may resolve to.") \
	X(CREDENTIAL, "credential", NAMES, credential, AB_SECT_POLICY, AB_MERGE_APPEND, \
	    NULL, "NAME ...", \
	    "With network = proxy: secrets the host adds to the session's requests.") \
	X(SHELL, "shell", PATH, shell, AB_SECT_POLICY, AB_MERGE_LAST, NULL, "PATH", \
	    "The real shell the session runs once it is locked.") \
	X(ENV_KEEP, "env_keep", ENV_NAMES, env_keep, AB_SECT_POLICY, AB_MERGE_APPEND, \
	    NULL, "NAME ...", \
	    "Environment variables the session keeps beyond the fixed allow-list.") \
	X(LANDLOCK_MIN_ABI, "landlock_min_abi", ABI, landlock_min_abi, AB_SECT_POLICY, \
	    AB_MERGE_LAST, NULL, "N", \
	    "Refuse the session when the kernel's Landlock ABI is below N.") \
	X(AUDIT, "audit", AUDIT, audit, AB_SECT_POLICY, AB_MERGE_LAST, NULL, \
	    AB_ENUM_ARG(AB_AUDIT_MODES), "Whether a session must be on the audit record.") \
	X(PERSIST, "persist", YESNO, persist, AB_SECT_POLICY, AB_MERGE_LAST, NULL, \
	    AB_ENUM_ARG(AB_YESNO_MODES), \
	    "Whether the box outlives the login that built it; later logins join it.") \
	X(LINGER, "linger", DURATION, linger, AB_SECT_POLICY, AB_MERGE_LAST, NULL, \
	    "N[s|m|h|d]", "With persist = yes: how long a box with no login left lives on.") \
	X(LEARN, "learn", YESNO, learn, AB_SECT_POLICY, AB_MERGE_LAST, NULL, \
	    AB_ENUM_ARG(AB_YESNO_MODES), \
	    "Record reads, writes and hosts outside the policy instead of refusing them.")
/* [hosts:NAME]: no member of struct ab_policy; "@NAME" expands to its hosts in place. */
#define AB_SET_KEYS(X) \
	X(SET_HOST, "host", SET, -, AB_SECT_HOSTS, AB_MERGE_APPEND, NULL, \
	    "HOST[:PORT] ...", "The hosts @NAME stands for, as allow_host takes them.")
/*
 * [credential:NAME]: MEMBER is a member of struct ab_cred; proxy.c checks each value's
 * syntax (ab_proxy_value: a host name's case, a prefix's quotes).  Each key at most
 * once per section; which are required: ab_cred_key_required().
 */
#define AB_CRED_KEYS(X) \
	X(CRED_HOST, "host", CRED, host, AB_SECT_CRED, AB_MERGE_LAST, NULL, "HOST", \
	    "The one host the secret is for: the gateway sends it to HOST:443 over TLS.") \
	X(CRED_HEADER, "header", CRED, header, AB_SECT_CRED, AB_MERGE_LAST, NULL, \
	    "NAME", "The HTTP header field that carries the secret.") \
	X(CRED_PREFIX, "prefix", CRED, prefix, AB_SECT_CRED, AB_MERGE_LAST, NULL, \
	    "TEXT", "Text put before the secret in the header (optional).") \
	X(CRED_FILE, "file", CRED, file, AB_SECT_CRED, AB_MERGE_LAST, NULL, "PATH", \
	    "The file holding the secret, read by agentbox-netd.") \
	X(CRED_ENV, "env", CRED, env, AB_SECT_CRED, AB_MERGE_LAST, NULL, "NAME", \
	    "The variable the session gets a placeholder in, never the secret.") \
	X(CRED_BASE_URL_ENV, "base_url_env", CRED, base_url_env, AB_SECT_CRED, \
	    AB_MERGE_LAST, NULL, "NAME", \
	    "The variable the session gets the gateway's URL in (optional).") \
	X(CRED_BASE_PATH, "base_path", CRED, base_path, AB_SECT_CRED, AB_MERGE_LAST, \
	    NULL, "PATH", "Appended to the gateway's URL (optional).")

enum ab_key {
#define AB_KEY_ENUM(ID, ...) AB_KEY_##ID,
	AB_POLICY_KEYS(AB_KEY_ENUM)
#undef AB_KEY_ENUM
	AB_KEY_N
};

/* AB_KIND_DURATION's values: 0 to this many seconds (a year). */
#define AB_DURATION_MAX		(365u * 86400u)

/* AB_KIND_ABI's values: 1 to this (the newest Landlock ABI agentbox knows). */
#define AB_LANDLOCK_ABI_MAX	7

/* The kinds whose lines hold blank-separated items, kept in a struct ab_strv. */
static inline int
ab_kind_is_list(enum ab_key_kind k)
{
	return k == AB_KIND_PATHS || k == AB_KIND_PATTERNS || k == AB_KIND_ENV_NAMES ||
	    k == AB_KIND_HOSTS || k == AB_KIND_CIDRS || k == AB_KIND_NAMES || k == AB_KIND_SET;
}

/* The keys a [credential:NAME] must have (the rest are optional). */
static inline int
ab_cred_key_required(enum ab_key k)
{
	return k == AB_KEY_CRED_HOST || k == AB_KEY_CRED_HEADER || k == AB_KEY_CRED_FILE ||
	    k == AB_KEY_CRED_ENV;
}

/* Free C's members (not C itself). */
void	ab_cred_free(struct ab_cred *c);

/* A [hosts:NAME] or [credential:NAME] name: [A-Za-z0-9][A-Za-z0-9._-]*, <= 64 bytes. */
int	ab_set_name_valid(const char *name);
/* An HTTP field name (RFC 9110 token), <= 64 bytes. */
int	ab_header_name_valid(const char *name);
/* A base_path: "/" then URL path characters (RFC 3986 pchar, no '%'), <= 255 bytes. */
int	ab_url_path_valid(const char *path);
/* A credential prefix: printable ASCII, spaces allowed, <= 64 bytes. */
int	ab_cred_prefix_valid(const char *prefix);

/* Key K's list in P (NULL when K is not a list): for parse.c's merging and plan.c. */
struct ab_strv *ab_policy_strv(struct ab_policy *p, enum ab_key k);
/* The "FILE:LINE" twin of key K's list (allow_host_src ...), or NULL when it has none. */
struct ab_strv *ab_policy_src(struct ab_policy *p, enum ab_key k);

/*
 * The names of the enum kinds' values, the only place they are spelt: X(VALUE, NAME,
 * SUFFIX), SUFFIX being what the policy writes after the name (the plan writes the
 * name alone, and the ports as lines of their own).
 */
#define AB_NETWORK_MODES(X) \
	X(AB_NET_NONE, "none", "") X(AB_NET_LOOPBACK, "loopback", "") \
	X(AB_NET_HOST, "host", "") X(AB_NET_TCP, "tcp", ":PORT[,PORT...]") \
	X(AB_NET_PROXY, "proxy", "")
#define AB_AUDIT_MODES(X) \
	X(AB_AUDIT_REQUIRED, "required", "") X(AB_AUDIT_BEST_EFFORT, "best-effort", "")
#define AB_YESNO_MODES(X) X(AB_NO, "no", "") X(AB_YES, "yes", "")
/* "none | loopback | host | tcp:PORT[,PORT...]": a string constant, " | " cut off. */
#define AB_ENUM_ALT(VALUE, NAME, SUFFIX) " | " NAME SUFFIX
#define AB_ENUM_ARG(MODES) (&(MODES(AB_ENUM_ALT))[3])

/*
 * Value I (0, 1, ...) of enum kind K, its SUFFIX in *suffix (may be NULL); NULL past
 * the last value or for a kind that is not an enum.
 */
const char *ab_kind_value(enum ab_key_kind k, unsigned int i, const char **suffix);

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
