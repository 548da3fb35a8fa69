/*
 * agentbox-audit suggest: turn what a user's sessions were denied into a policy drop-in
 * that `agentbox check` accepts as it is.
 *
 * Three steps, so that the same records always give the same file:
 *   1. collect: every denial the filters select goes into a bounded table keyed by what
 *      was denied (kind, access, object, port, reason), with its count;
 *   2. judge: each distinct denial against the user's compiled policy (policy/'s
 *      loader, its one mask matcher, netd/host.h's rule parser): a `read`, `write` or
 *      `allow_host` line, or a reason it is not suggested;
 *   3. print: lines grouped, folded (a write covers a read of the same tree) and sorted.
 *
 * What it never writes: `/`, a top-level directory or a directory that holds tools of
 * many kinds (/var/lib, /opt, ~/.cache...), the whole home or anything above it or above
 * a project, another user's home, a path a mask or protect pattern of the user matches
 * (those are the policy doing its job), a host the proxy refused for a reason other than
 * "no rule", an address instead of a name, or a value a policy line cannot hold as
 * written (control characters, blanks other than a space, quotes, ';', '#', '\', "..").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abutil.h"
#include "host.h"	/* netd/: the host rule parser the policy uses */
#include "policy.h"
#include "review.h"

#ifndef AB_SUGGEST_MAX
#define AB_SUGGEST_MAX	65536	/* distinct denials kept; the rest are counted */
#endif
/* Bytes of their names kept: a hostile session can make every path 4 KiB long. */
#define AB_SUGGEST_BYTES (64u << 20)
#define USERS_MAX	16
#define SESSIONS_MAX	4096
#define LINE_MAX_POLICY	198	/* a policy line's bytes (inih 200 with "\n" and NUL) */
#define EXAMPLE_MAX	80	/* bytes of an example in a comment: with the longest
				 * counts and access, a comment line stays within 198 */
#define ACCESS_MAX	32
#define LOST_MAX	16	/* learning sessions named in the header; the rest counted */

/* One distinct denial: what and how often. */
struct entry {
	uint64_t	 hash;
	enum ab_kind	 kind;
	char		*access;	/* blockers, errno name, syscall or protocol */
	char		*obj;		/* path, address or host (may hold any byte) */
	size_t		 objn;
	char		*dir;		/* Landlock make/remove: the directory it names */
	size_t		 dirn;
	uint64_t	 port;		/* net: the port; else 0 */
	char		*reason;	/* net: the proxy's reason ("" for none) */
	uint64_t	 count;
};

struct ab_suggest {
	struct entry	*tab;
	size_t		 cap, n;
	uint64_t	 denials, dropped;
	size_t		 bytes;		/* names kept, against AB_SUGGEST_BYTES */
	uint64_t	 uids[USERS_MAX];
	char		 names[USERS_MAX][64];
	size_t		 nusers;
	int		 many_users;
	uint64_t	 sessions[SESSIONS_MAX];
	size_t		 nsessions;
	int		 many_sessions;
	uint64_t	 learn;		/* of the denials, would-be ones of learning sessions */
	struct learn_lost {		/* selected sessions whose learning record is short */
		uint64_t ses, uid;
		char	 user[64], reason[32];
	}		 lost[LOST_MAX];
	size_t		 nlost;
	uint64_t	 lost_more;	/* past LOST_MAX */
	int		 err;		/* -ENOMEM, sticky */
};

/* What one distinct denial becomes. */
enum key { K_NONE = -1, K_READ = 0, K_WRITE, K_HOST };
static const char *const key_name[] = { "read", "write", "allow_host" };

struct verdict {
	enum key	 key;		/* K_NONE: not suggested */
	char		*value;		/* the line's value (unescaped), or NULL */
	char		*why;		/* K_NONE: the reason, printable ASCII */
	const struct entry *e;
};

/* A line (or a reason) with its denials. */
struct group {
	enum key	 key;
	char		*value;		/* K_NONE: NULL */
	char		*why;
	uint64_t	 count, reads;
	const struct entry *example;	/* the least by ex_cmp: same records, same example */
};

/* The user's world, for judging. */
struct world {
	const char	*user;
	const char	*home;
	const struct ab_policy *p;
	struct ab_maskset *masks, *protects;
	/* The masks over the whole tree "/": what a learning session's agentbox-maskd
	 * holds outside the projects and the home (ab_maskd_decider_outside). */
	struct ab_maskset *masks_out;
	/* Paths masked there: a line over one of them uncovers it to an enforcing
	 * session, where masks hold in the projects and the home only. */
	struct ab_strv	*uncovered;
	struct ab_strv	 other_homes;
	struct ab_netd_rule *rules;
	size_t		 nrules;
};

/* ---- 1. collect ------------------------------------------------------------------------- */

int
ab_suggest_new(struct ab_suggest **out)
{
	struct ab_suggest *sg;

	if ((sg = calloc(1, sizeof(*sg))) == NULL)
		return -ENOMEM;
	sg->cap = 1024;
	if ((sg->tab = calloc(sg->cap, sizeof(*sg->tab))) == NULL) {
		free(sg);
		return -ENOMEM;
	}
	*out = sg;
	return 0;
}

void
ab_suggest_free(struct ab_suggest *sg)
{
	if (sg == NULL)
		return;
	for (size_t i = 0; i < sg->cap; i++) {
		free(sg->tab[i].access);
		free(sg->tab[i].obj);
		free(sg->tab[i].dir);
		free(sg->tab[i].reason);
	}
	free(sg->tab);
	free(sg);
}

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static int
same(const struct entry *e, enum ab_kind kind, struct ab_str access, struct ab_str obj,
    struct ab_str dir, uint64_t port, struct ab_str reason)
{
	return e->kind == kind && e->port == port && e->objn == obj.n && e->dirn == dir.n &&
	    memcmp(e->dir, dir.p, dir.n) == 0 &&
	    strlen(e->access) == access.n && memcmp(e->access, access.p, access.n) == 0 &&
	    memcmp(e->obj, obj.p, obj.n) == 0 && strlen(e->reason) == reason.n &&
	    memcmp(e->reason, reason.p, reason.n) == 0;
}

static int
grow(struct ab_suggest *sg)
{
	size_t cap = sg->cap * 2;
	struct entry *t;

	if ((t = calloc(cap, sizeof(*t))) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < sg->cap; i++) {
		size_t j;

		if (sg->tab[i].access == NULL)
			continue;
		for (j = sg->tab[i].hash & (cap - 1); t[j].access != NULL; j = (j + 1) & (cap - 1))
			;
		t[j] = sg->tab[i];
	}
	free(sg->tab);
	sg->tab = t;
	sg->cap = cap;
	return 0;
}

/* Count one distinct denial; a new one past AB_SUGGEST_MAX is counted as dropped. */
static void
count_entry(struct ab_suggest *sg, enum ab_kind kind, struct ab_str access, struct ab_str obj,
    struct ab_str dir, uint64_t port, struct ab_str reason, uint64_t n)
{
	uint64_t h;
	struct entry *e;
	size_t j;

	/* An absent value may come as { NULL, 0 }: memcmp and memcpy want a pointer. */
	if (access.n == 0)
		access.p = "";
	if (obj.n == 0)
		obj.p = "";
	if (dir.n == 0)
		dir.p = "";
	if (reason.n == 0)
		reason.p = "";
	h = fnv(fnv(fnv(fnv(fnv(0xcbf29ce484222325ULL, &kind, sizeof(kind)), access.p,
	    access.n), obj.p, obj.n), dir.p, dir.n), reason.p, reason.n) ^ port;

	for (j = h & (sg->cap - 1); sg->tab[j].access != NULL; j = (j + 1) & (sg->cap - 1))
		if (sg->tab[j].hash == h && same(&sg->tab[j], kind, access, obj, dir, port, reason)) {
			sg->tab[j].count += n;
			return;
		}
	if (sg->n >= AB_SUGGEST_MAX ||
	    sg->bytes + access.n + obj.n + dir.n + reason.n > AB_SUGGEST_BYTES) {
		sg->dropped += n;
		return;
	}
	if ((sg->n + 1) * 2 > sg->cap) {
		if (grow(sg) != 0) {
			sg->err = -ENOMEM;
			sg->dropped += n;
			return;
		}
		count_entry(sg, kind, access, obj, dir, port, reason, n);
		return;
	}
	e = &sg->tab[j];
	e->access = strndup(access.p, access.n);
	e->reason = strndup(reason.p, reason.n);
	e->obj = malloc(obj.n + 1);
	e->dir = malloc(dir.n + 1);
	if (e->access == NULL || e->reason == NULL || e->obj == NULL || e->dir == NULL) {
		free(e->access);
		free(e->reason);
		free(e->obj);
		free(e->dir);
		memset(e, 0, sizeof(*e));
		sg->err = -ENOMEM;
		sg->dropped += n;
		return;
	}
	memcpy(e->obj, obj.p, obj.n);
	e->obj[obj.n] = '\0';
	e->objn = obj.n;
	memcpy(e->dir, dir.p, dir.n);
	e->dir[dir.n] = '\0';
	e->dirn = dir.n;
	sg->bytes += access.n + obj.n + dir.n + reason.n;
	e->hash = h;
	e->kind = kind;
	e->port = port;
	e->count = n;
	sg->n++;
}

static void
note_user(struct ab_suggest *sg, uint64_t uid, const char *name)
{
	size_t i;

	for (i = 0; i < sg->nusers; i++)
		if (sg->uids[i] == uid) {
			if (sg->names[i][0] == '\0' && name != NULL)
				snprintf(sg->names[i], sizeof(sg->names[i]), "%s", name);
			return;
		}
	if (sg->nusers == USERS_MAX) {
		sg->many_users = 1;
		return;
	}
	sg->uids[i] = uid;
	snprintf(sg->names[i], sizeof(sg->names[i]), "%s", name != NULL ? name : "");
	sg->nusers++;
}

static void
note_session(struct ab_suggest *sg, uint64_t ses)
{
	if (ses == AB_UNSET32)
		return;
	for (size_t i = 0; i < sg->nsessions; i++)
		if (sg->sessions[i] == ses)
			return;
	if (sg->nsessions == SESSIONS_MAX) {
		sg->many_sessions = 1;
		return;
	}
	sg->sessions[sg->nsessions++] = ses;
}

/* The review's denial callback (ab_denial_fn): every denial the filters selected. */
void
ab_suggest_add(void *arg, const struct ab_denial *d)
{
	struct ab_suggest *sg = arg;
	struct ab_str none = { "", 0 }, obj = d->path, bad = { "malformed", 9 };

	/* --kind net hands the allowed decisions over too; of those, only a learning
	 * session's would-be denials (reason=learn opens) are judged. */
	if (d->net != NULL && d->net->allowed && !d->learn)
		return;
	sg->denials++;
	sg->learn += d->learn != 0;
	note_user(sg, d->uid, d->user);
	note_session(sg, d->ses);
	if (d->net != NULL) {
		/* A learning session's host that no allow_host matched is what a refusal for
		 * "no-rule" is in enforcing mode (docs/audit-records.md): judged the same. */
		count_entry(sg, AB_KIND_NET, d->net->proto, d->net->host, none,
		    d->net->port == AB_NET_NONE ? 0 : d->net->port,
		    d->net->malformed ? bad : d->learn ? (struct ab_str){ "no-rule", 7 } :
		    d->net->reason, d->net->attempts);
		return;
	}
	if (obj.n == 0)
		obj = d->addr;
	/* A learning record is a Landlock denial that was let through: the same entry, so
	 * the same collapsing and refusals; a malformed one is kept apart, never a line. */
	count_entry(sg, d->kind, d->access, d->kind == AB_KIND_SECCOMP ? none : obj,
	    d->kind == AB_KIND_LANDLOCK ? d->dir : none, 0, d->malformed ? bad : none,
	    1 + d->repeats);
}

/* ---- 2. judge --------------------------------------------------------------------------- */

/* P is DIR or below it (DIR "/" holds everything). */
static int
under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return p[0] == '/';
	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/* Printable ASCII for a comment: anything else as \xNN, '\' as "\\", cut at MAX bytes
 * with "..." so a comment line stays within a policy line's length. */
static void
put_ascii(FILE *f, const char *s, size_t n, size_t max)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int k = c == '\\' ? 2 : c >= 0x20 && c < 0x7f ? 1 : 4;

		if (w + (size_t)k > max) {
			fputs("...", f);
			return;
		}
		if (c == '\\')
			fputs("\\\\", f);
		else if (k == 1)
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
		w += (size_t)k;
	}
}

/* The same into a malloc'd string (for reasons that quote a path). */
static char *
ascii(const char *s, size_t n, size_t max)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	put_ascii(f, s, n, max);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char * __attribute__((format(printf, 1, 2)))
fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, f);
	r = vasprintf(&s, f, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

/*
 * A path as the kernel names it after resolution: absolute, no empty, "." or ".."
 * component (a trailing '/' is dropped: Landlock's PATH entry for a parent has one).
 * Returns a malloc'd copy, NULL with *bad set when it is not one.
 */
static char *
canonical(const char *p, size_t n, int *bad)
{
	*bad = 1;
	while (n > 1 && p[n - 1] == '/')
		n--;
	if (n == 0 || p[0] != '/' || memchr(p, '\0', n) != NULL)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, c;

		while (j < n && p[j] != '/')
			j++;
		c = j - i - 1;
		if ((c == 0 && n > 1) || (c == 1 && p[i + 1] == '.') ||
		    (c == 2 && p[i + 1] == '.' && p[i + 2] == '.'))
			return NULL;
		i = j;
	}
	*bad = 0;
	return strndup(p, n);
}

/* Bytes a policy value may hold as this tool writes it (a space is written "\ "). */
static int
value_writable(const char *v)
{
	for (const char *c = v; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || strchr("/._-+@%,=~: ", *c) != NULL))
			return 0;
	return 1;
}

/* "KEY = VALUE" as put_value writes it fits in one policy line. */
static int
line_fits(enum key k, const char *v)
{
	size_t n = strlen(key_name[k]) + 3;

	for (; *v; v++)
		n += *v == ' ' ? 2 : 1;
	return n <= LINE_MAX_POLICY;
}

/* Directories whose entries are each some tool's or package's own: a suggestion goes
 * one level below them, never to them.  Every top-level directory is one as well. */
static const char *const containers[] = {
	"/var/lib", "/var/cache", "/var/log", "/var/spool", "/var/opt", "/var/local",
	"/var/www", "/usr/local", "/usr/local/lib", "/usr/local/share", "/usr/local/libexec",
	"/usr/lib", "/usr/lib64", "/usr/libexec", "/usr/share", "/usr/src", "/run/user",
};
/* The same under the user's home. */
static const char *const home_containers[] = {
	"", "/.cache", "/.config", "/.local", "/.local/share", "/.local/state", "/.local/lib",
};

static int
is_container(const struct world *w, const char *p)
{
	size_t h = w->home != NULL ? strlen(w->home) : 0;

	if (strrchr(p, '/') == p)	/* "/" or a top-level directory */
		return 1;
	for (size_t i = 0; i < sizeof(containers) / sizeof(containers[0]); i++)
		if (strcmp(p, containers[i]) == 0)
			return 1;
	if (h == 0 || strncmp(p, w->home, h) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(home_containers) / sizeof(home_containers[0]); i++)
		if (strcmp(p + h, home_containers[i]) == 0)
			return 1;
	return 0;
}

/*
 * The line a person would write for path P: one level below the deepest container above
 * it (/srv/tool/data/x -> /srv/tool, /var/lib/tool/db -> /var/lib/tool, ~/.cache/tool/x
 * -> ~/.cache/tool).  *OUT NULL when P is a container itself (/, /srv, /var/lib).
 * 0 or -ENOMEM.
 */
static int
collapse(const struct world *w, const char *p, char **out)
{
	char *a, *slash;

	*out = NULL;
	if (is_container(w, p))
		return 0;
	if ((a = strdup(p)) == NULL)
		return -ENOMEM;
	/* Cut A back one component at a time to the deepest container; every top-level
	 * directory is one, so this ends there at the latest. */
	while ((slash = strrchr(a, '/')) != NULL && slash != a) {
		*slash = '\0';
		if (is_container(w, a)) {
			const char *end = strchr(p + strlen(a) + 1, '/');

			*out = strndup(p, end != NULL ? (size_t)(end - p) : strlen(p));
			free(a);
			return *out == NULL ? -ENOMEM : 0;
		}
	}
	free(a);
	return 0;
}

/* The tree (0 home, 1.. projects) P is in, or -1. */
static long
tree_of(const struct world *w, const char *p)
{
	for (size_t i = 0; i < ab_trees_n(&w->p->project); i++) {
		const char *t = ab_trees_path(w->home, &w->p->project, i);

		if (t != NULL && under(p, t))
			return (long)i;
	}
	return -1;
}

/* Whether SET (masks or protects) matches P as a file or as a directory: a denied path
 * may be either, so either answer counts.  Errors count as a match (fail closed). */
static int
set_matches(const struct world *w, const struct ab_maskset *set, const char *p)
{
	long t = tree_of(w, p);
	const char *root;
	const char *rel;

	if (t < 0)
		return 0;	/* masks and protects apply under the home and projects only */
	root = ab_trees_path(w->home, &w->p->project, (size_t)t);
	rel = p + strlen(root) + (strcmp(root, "/") != 0);
	if (*rel == '/')
		rel++;
	if (*rel == '\0')
		return 0;
	return ab_maskset_match_path(set, (size_t)t, rel, 0) != 0 ||
	    ab_maskset_match_path(set, (size_t)t, rel, 1) != 0;
}

/* Whether P, in no tree, is a name the masks match anywhere (file or directory). */
static int
outside_masked(const struct world *w, const char *p)
{
	if (tree_of(w, p) >= 0 || p[0] != '/' || p[1] == '\0')
		return 0;
	return ab_maskset_match_path(w->masks_out, 0, p + 1, 0) != 0 ||
	    ab_maskset_match_path(w->masks_out, 0, p + 1, 1) != 0;
}

/* Another user's home that P is in (a static or w's string), or NULL. */
static const char *
other_home(const struct world *w, const char *p)
{
	for (size_t i = 0; i < w->other_homes.n; i++)
		if (under(p, w->other_homes.v[i]))
			return w->other_homes.v[i];
	/* /home/NAME is someone's, whether or not this host's passwd names NAME. */
	if (under(p, "/home") && strcmp(p, "/home") != 0 &&
	    (w->home == NULL || !under(p, w->home)) && (w->home == NULL || !under(w->home, p)))
		return "/home";
	return NULL;
}

/* Which list covers P already: "read = X", "write = X", a project or the home. */
static char *
covered(const struct world *w, const char *p, enum key k)
{
	const struct ab_strv *lists[] = { &w->p->write, &w->p->read };

	for (size_t l = 0; l < (k == K_WRITE ? 1u : 2u); l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			if (under(p, lists[l]->v[i]))
				return fmt("already allowed by %s = %s", l == 0 ? "write" : "read",
				    lists[l]->v[i]);
	if (tree_of(w, p) >= 0)
		return fmt("already writable (%s): denied by something else",
		    tree_of(w, p) == 0 ? "the home" : "a project");
	return NULL;
}

/* Landlock's fs rights as the policy's read and write grant them (shell/landlock.c). */
static enum key
fs_key(const char *access, const char **other)
{
	static const char *const rd[] = { "fs.execute", "fs.read_file", "fs.read_dir" };
	static const char *const wr[] = { "fs.write_file", "fs.remove_dir", "fs.remove_file",
	    "fs.make_dir", "fs.make_reg", "fs.make_fifo", "fs.make_sym", "fs.refer",
	    "fs.truncate" };
	enum key k = K_READ;
	char *dup = strdup(access), *save = NULL;

	*other = NULL;
	if (dup == NULL)
		return K_NONE;
	for (char *t = strtok_r(dup, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		size_t i;
		int found = 0;

		for (i = 0; i < sizeof(rd) / sizeof(rd[0]); i++)
			found |= strcmp(t, rd[i]) == 0;
		for (i = 0; i < sizeof(wr) / sizeof(wr[0]); i++)
			if (strcmp(t, wr[i]) == 0) {
				found = 1;
				k = K_WRITE;
			}
		if (!found) {
			*other = strcmp(t, "fs.make_sock") == 0 ? "a socket file is made only in "
			    "the box's own /tmp, /var/tmp, /dev/shm or /run/user/UID, never by a "
			    "write line (one in a tree every box shares could hand another box an "
			    "fd)" : strncmp(t, "fs.", 3) == 0 ? "device access (fs.make_char, "
			    "fs.make_block, fs.ioctl_dev) is never granted by read or write" :
			    strncmp(t, "net.", 4) == 0 ? "TCP ports are network = tcp:PORT, not "
			    "a path: change that by hand" : "scopes (signals, abstract sockets) "
			    "outside the box are never granted";
			k = K_NONE;
			break;
		}
	}
	free(dup);
	return k;
}

static const char *
private_note(const char *p)
{
	static const char *const priv[] = { "/tmp", "/var/tmp", "/dev/shm", "/run/user",
	    "/proc", "/dev" };

	for (size_t i = 0; i < sizeof(priv) / sizeof(priv[0]); i++)
		if (under(p, priv[i]))
			return priv[i];
	return NULL;
}

/* A file-system denial (Landlock or DAC) of path P with rights K (K_NONE: DAC). */
static int
judge_path(const struct world *w, const struct entry *e, enum key k, struct verdict *v)
{
	const char *oh, *pv;
	char *p, *c, *s;
	int bad;

	if ((p = canonical(e->obj, e->objn, &bad)) == NULL) {
		if (!bad)
			return -ENOMEM;
		v->why = strdup("not an absolute, canonical path (a '.', '..' or empty "
		    "component, or relative)");
		return v->why == NULL ? -ENOMEM : 0;
	}
	if (set_matches(w, w->masks, p)) {
		v->why = fmt("masked: %s's mask patterns hide it", w->user);
		goto out;
	}
	if (set_matches(w, w->protects, p)) {
		v->why = fmt("protected: %s's protect patterns keep it read-only", w->user);
		goto out;
	}
	if (outside_masked(w, p)) {
		if (!ab_strv_has(w->uncovered, p) && ab_strv_push(w->uncovered, p) != 0) {
			free(p);
			return -ENOMEM;
		}
		/* Whatever stopped it (a learning session's maskd, Landlock, permissions): a
		 * line over it would uncover it, masks holding in the trees only. */
		v->why = fmt("its name matches %s's masks, which outside the projects and "
		    "the home only a learning session holds: no line for it", w->user);
		goto out;
	}
	if ((pv = private_note(p)) != NULL) {
		v->why = fmt("%s is the session's own, not the host's", pv);
		goto out;
	}
	if (e->kind == AB_KIND_DAC) {
		v->why = fmt("denied by file permissions or a read-only mount (%s), not by "
		    "the policy's read or write", e->access);
		goto out;
	}
	/* Creating or removing is a right on the directory Landlock names. */
	if (e->dirn > 0 && strcmp(e->obj, e->dir) != 0) {
		free(p);
		if ((p = canonical(e->dir, e->dirn, &bad)) == NULL) {
			if (!bad)
				return -ENOMEM;
			v->why = strdup("its directory is not an absolute, canonical path");
			return v->why == NULL ? -ENOMEM : 0;
		}
	}
	if ((oh = other_home(w, p)) != NULL) {
		if ((s = ascii(oh, strlen(oh), EXAMPLE_MAX)) != NULL)
			v->why = fmt("another user's home (%s%s)", s,
			    strcmp(oh, "/home") == 0 ? "/..." : "");
		free(s);
		goto out;
	}
	if (collapse(w, p, &c) != 0) {
		free(p);
		return -ENOMEM;
	}
	if (c == NULL) {
		if ((s = ascii(p, strlen(p), EXAMPLE_MAX)) != NULL)
			v->why = fmt("%s is too wide to grant: name the tool's own directory "
			    "below it", s);
		free(s);
		goto out;
	}
	free(p);
	p = c;
	/* The line itself: never the home or above it or above a project, never a masked
	 * or protected name, never a value the policy would read otherwise. */
	for (size_t i = 0; i < ab_trees_n(&w->p->project); i++) {
		const char *t = ab_trees_path(w->home, &w->p->project, i);

		if (t != NULL && under(t, p)) {
			v->why = strdup(i == 0 ? "the line would hold the whole home" :
			    "the line would hold a project (and its masks)");
			goto out;
		}
	}
	if (set_matches(w, w->masks, p) || set_matches(w, w->protects, p)) {
		v->why = fmt("its directory is masked or protected for %s", w->user);
		goto out;
	}
	if (!value_writable(p) || !line_fits(K_WRITE, p)) {
		v->why = strdup("the directory's name has bytes this tool does not write into "
		    "a policy line (or is too long): write the line by hand");
		goto out;
	}
	if ((v->why = covered(w, p, k)) != NULL)
		goto out;
	v->key = k;
	v->value = p;
	return 0;
out:
	free(p);
	return v->why == NULL ? -ENOMEM : 0;
}

/* A denial of agentbox-netd: allow_host for a name refused by no rule, and only then. */
static int
judge_net(const struct world *w, const struct entry *e, struct verdict *v)
{
	struct ab_netd_host h;
	struct ab_netd_rule r;
	struct ab_netd_verdict dv;
	const char *why;

	if (strcmp(e->reason, "no-rule") != 0) {
		char *rs = ascii(e->reason, strlen(e->reason), 40);

		v->why = rs == NULL ? NULL : rs[0] == '\0' ? strdup("the proxy gave no reason") :
		    strcmp(rs, "deny-rule") == 0 ? strdup("a deny_host rule refuses it "
		    "(deny wins over every allow)") : fmt("refused by the proxy for %s, which no "
		    "allow_host line changes", rs);
		free(rs);
		return v->why == NULL ? -ENOMEM : 0;
	}
	if (ab_netd_host_parse(e->obj, e->objn, &h) != 0 || h.kind != AB_NETD_HOST_NAME) {
		v->why = strdup("not a host name (an address, or bytes a name cannot hold): "
		    "allow_host lines are only suggested for the names seen");
		return v->why == NULL ? -ENOMEM : 0;
	}
	if (w->p->network != AB_NET_PROXY) {
		v->why = fmt("%s's network is %s: allow_host needs network = proxy", w->user,
		    ab_network_name(w->p->network));
		return v->why == NULL ? -ENOMEM : 0;
	}
	if (e->port == 0 || e->port > 65535) {
		v->why = strdup("no port in the record");
		return v->why == NULL ? -ENOMEM : 0;
	}
	if (e->port == AB_NETD_DEFAULT_PORT)
		v->value = strdup(h.text);
	else
		v->value = fmt("%s:%ju", h.text, (uintmax_t)e->port);
	if (v->value == NULL)
		return -ENOMEM;
	if (ab_netd_rule_parse(v->value, false, &r, &why) != 0 || !line_fits(K_HOST, v->value)) {
		v->why = strdup("the policy's rule parser refuses the name");
		goto none;
	}
	(void)ab_netd_decide(w->rules, w->nrules, &h, (uint16_t)e->port, &dv);
	if (dv.rule != NULL) {
		v->why = fmt("%s now by the rule %s", dv.allow ? "allowed" : "refused", dv.rule);
		goto none;
	}
	v->key = K_HOST;
	return 0;
none:
	free(v->value);
	v->value = NULL;
	return v->why == NULL ? -ENOMEM : 0;
}

static int
judge(const struct world *w, const struct entry *e, struct verdict *v)
{
	const char *other;
	enum key k;

	memset(v, 0, sizeof(*v));
	v->key = K_NONE;
	v->e = e;
	switch (e->kind) {
	case AB_KIND_SECCOMP:
		v->why = strdup("seccomp denies the call in every session: no policy key "
		    "allows it");
		return v->why == NULL ? -ENOMEM : 0;
	case AB_KIND_NET:
		return judge_net(w, e, v);
	case AB_KIND_DAC:
		return judge_path(w, e, K_NONE, v);
	case AB_KIND_LANDLOCK:
	default:
		if (strcmp(e->reason, "malformed") == 0) {
			v->why = strdup("a malformed learning record (no session, uid, path or "
			    "access as the contract says): not vouched for");
			return v->why == NULL ? -ENOMEM : 0;
		}
		if ((k = fs_key(e->access, &other)) == K_NONE) {
			v->why = strdup(other != NULL ? other : "out of memory");
			return v->why == NULL || other == NULL ? -ENOMEM : 0;
		}
		return judge_path(w, e, k, v);
	}
}

/* ---- the world -------------------------------------------------------------------------- */

/* Homes of people (root and uids from 1000) other than USER's, from passwd. */
static int
load_other_homes(struct world *w, uid_t self)
{
	struct passwd *pw;
	int r = 0;

	setpwent();
	while ((pw = getpwent()) != NULL) {
		if (pw->pw_uid == self || (pw->pw_uid != 0 && pw->pw_uid < 1000) ||
		    pw->pw_uid == 65534 || pw->pw_dir == NULL || pw->pw_dir[0] != '/' ||
		    strcmp(pw->pw_dir, "/") == 0 ||
		    (w->home != NULL && strcmp(pw->pw_dir, w->home) == 0))
			continue;
		if ((r = ab_strv_push(&w->other_homes, pw->pw_dir)) != 0)
			break;
	}
	endpwent();
	return r;
}

static int
load_rules(struct world *w)
{
	const struct ab_strv *l[] = { &w->p->deny_host, &w->p->allow_host };
	size_t n = w->p->deny_host.n + w->p->allow_host.n;

	if (n == 0)
		return 0;
	if ((w->rules = calloc(n, sizeof(*w->rules))) == NULL)
		return -ENOMEM;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < l[k]->n; i++)
			if (ab_netd_rule_parse(l[k]->v[i], k == 0, &w->rules[w->nrules], NULL) == 0)
				w->nrules++;
	return 0;
}

static void
world_free(struct world *w)
{
	ab_maskset_free(w->masks);
	ab_maskset_free(w->masks_out);
	ab_maskset_free(w->protects);
	ab_strv_free(&w->other_homes);
	free(w->rules);
}

/* ---- 3. group, fold, print ---------------------------------------------------------------- */

/* The example of a group: the least entry, by object then access, so it never depends
 * on the order records were read in. */
static int
ex_cmp(const struct entry *a, const struct entry *b)
{
	size_t n = a->objn < b->objn ? a->objn : b->objn;
	int c = memcmp(a->obj, b->obj, n);

	if (c != 0)
		return c;
	if (a->objn != b->objn)
		return a->objn < b->objn ? -1 : 1;
	if ((c = strcmp(a->access, b->access)) != 0)
		return c;
	return a->port < b->port ? -1 : a->port > b->port;
}

static int
group_cmp(const void *x, const void *y)
{
	const struct group *a = x, *b = y;

	if (a->key != b->key)
		return a->key == K_NONE ? 1 : b->key == K_NONE ? -1 : a->key < b->key ? -1 : 1;
	if (a->key != K_NONE)
		return strcmp(a->value, b->value);
	return strcmp(a->why, b->why);
}

/* Add verdict V to the groups G (by key and value, or by reason). */
static int
add_group(struct group **g, size_t *n, size_t *cap, struct verdict *v)
{
	for (size_t i = 0; i < *n; i++) {
		struct group *x = &(*g)[i];

		if (x->key == v->key && (v->key == K_NONE ? strcmp(x->why, v->why) == 0 :
		    strcmp(x->value, v->value) == 0)) {
			x->count += v->e->count;
			if (v->key == K_READ)
				x->reads += v->e->count;
			if (ex_cmp(v->e, x->example) < 0)
				x->example = v->e;
			free(v->value);
			free(v->why);
			return 0;
		}
	}
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct group *t = realloc(*g, c * sizeof(*t));

		if (t == NULL)
			return -ENOMEM;
		*g = t;
		*cap = c;
	}
	(*g)[(*n)++] = (struct group){ .key = v->key, .value = v->value, .why = v->why,
	    .count = v->e->count, .reads = v->key == K_READ ? v->e->count : 0,
	    .example = v->e };
	return 0;
}

/* A write line covers reads and writes of its tree; a read line the reads of its own. */
static void
fold(struct group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (g[i].key != K_READ && g[i].key != K_WRITE)
			continue;
		for (size_t j = 0; j < n; j++) {
			if (i == j || g[j].count == 0 || (g[j].key != K_WRITE &&
			    !(g[j].key == K_READ && g[i].key == K_READ)) ||
			    !under(g[i].value, g[j].value) ||
			    (strcmp(g[i].value, g[j].value) == 0 && g[i].key == g[j].key))
				continue;
			g[j].count += g[i].count;
			g[j].reads += g[i].reads;
			if (ex_cmp(g[i].example, g[j].example) < 0)
				g[j].example = g[i].example;
			g[i].count = 0;	/* folded: not printed */
			break;
		}
	}
}

/* A reason: printable ASCII already (what it quotes went through ascii()); cut to fit. */
static void
put_why(FILE *f, const char *why)
{
	size_t n = strlen(why);

	for (size_t i = 0; i < n && i < 150; i++)
		if (why[i] >= 0x20 && why[i] < 0x7f)
			fputc(why[i], f);
		else
			fprintf(f, "\\x%02x", (unsigned char)why[i]);
	if (n > 150)
		fputs("...", f);
}

static void
put_example(FILE *f, const struct entry *e)
{
	fputs(e->kind == AB_KIND_SECCOMP ? "seccomp " : e->kind == AB_KIND_DAC ? "dac " : "", f);
	put_ascii(f, e->access, strlen(e->access), ACCESS_MAX);
	if (e->objn > 0) {
		fputc(' ', f);
		put_ascii(f, e->obj, e->objn, EXAMPLE_MAX);
	}
	if (e->kind == AB_KIND_NET && e->port != 0)
		fprintf(f, " port %ju", (uintmax_t)e->port);
}

/* The value as a policy line writes it: a space is "\ " (split_items in policy/parse.c). */
static void
put_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == ' ')
			fputc('\\', f);
		fputc(*v, f);
	}
}

/* Sessions of USER (by name, or uid SELF) whose learning record is incomplete: what
 * they tried after that is not in the file.  In session order, whatever the read order. */
static void
put_lost(FILE *f, const struct ab_suggest *sg, const char *user, uid_t self)
{
	const struct learn_lost *l;
	uint64_t last = 0;
	int any = 0;

	for (;;) {	/* LOST_MAX entries: a selection sort is enough */
		l = NULL;
		for (size_t i = 0; i < sg->nlost; i++) {
			const struct learn_lost *c = &sg->lost[i];

			if ((strcmp(c->user, user) != 0 && (self == (uid_t)-1 || c->uid != self)) ||
			    (any && c->ses <= last) || (l != NULL && c->ses >= l->ses))
				continue;
			l = c;
		}
		if (l == NULL)
			break;
		fprintf(f, "# INCOMPLETE: the learning record of session %ju is incomplete (",
		    (uintmax_t)l->ses);
		put_ascii(f, l->reason, strlen(l->reason), 20);
		fputs("): what it tried after that is not here\n", f);
		last = l->ses;
		any = 1;
	}
	if (sg->lost_more > 0)
		fprintf(f, "# INCOMPLETE: %ju more session(s) with an incomplete learning record\n",
		    (uintmax_t)sg->lost_more);
}

void
ab_suggest_learn_lost(struct ab_suggest *sg, uint64_t ses, uint64_t uid, const char *user,
    const char *reason)
{
	struct learn_lost *l;

	if (sg->nlost == LOST_MAX) {
		sg->lost_more++;
		return;
	}
	l = &sg->lost[sg->nlost++];
	l->ses = ses;
	l->uid = uid;
	snprintf(l->user, sizeof(l->user), "%s", user);
	snprintf(l->reason, sizeof(l->reason), "%s", reason);
}

/* A line over VALUE: the masked names outside the trees it would uncover, said above it. */
static void
put_uncovered(FILE *f, const char *value, const struct ab_strv *uncovered)
{
	size_t i, n = 0;

	for (i = 0; i < uncovered->n; i++) {
		if (!under(uncovered->v[i], value))
			continue;
		if (n++ < 3) {
			fputs("# CAREFUL: it holds ", f);
			put_ascii(f, uncovered->v[i], strlen(uncovered->v[i]), EXAMPLE_MAX);
			fputs(", which a mask matches: masks hold in the projects and the home\n"
			    "#   only, so with this line an enforcing session reads it\n", f);
		}
	}
	if (n > 3)
		fprintf(f, "# CAREFUL: and %zu more masked name(s) under it\n", n - 3);
}

static void
put_text(FILE *f, const struct ab_suggest *sg, const char *user, uid_t self, struct group *g,
    size_t n, const struct ab_strv *uncovered)
{
	size_t shown = 0, refused = 0;

	fprintf(f, "# agentbox-audit suggest: what %ju denial(s) of %s in %zu%s session(s)\n"
	    "# would need.  Review every line; install as /etc/agentbox/policy.d/%s-suggest.conf\n"
	    "# (root-owned, 0644), then run: agentbox check\n", (uintmax_t)sg->denials, user,
	    sg->nsessions, sg->many_sessions ? "+" : "", user);
	if (sg->learn > 0)
		fprintf(f, "# %ju of them would-be denials of learning sessions (learn = yes)\n",
		    (uintmax_t)sg->learn);
	put_lost(f, sg, user, self);
	if (sg->dropped > 0)
		fprintf(f, "# INCOMPLETE: %ju denial(s) were not judged (more than %d distinct "
		    "ones, or out of memory): narrow the selection\n", (uintmax_t)sg->dropped,
		    AB_SUGGEST_MAX);
	fprintf(f, "[user:%s]\n", user);
	for (size_t i = 0; i < n; i++) {
		if (g[i].key == K_NONE) {
			refused++;
			continue;
		}
		if (g[i].count == 0)
			continue;
		fprintf(f, "\n# %ju denial(s)", (uintmax_t)g[i].count);
		if (g[i].key == K_WRITE && g[i].reads > 0)
			fprintf(f, " (%ju of them reads)", (uintmax_t)g[i].reads);
		fputs(", e.g. ", f);
		put_example(f, g[i].example);
		fputc('\n', f);
		if (g[i].key == K_READ || g[i].key == K_WRITE)
			put_uncovered(f, g[i].value, uncovered);
		fprintf(f, "%s = ", key_name[g[i].key]);
		put_value(f, g[i].value);
		fputc('\n', f);
		shown++;
	}
	if (shown == 0)
		fputs("\n# nothing to suggest\n", f);
	if (refused == 0)
		return;
	fputs("\n# Not suggested:\n", f);
	for (size_t i = 0; i < n; i++) {
		if (g[i].key != K_NONE)
			continue;
		fprintf(f, "# %ju denial(s): ", (uintmax_t)g[i].count);
		put_why(f, g[i].why);
		fputs("\n#   e.g. ", f);
		put_example(f, g[i].example);
		fputc('\n', f);
	}
}

static void
json_cstr(FILE *f, const char *s)
{
	if (s == NULL)
		fputs("null", f);
	else
		ab_text_put_json(f, s, strlen(s));
}

static void
put_json(FILE *f, const char *user, struct group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = g[i].example;

		if (g[i].key != K_NONE && g[i].count == 0)
			continue;
		fputs("{\"v\":1,\"user\":", f);
		json_cstr(f, user);
		fprintf(f, ",\"suggested\":%s,\"key\":", g[i].key != K_NONE ? "true" : "false");
		json_cstr(f, g[i].key != K_NONE ? key_name[g[i].key] : NULL);
		fputs(",\"value\":", f);
		json_cstr(f, g[i].value);
		fprintf(f, ",\"count\":%ju,\"reason\":", (uintmax_t)g[i].count);
		json_cstr(f, g[i].key == K_NONE ? g[i].why : NULL);
		fputs(",\"example\":{\"kind\":", f);
		json_cstr(f, ab_kind_name[e->kind]);
		fputs(",\"access\":", f);
		json_cstr(f, e->access);
		fputs(",\"object\":", f);
		if (e->objn > 0)
			ab_text_put_json(f, e->obj, e->objn);
		else
			fputs("null", f);
		if (e->kind == AB_KIND_NET)
			fprintf(f, ",\"port\":%ju", (uintmax_t)e->port);
		fputs("}}\n", f);
	}
}

static int
entry_cmp(const void *x, const void *y)
{
	return ex_cmp(*(const struct entry *const *)x, *(const struct entry *const *)y);
}

/* Which user: the one asked for, else the only one the denials name. */
static int
pick_user(const struct ab_suggest *sg, const char *asked, char *out, size_t cap,
    char *err, size_t errlen)
{
	struct passwd *pw;
	char *end;

	if (asked != NULL) {
		unsigned long u = strtoul(asked, &end, 10);

		if (*asked != '\0' && *end == '\0') {
			if ((pw = getpwuid((uid_t)u)) == NULL) {
				snprintf(err, errlen, "--user %s: no such uid here", asked);
				return -ENOENT;
			}
			asked = pw->pw_name;
		}
		snprintf(out, cap, "%s", asked);
		return 0;
	}
	if (sg->nusers > 1 || sg->many_users) {
		snprintf(err, errlen, "the denials selected are of %zu%s users: name one with "
		    "--user", sg->nusers, sg->many_users ? "+" : "");
		return -EINVAL;
	}
	if (sg->nusers == 0) {
		snprintf(err, errlen, "no denials selected and no --user: nothing to suggest");
		return -ENOENT;
	}
	if (sg->names[0][0] != '\0')
		snprintf(out, cap, "%s", sg->names[0]);
	else if ((pw = getpwuid((uid_t)sg->uids[0])) != NULL)
		snprintf(out, cap, "%s", pw->pw_name);
	else {
		snprintf(err, errlen, "the denials' uid %ju has no name here: give --user",
		    (uintmax_t)sg->uids[0]);
		return -ENOENT;
	}
	return 0;
}

int
ab_suggest_print(struct ab_suggest *sg, FILE *f, const struct ab_suggest_opts *o,
    char *err, size_t errlen)
{
	struct world w = { 0 };
	struct ab_policy *p = NULL;
	struct ab_diag diag = { 0 };
	struct passwd *pw;
	struct entry **es = NULL;
	struct group *g = NULL;
	size_t ng = 0, capg = 0, ne = 0;
	char user[64], *home = NULL, *root_v[] = { "/" };
	const struct ab_strv root = { root_v, 1 };
	struct ab_strv uncovered = { 0 };
	uid_t self = (uid_t)-1;
	int r;

	/* 1. Whose policy: the suggestion is judged against it, so it must load. */
	if ((r = pick_user(sg, o->user, user, sizeof(user), err, errlen)) != 0)
		return r;
	if (!ab_user_name_valid(user)) {
		snprintf(err, errlen, "user name '%s' is not one agentbox enrolls", user);
		return -EINVAL;
	}
	if ((r = ab_policy_load(o->policy_root, user, &p, &diag)) != 0) {
		snprintf(err, errlen, "cannot load %s's policy: %s", user, r == -ENOENT ?
		    "not enrolled" : diag.n > 0 ? diag.msg[0] : strerror(-r));
		ab_diag_free(&diag);
		return r;
	}
	ab_diag_free(&diag);
	/* 2. Whose home: passwd's, unless given (records from another host). */
	if ((pw = getpwnam(user)) != NULL) {
		self = pw->pw_uid;
		if (o->home == NULL && (home = strdup(pw->pw_dir)) == NULL) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (o->home != NULL && (home = strdup(o->home)) == NULL) {
		r = -ENOMEM;
		goto out;
	}
	if (home == NULL) {
		snprintf(err, errlen, "%s has no passwd entry here: give --home", user);
		r = -ENOENT;
		goto out;
	}
	w = (struct world){ .user = user, .home = home, .p = p, .uncovered = &uncovered };
	if ((r = ab_maskset_new(&p->mask, home, &p->project, AB_MASKSET_MASKS, &w.masks)) != 0 ||
	    (r = ab_maskset_new(&p->mask, NULL, &root, AB_MASKSET_MASKS, &w.masks_out)) != 0 ||
	    (r = ab_maskset_new(&p->protect, home, &p->project, AB_MASKSET_PROTECTS,
	    &w.protects)) != 0 || (r = load_other_homes(&w, self)) != 0 ||
	    (r = load_rules(&w)) != 0) {
		snprintf(err, errlen, "cannot prepare %s's masks and rules: %s", user,
		    strerror(-r));
		goto out;
	}
	/* 3. Judge each distinct denial, in a fixed order. */
	if ((es = calloc(sg->n + 1, sizeof(*es))) == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < sg->cap; i++)
		if (sg->tab[i].access != NULL)
			es[ne++] = &sg->tab[i];
	qsort(es, ne, sizeof(*es), entry_cmp);
	for (size_t i = 0; i < ne; i++) {
		struct verdict v;

		if ((r = judge(&w, es[i], &v)) != 0 || (r = add_group(&g, &ng, &capg, &v)) != 0) {
			free(v.value);
			free(v.why);
			goto out;
		}
	}
	if (ng > 0)
		qsort(g, ng, sizeof(*g), group_cmp);
	fold(g, ng);
	/* 4. The file (or one JSON object per line and per reason). */
	if (o->json)
		put_json(f, user, g, ng);
	else
		put_text(f, sg, user, self, g, ng, &uncovered);
	r = 0;
out:
	if (r == -ENOMEM && err[0] == '\0')
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; i < ng; i++) {
		free(g[i].value);
		free(g[i].why);
	}
	free(g);
	free(es);
	world_free(&w);
	ab_strv_free(&uncovered);
	free(home);
	ab_policy_free(p);
	return r;
}

uint64_t
ab_suggest_dropped(const struct ab_suggest *sg)
{
	return sg->dropped;
}
