/*
 * The session environment is built from an allow-list, never filtered from a deny-list:
 * su -m, sudo -E and sshd AcceptEnv hand us whatever the caller chose, and a deny-list
 * always misses one (LD_*, BASH_ENV, ENV, PROMPT_COMMAND, SHELLOPTS, BASHOPTS, PS4,
 * GCONV_PATH, BASH_FUNC_*%%, PYTHONSTARTUP, NODE_OPTIONS, GIT_*, tokens...).
 *
 * Kept: the terminal and locale variables (values checked, see value_ok), HOME, USER,
 * LOGNAME and SHELL from the plan (not from the caller), a fixed PATH, XDG_RUNTIME_DIR
 * for the session's private /run/user/UID, and the policy's env_keep names with their
 * values as given.  env_keep is root's decision and is honoured even for a name like
 * LD_PRELOAD: this program is static and applies every restriction before it execs, so
 * such a variable only ever affects code that already runs confined.
 *
 * network = proxy adds where the box's one way out is (netd-spec.md section 6): the
 * proxy variables every common tool reads, and per credential a placeholder (never the
 * secret: the box holds none) and the base URL of its gateway.  They come right after
 * the identity, before env_keep: they describe this box's only exits, and a value kept
 * from the caller would point at nothing reachable (or hold a real key).
 *
 * SHELL is the real shell, not agentbox-shell: tmux, screen, vim :sh start $SHELL, and
 * they inherit the confinement anyway; a program that reads the passwd shell instead
 * re-enters agentbox-shell, which sees it is already confined and only cleans up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shell.h"

/* Longest value kept for the terminal and locale variables. */
#define VALUE_MAX	256

struct envv {
	char	**v;
	size_t	  n, cap;
};

/* Terminal and locale values are names, not paths or code: letters, digits, few marks. */
static int
value_ok(const char *v, const char *extra)
{
	size_t n = 0;

	for (; *v != '\0'; v++, n++) {
		if (n >= VALUE_MAX)
			return 0;
		if ((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		    (*v >= '0' && *v <= '9') || strchr("._-+@=,", *v) != NULL)
			continue;
		if (extra != NULL && strchr(extra, *v) != NULL)
			continue;
		return 0;
	}
	return 1;
}

/* Value of the first NAME=... in ENV, as getenv(3) would pick it. */
static const char *
lookup(char *const *env, const char *name)
{
	size_t len = strlen(name);

	for (; env != NULL && *env != NULL; env++)
		if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
			return *env + len + 1;
	return NULL;
}

static int
has(const struct envv *e, const char *name)
{
	return lookup(e->v, name) != NULL;
}

/* Append NAME=VALUE unless NAME is already set (first one wins). */
static int
add(struct envv *e, const char *name, const char *value)
{
	char **nv;
	char *s;

	if (has(e, name))
		return 0;
	if (e->n + 2 > e->cap) {
		e->cap = e->cap ? e->cap * 2 : 32;
		if ((nv = realloc(e->v, e->cap * sizeof(*nv))) == NULL)
			return -ENOMEM;
		e->v = nv;
	}
	if (asprintf(&s, "%s=%s", name, value) == -1)
		return -ENOMEM;
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
	return 0;
}

/* Copy NAME from IN when its value passes value_ok(EXTRA). */
static int
copy_checked(struct envv *e, char *const *in, const char *name, const char *extra)
{
	const char *v = lookup(in, name);

	if (v == NULL || !value_ok(v, extra))
		return 0;
	return add(e, name, v);
}

/* LC_ALL, LC_CTYPE, ...: any LC_ name made of capitals and underscores. */
static int
copy_locale(struct envv *e, char *const *in)
{
	char name[64];
	const char *eq;
	size_t len;
	int r;

	for (; in != NULL && *in != NULL; in++) {
		if (strncmp(*in, "LC_", 3) != 0 || (eq = strchr(*in, '=')) == NULL)
			continue;
		len = (size_t)(eq - *in);
		if (len >= sizeof(name) || strspn(*in, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != len)
			continue;
		memcpy(name, *in, len);
		name[len] = '\0';
		if ((r = copy_checked(e, in, name, NULL)) != 0)
			return r;
	}
	return 0;
}

static int
add_identity(struct envv *e, const struct ab_plan *plan)
{
	const struct ab_policy *p = plan->policy;
	char runtime[64];
	struct stat st;
	int r;

	if ((r = add(e, "HOME", plan->home)) != 0 || (r = add(e, "USER", p->user)) != 0 ||
	    (r = add(e, "LOGNAME", p->user)) != 0 || (r = add(e, "SHELL", p->shell)) != 0 ||
	    (r = add(e, "PATH", AB_FIXED_PATH)) != 0)
		return r;
	/* The PAM module gives the session a private /run/user/UID. */
	snprintf(runtime, sizeof(runtime), "/run/user/%u", (unsigned)plan->uid);
	if (stat(runtime, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == plan->uid)
		return add(e, "XDG_RUNTIME_DIR", runtime);
	return 0;
}

/* netd-spec.md section 2: the box's endpoints on its own loopback. */
#define PROXY_URL	"http://127.0.0.1:3128"
#define NO_PROXY_LIST	"localhost,127.0.0.1,::1"
#define GATEWAY_PORT	3129	/* credential i: 3129 + i */

/* Credential I: its placeholder, and its gateway's URL if it names a variable for it. */
static int
add_credential(struct envv *e, const struct ab_cred *c, size_t i, uint32_t ses)
{
	char *v;
	int r;

	if (asprintf(&v, "agentbox-%s-%u-placeholder", c->name, (unsigned)ses) == -1)
		return -ENOMEM;
	r = add(e, c->env, v);
	free(v);
	if (r != 0 || c->base_url_env == NULL)
		return r;
	if (asprintf(&v, "http://127.0.0.1:%zu%s", GATEWAY_PORT + i,
	    c->base_path != NULL ? c->base_path : "") == -1)
		return -ENOMEM;
	r = add(e, c->base_url_env, v);
	free(v);
	return r;
}

static int
add_proxy(struct envv *e, const struct ab_plan *plan)
{
	static const char *const url[] = {
		"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY",
		"all_proxy", "npm_config_proxy", "npm_config_https_proxy", "PIP_PROXY",
	};
	const struct ab_policy *p = plan->policy;
	size_t i;
	int r = 0;

	for (i = 0; r == 0 && i < sizeof(url) / sizeof(url[0]); i++)
		r = add(e, url[i], PROXY_URL);
	if (r == 0 && (r = add(e, "NO_PROXY", NO_PROXY_LIST)) == 0 &&
	    (r = add(e, "no_proxy", NO_PROXY_LIST)) == 0)
		r = add(e, "NODE_USE_ENV_PROXY", "1");	/* Node >= 24 honours the above */
	for (i = 0; r == 0 && i < p->ncreds; i++)
		r = add_credential(e, &p->creds[i], i, plan->audit_session);
	return r;
}

int
ab_env_build(const struct ab_plan *plan, char *const *in, int nested, char ***out)
{
	static const char *const term[] = { "TERM", "COLORTERM", "LANG", "LANGUAGE" };
	const struct ab_policy *p = plan->policy;
	struct envv e = { NULL, 0, 0 };
	const char *v;
	size_t i;
	int r;

	*out = NULL;
	/* Identity from the plan first: nothing, env_keep included, overrides it. */
	r = add_identity(&e, plan);
	/* The box's way out, before env_keep for the same reason. */
	if (r == 0 && p->network == AB_NET_PROXY)
		r = add_proxy(&e, plan);
	/* The policy's env_keep: root named them, values as given. */
	for (i = 0; r == 0 && i < p->env_keep.n; i++)
		if ((v = lookup(in, p->env_keep.v[i])) != NULL)
			r = add(&e, p->env_keep.v[i], v);
	for (i = 0; r == 0 && i < sizeof(term) / sizeof(term[0]); i++)
		r = copy_checked(&e, in, term[i], i == 3 ? ":" : NULL);
	if (r == 0)
		r = copy_locale(&e, in);
	/* TZ may name a zoneinfo file (":Europe/Paris"); it is read confined. */
	if (r == 0)
		r = copy_checked(&e, in, "TZ", ":/");
	/* tcp:PORTS denies UDP (it would bypass the port list): resolve names over TCP. */
	if (r == 0 && p->network == AB_NET_TCP)
		r = add(&e, "RES_OPTIONS", "use-vc");
	/* A pane of a tmux started inside the box: keep what tmux needs to find itself. */
	if (r == 0 && nested) {
		if ((r = copy_checked(&e, in, "TMUX", "/")) == 0)
			r = copy_checked(&e, in, "TMUX_PANE", "%");
	}
	if (r == 0 && e.v == NULL)
		r = -EINVAL;
	if (r != 0) {
		ab_env_free(e.v);
		return r;
	}
	*out = e.v;
	return 0;
}

void
ab_env_free(char **env)
{
	char **p;

	for (p = env; p != NULL && *p != NULL; p++)
		free(*p);
	free(env);
}
