/*
 * agentbox policy: the one thing the privileged half (pam_agentbox.so), the unprivileged
 * half (agentbox-shell) and the tools share.  They share it as data: the PAM module
 * compiles the policy and writes a session plan; the shell reads the plan back.
 *
 * Conventions (OpenSSH sshbuf.h style): functions return 0 or -errno; they never print
 * and never exit.  Messages for people go into a struct ab_diag as "FILE:LINE: reason".
 * Every returned object is owned by the caller and freed with its _free function.
 */
#ifndef AB_POLICY_H
#define AB_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define AB_POLICY_FILE	"/etc/agentbox/agentbox.conf"
#define AB_POLICY_DIR	"/etc/agentbox/policy.d"
#define AB_DIGEST_LEN	32	/* SHA-256 */

/* Where the PAM module leaves the session plan, inside the session's mount namespace. */
#define AB_RUN_DIR	"/run/agentbox"
#define AB_PLAN_PATH	"/run/agentbox/session.plan"
/* persist = yes: the host's registry of running boxes, one root-only file per uid
 * (pam_module/box.c); the boxes' own /run hides it from them. */
#define AB_BOX_DIR	"/run/agentbox-box"

enum ab_network {
	AB_NET_NONE = 0,	/* empty network namespace, no TCP rights in Landlock */
	AB_NET_LOOPBACK,	/* own namespace with only lo up */
	AB_NET_HOST,		/* host namespace shared */
	AB_NET_TCP,		/* host namespace, Landlock allows only the listed TCP ports */
	AB_NET_PROXY,		/* own namespace, lo only; out through agentbox-netd */
};

enum ab_audit_mode {
	AB_AUDIT_REQUIRED = 0,	/* refuse the session if the audit record cannot be written */
	AB_AUDIT_BEST_EFFORT,
};

/* persist, learn: a yes/no key. */
enum ab_yesno {
	AB_NO = 0,
	AB_YES,
};

/* linger's default: a box with no login left lives on for a day. */
#define AB_LINGER_DEFAULT	86400u

#include "abutil.h"	/* struct ab_strv, ab_strv_free: lib/ */

/*
 * One [credential:NAME] a proxy-mode user names in `credential =`: the gateway on the
 * box's 127.0.0.1:(3129 + its index) adds "HEADER: PREFIX" + the contents of FILE to
 * each request and sends it to HOST:443 over TLS.  PREFIX, BASE_URL_ENV and BASE_PATH
 * may be NULL (not written); the rest are always set.
 */
struct ab_cred {
	char	*name;		/* the section's NAME */
	char	*host;		/* one host name */
	char	*header;	/* an HTTP field name */
	char	*prefix;	/* put before the secret, e.g. "Bearer " */
	char	*file;		/* absolute path of the secret (root:agentbox-netd 0640) */
	char	*env;		/* the variable the box gets a placeholder in */
	char	*base_url_env;	/* the variable the box gets the gateway's URL in */
	char	*base_path;	/* appended to the gateway's URL, e.g. "/v1" */
};
#define AB_CRED_MAX	16	/* gateways on 3129 .. 3144 */

/*
 * A compiled policy for one user: defaults merged with [user:NAME].  List keys
 * accumulate (defaults first, then the user's lines in file order, duplicates removed);
 * scalar keys take the last value, the user's over the defaults.
 * Immutable once returned.
 */
struct ab_policy {
	char		*user;
	struct ab_strv	 project;	/* absolute, existing directories; [0] is the login cwd */
	struct ab_strv	 read;		/* absolute paths: read, list, execute */
	struct ab_strv	 write;		/* absolute paths: read and write */
	struct ab_strv	 mask;		/* gitignore-style patterns, denied under projects + home */
	struct ab_strv	 protect;	/* gitignore-style patterns, read-only under projects + home */
	enum ab_network	 network;
	uint16_t	*ports;		/* AB_NET_TCP only: sorted, unique */
	size_t		 nports;
	char		*shell;		/* absolute; default "/bin/bash" */
	struct ab_strv	 env_keep;	/* variable names the shell keeps */
	int		 landlock_min_abi;	/* default 1 */
	enum ab_audit_mode audit;	/* default required */
	enum ab_yesno	 persist;	/* default no */
	uint32_t	 linger;	/* seconds; 0: until agentbox stop; default 1 day */
	/* yes: Landlock leaves files alone, and agentbox-maskd and agentbox-netd record
	 * what it and allow_host would have refused (masks and the rest still hold). */
	enum ab_yesno	 learn;		/* default no */
	/*
	 * network = proxy only (any of them with another mode is a policy error).
	 * allow_host and deny_host are "HOST[:PORT]" rules as netd/host.h parses them,
	 * with every "@NAME" replaced by the hosts of [hosts:NAME] in place; their _src
	 * twins hold, index for index, the "FILE:LINE" each rule is written at.
	 */
	struct ab_strv	 allow_host, allow_host_src;
	struct ab_strv	 deny_host, deny_host_src;
	struct ab_strv	 allow_private;	/* CIDRs as netd/addr.h parses them */
	struct ab_strv	 credential;	/* [credential:NAME] names, in order */
	struct ab_cred	*creds;		/* the same, compiled: creds[i].name == credential.v[i] */
	size_t		 ncreds;
	unsigned char	 digest[AB_DIGEST_LEN];	/* SHA-256 of the exact bytes read (digest.c) */
};

/* "none", "loopback", "host", "tcp" (the policy adds ":PORT,..."), "proxy"; "?" if
 * unknown. */
const char *ab_network_name(enum ab_network n);
/* "required", "best-effort"; "?" if unknown. */
const char *ab_audit_name(enum ab_audit_mode a);
/* "no", "yes"; "?" if unknown. */
const char *ab_yesno_name(enum ab_yesno p);
/* A duration as linger takes it, "N" (seconds) or N followed by s, m, h or d, at most
 * 365 days, into seconds in *OUT (may be NULL: check only).  0 or -EINVAL. */
int	ab_duration_parse(const char *s, uint32_t *out);

/*
 * The policy keys as data (the table itself is AB_POLICY_KEYS in policy/internal.h):
 * what agentbox check prints and what agentbox.conf(5) must list, in the same order.
 */
enum ab_key_kind {
	AB_KIND_PATHS,		/* list of absolute paths */
	AB_KIND_PATTERNS,	/* list of gitignore-style patterns */
	AB_KIND_ENV_NAMES,	/* list of environment variable names */
	AB_KIND_PATH,		/* one absolute path */
	AB_KIND_ABI,		/* one Landlock ABI version, 1 to 7 */
	AB_KIND_NETWORK,	/* enum ab_network, with ports for tcp */
	AB_KIND_AUDIT,		/* enum ab_audit_mode */
	AB_KIND_YESNO,	/* enum ab_yesno */
	AB_KIND_DURATION,	/* seconds, written N[s|m|h|d] */
	AB_KIND_HOSTS,		/* list of host rules HOST[:PORT] and @NAME host sets */
	AB_KIND_CIDRS,		/* list of CIDRs */
	AB_KIND_NAMES,		/* list of [credential:NAME] names */
	AB_KIND_SET,		/* [hosts:NAME]'s list of host rules (no member of its own) */
	AB_KIND_CRED,		/* one value of a [credential:NAME] (a member of struct ab_cred) */
};
/* Section kinds, as a mask of where a key may appear. */
#define AB_SECT_DEFAULTS	0x1u	/* [defaults] */
#define AB_SECT_USER		0x2u	/* [user:NAME] */
#define AB_SECT_HOSTS		0x4u	/* [hosts:NAME] */
#define AB_SECT_CRED		0x8u	/* [credential:NAME] */
/*
 * How repeated lines combine.  APPEND: every line adds items, defaults first,
 * duplicates removed.  LAST: the last line wins, [user:NAME] over [defaults], and
 * files must agree.
 */
enum ab_key_merge {
	AB_MERGE_APPEND,
	AB_MERGE_LAST,
};
/* ARG is the value's syntax ("PATH ...", "none | ..."), DOC one line, both as the
 * key's entry in agentbox.conf(5) starts. */
struct ab_key_info {
	const char	 *name;
	enum ab_key_kind  kind;
	unsigned int	  sections;	/* AB_SECT_* */
	enum ab_key_merge merge;
	const char	 *arg;
	const char	 *doc;
};
/* Key I (0, 1, ... in documentation order), or NULL past the last one. */
const struct ab_key_info *ab_policy_key(size_t i);
/* P's list for key I, or NULL when key I is not a list (or there is no key I). */
const struct ab_strv *ab_policy_list(const struct ab_policy *p, size_t i);
/*
 * P's value for key I as the policy would spell it ("tcp:53,443", "/bin/bash", "1",
 * "required"), malloc'd into *out.  0, -EINVAL for a list key or no key I, -ENOMEM.
 */
int	ab_policy_scalar(const struct ab_policy *p, size_t i, char **out);

/* Diagnostics: every problem found, each "FILE:LINE: reason" (or "FILE: reason"). */
struct ab_diag {
	char	**msg;
	size_t	  n;
};
void	ab_diag_free(struct ab_diag *diag);

/*
 * Load ROOT/etc/agentbox/agentbox.conf then ROOT/etc/agentbox/policy.d/[*].conf (sorted by
 * strcmp) and compile the policy of USER.  ROOT NULL means "/".  ROOT only relocates the
 * policy files (for tests): paths inside the policy are host paths.
 * Every file and directory read must be owned by root, not group- or world-writable and
 * not a symlink; files are opened O_NOFOLLOW, checked with fstat on the open fd, read
 * whole (at most 4 MiB), hashed and parsed from memory.  (A caller that is not root,
 * e.g. "agentbox check" run by a person or the unit tests, also accepts files it owns:
 * it confines nobody.)  A missing agentbox.conf is read as empty here (policy.d/ may
 * still enroll users); ab_policy_check reports it.  The digest is SHA-256 over, for each
 * file in order: its path under ROOT, a NUL, its length as 8 bytes big-endian, its bytes
 * (policy/digest.c).
 * Returns 0 with *out set; -ENOENT if USER has no [user:NAME] section (not enrolled);
 * -EINVAL if the policy is malformed (diag says where); another -errno on I/O or safety
 * failure (diag says which file).  The whole policy set is validated, not only USER's
 * sections: one bad line anywhere (syntax, unknown key or section, bad value, relative
 * path, conflict, user without any project...) refuses everyone, so that a typo never
 * silently weakens anyone's policy.  The exception is what is a fact about the host
 * rather than about the text: a `project` that does not exist, is not a directory or
 * resolves through a symlink (or cannot be resolved at all).  In [defaults] it refuses
 * everyone; in [user:NAME] it refuses NAME only (-EINVAL for NAME, reported in NAME's
 * diag): other users load as if it were not there, and their diag does not mention it.
 * ab_policy_check reports all of them.
 */
int	ab_policy_load(const char *root, const char *user, struct ab_policy **out,
	    struct ab_diag *diag);

/*
 * Validate the policy set (or the one FILE, when FILE is not NULL, read under the same
 * safety rules) and list the users it enrolls.  Returns 0 when valid, -EINVAL with diag
 * filled otherwise.  *users (may be NULL) receives the enrolled names.
 */
int	ab_policy_check(const char *root, const char *file, struct ab_strv *users,
	    struct ab_diag *diag);

/*
 * Does any policy file have a section header naming USER?  Reads the same files as
 * ab_policy_load (ROOT likewise; NULL means "/"), opened and checked under the same
 * safety rules, but only scans their lines for headers: it answers when the policy set
 * is otherwise invalid, so that a caller (the PAM module) can tell, when ab_policy_load
 * fails, whether USER is enrolled (refuse) or not (ignore).  Lenient where leniency
 * refuses more: blanks anywhere around '[', "user", ':', NAME and ']', "user" in any
 * case, text after ']', a missing ']' and an indented header all count; NAME itself must
 * equal USER exactly (never a prefix: "bob" is not in [user:bobby]).
 * Returns 1 if mentioned, 0 if not, -EINVAL for a NULL or empty USER, and another
 * -errno if any file cannot be read safely (unsafe owner or mode, symlink, too big, I/O),
 * whether or not USER was found elsewhere.  A missing agentbox.conf or policy.d is not
 * an error, as for ab_policy_load.
 */
int	ab_policy_mentions_user(const char *root, const char *user);

/*
 * Like ab_policy_load, for the one policy FILE (a path, read under the same safety
 * rules, no policy.d): what "agentbox check FILE" prints.
 */
int	ab_policy_load_file(const char *file, const char *user, struct ab_policy **out,
	    struct ab_diag *diag);

void	ab_policy_free(struct ab_policy *p);

/*
 * gitignore-style match of PATTERN against PATH, a path relative to the tree root with
 * '/' separators and no leading '/'.  IS_DIR tells whether PATH names a directory.
 * Supports '*', '**', '?', '[...]' (with '!' or '^' negation and ranges), '\' escapes,
 * a leading '/' anchoring to the root, a pattern with an inner '/' being anchored too,
 * and a trailing '/' matching directories only.  Returns 1 on match, 0 otherwise.
 * PATH also matches when one of its parent directories does (as "git check-ignore"
 * reports files inside an ignored directory), so "a/b" matches ".ssh/" for
 * PATH ".ssh/id_rsa".  An invalid pattern (never in a validated policy) matches nothing.
 * Never recurses: one pass over PATH, O(pattern x path) time, fixed memory.
 */
int	ab_pattern_match(const char *pattern, const char *path, int is_dir);

/*
 * ab_pattern_match with FLAGS; AB_PATTERN_CASEFOLD: ASCII letters match either case, in
 * literals and '[...]' classes alike (git's core.ignorecase).  The mask walk uses it for
 * mask and protect patterns (FINDINGS F3).  Unknown flags: matches nothing.
 */
#define AB_PATTERN_CASEFOLD	0x1u
int	ab_pattern_match_flags(const char *pattern, const char *path, int is_dir,
	    unsigned int flags);

/*
 * The names NAME (one path component) is a decorated copy of, as editors and backup
 * habits make them (FINDINGS F4): "#X#" and ".#X" (Emacs), ".X.swa" to ".X.swz" (vim),
 * and up to AB_UNDECORATE_DEPTH stacked trailing ones: "~", ".~N~", ".swa".."swz",
 * ".bak", ".backup", ".bk", ".orig", ".rej", ".old", ".save", ".sav", ".tmp", ".temp"
 * (any case) and ".N" (digits).  Each one is NAME[off, off + len), written to OUT
 * without duplicates ("", "." and ".." left out); returns how many.
 */
struct ab_name_span {
	size_t off, len;
};
#define AB_UNDECORATE_DEPTH	3
#define AB_UNDECORATE_MAX	6	/* 3 prefix forms + AB_UNDECORATE_DEPTH */
size_t	ab_pattern_undecorate(const char *name, struct ab_name_span out[AB_UNDECORATE_MAX]);

/* Validate one pattern; returns 0 or -EINVAL with a reason in *why (static string). */
int	ab_pattern_valid(const char *pattern, const char **why);

/*
 * The trees a session masks and enroll grants, in the one order every walker uses: the
 * agent's home (index 0; NULL when there is none), then each project of the policy.
 */
static inline size_t
ab_trees_n(const struct ab_strv *projects)
{
	return projects->n + 1;
}
static inline const char *
ab_trees_path(const char *home, const struct ab_strv *projects, size_t i)
{
	return i == 0 ? home : projects->v[i - 1];
}

/*
 * The mask set: the one "is this entry masked (or protected)?" decision, shared by the
 * PAM mask walk, enroll's ACL walk and the live-mask enforcer, so they cannot disagree.
 * It owns the whole decision: ASCII case folding (AB_PATTERN_CASEFOLD), editor/backup
 * undecoration of the last name (AB_MASKSET_UNDECORATE, ab_pattern_undecorate), the
 * prefilter, and matching relative to every tree that holds the entry: the tree it is
 * asked about, every tree nested in it along the path, and every tree enclosing it (a
 * project inside the home is matched relative to the project and to the home).  Trees
 * are compared as path strings; a tree is strictly inside another when its path is the
 * other's followed by '/'.
 *
 * ab_maskset_new: PATTERNS (validated ones), HOME (may be NULL) and PROJECTS are kept,
 * not copied: they must outlive the set.  0, -EINVAL (unknown flag), -ENOMEM,
 * -ENAMETOOLONG.  A set is read-only once made: threads may share it.
 */
#define AB_MASKSET_UNDECORATE	0x100u	/* also a last name with a decoration removed */
/* The flags of the two sets every walker makes: masks also catch an editor's or a backup
 * habit's copy (FINDINGS F4); protects do not (a writable ".bashrc~" runs nowhere). */
#define AB_MASKSET_MASKS	(AB_PATTERN_CASEFOLD | AB_MASKSET_UNDECORATE)
#define AB_MASKSET_PROTECTS	AB_PATTERN_CASEFOLD
/*
 * How deep a walker of these trees goes before it fails: the PAM walk holds one fd per
 * level inside sshd or su, and a tree the session cannot walk refuses every login, so
 * enroll granting deeper would only hand out access no session can use.
 */
#define AB_WALK_MAX_DEPTH	128
struct ab_maskset;
int	ab_maskset_new(const struct ab_strv *patterns, const char *home,
	    const struct ab_strv *projects, unsigned int flags, struct ab_maskset **out);
void	ab_maskset_free(struct ab_maskset *m);
/*
 * For a walker: is REL (relative to tree TREE, '/'-separated, no leading '/', no "."
 * or ".." components) masked?  IS_DIR: whether REL is a directory.  Contract: every
 * parent directory of REL inside TREE was asked first and got 0 (a walk never enters a
 * masked directory); only then is the answer exact.  "" (the tree's root) is masked
 * only when an enclosing tree masks it.  1, 0, or -EINVAL / -ENAMETOOLONG (callers
 * fail closed).
 */
int	ab_maskset_match(const struct ab_maskset *m, size_t tree, const char *rel, int is_dir);
/* One path, no walk (the live enforcer): REL's parents are asked first, as a walk
 * would.  Same results as ab_maskset_match. */
int	ab_maskset_match_path(const struct ab_maskset *m, size_t tree, const char *rel,
	    int is_dir);

/*
 * The session plan: the compiled policy plus what the PAM module learnt building the
 * world.  Written by the PAM module to AB_PLAN_PATH (root-owned, 0444, read-only mount),
 * read by agentbox-shell.  The serialised form is line-oriented text, versioned
 * ("agentbox-plan 1"), with escaped values, so a person can cat it.
 */
struct ab_plan {
	struct ab_policy *policy;
	uid_t		 uid;
	gid_t		 gid;
	char		*home;		/* the user's home directory */
	char		*service;	/* PAM_SERVICE: su, sshd, sudo, ... */
	char		*tty;		/* PAM_TTY or "" */
	char		*rhost;		/* PAM_RHOST or "" */
	uint32_t	 audit_session;	/* /proc/self/sessionid after the module ran */
	uint64_t	 ns_mnt, ns_pid, ns_net, ns_ipc, ns_uts;	/* namespace inode numbers */
	uint64_t	 started;	/* CLOCK_REALTIME seconds */
	uint32_t	 masks;		/* how many mask mounts the world has */
	uint32_t	 protects;	/* how many read-only protect mounts */
};

/*
 * grants.c: what a box may touch on the filesystem, the one list agentbox-shell's
 * Landlock ruleset and a learning session's recorder (agentbox-maskd) both ask.  Rights
 * are abstract; shell/landlock.c maps each to Landlock's access bits.
 */
#define AB_FS_READ	0x01u	/* read a file */
#define AB_FS_LIST	0x02u	/* read a directory */
#define AB_FS_EXEC	0x04u	/* execute a file */
#define AB_FS_WRITE	0x08u	/* write a file */
#define AB_FS_IOCTL	0x10u	/* a device's ioctls */
#define AB_FS_TREE	0x20u	/* make, remove, rename, link, truncate: a build tree's rest */
/* Make a socket file: only in the box's own trees (/tmp, /var/tmp, /dev/shm,
 * /run/user/UID).  In the home or a project, which every box of the user shares, one box
 * could hand another an fd by SCM_RIGHTS, and an fd of a mount of a box that has ended
 * reaches what its masks covered (the masks went with that box's mounts). */
#define AB_FS_SOCK	0x40u

struct ab_fs_sets {
	const struct ab_strv	*read, *write, *project;
	const char		*home;		/* NULL: none */
	uid_t			 uid;		/* for /run/user/UID */
};

/* FN(CTX, PATH, RIGHTS) for each grant, in a fixed order; stops at FN's first non-zero. */
typedef int (*ab_fs_grant_fn)(void *ctx, const char *path, unsigned int rights);
int	ab_fs_grants(const struct ab_fs_sets *s, ab_fs_grant_fn fn, void *ctx);
/* The rights the grants give at PATH (absolute, resolved): the union of those on or
 * above it, by whole path components, as Landlock unions the rules on the way down. */
unsigned int	ab_fs_rights_at(const struct ab_fs_sets *s, const char *path);

/* Serialise PLAN; *buf is malloc'd and NUL-terminated, *len excludes the NUL. */
int	ab_plan_serialize(const struct ab_plan *plan, char **buf, size_t *len);

/*
 * Parse a serialised plan.  Strict: unknown keys, missing keys, bad escapes, trailing
 * garbage and a version other than 1 are -EINVAL.  Needs no inih and no nettle, so
 * agentbox-shell can link it statically.
 */
int	ab_plan_parse(const char *buf, size_t len, struct ab_plan **out);

void	ab_plan_free(struct ab_plan *plan);

/*
 * SHA-256 of P as the user's policy in force (every key of [defaults] and [user:NAME],
 * compiled; not where each line is written): what a persistent box is kept by, so a
 * change to another user's section does not end it.  0 or -ENOMEM.  P->digest is the
 * files' (what the audit records name).
 */
int	ab_policy_user_digest(const struct ab_policy *p, unsigned char out[AB_DIGEST_LEN]);
/* Hex of a digest into OUT (2 * AB_DIGEST_LEN + 1 bytes). */
void	ab_digest_hex(const unsigned char digest[AB_DIGEST_LEN], char *out);

#endif /* AB_POLICY_H */
