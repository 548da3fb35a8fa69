/*
 * The compiled policy as data: the key table's data side (what agentbox check lists and
 * prints, freeing), the names of its enums, the checks on names that both the parser
 * and the plan reader apply.  Needs no external library: it is part
 * of libabplan.a, which agentbox-shell links statically.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The table as data, for agentbox check and the agentbox.conf(5) test. */
static const struct ab_key_info keys[AB_KEY_N] = {
#define INFO(ID, NAME, KIND, MEMBER, SECTIONS, MERGE, VALID, ARG, DOC) \
	[AB_KEY_##ID] = { NAME, AB_KIND_##KIND, SECTIONS, MERGE, ARG, DOC },
	AB_POLICY_KEYS(INFO)
#undef INFO
};

const struct ab_key_info *
ab_policy_key(size_t i)
{
	return i < AB_KEY_N ? &keys[i] : NULL;
}

/* Each kind's member: a list's address, or NULL for a scalar. */
#define STRV_PATHS(m)		(&(m))
#define STRV_PATTERNS(m)	(&(m))
#define STRV_ENV_NAMES(m)	(&(m))
#define STRV_PATH(m)		NULL
#define STRV_ABI(m)		NULL
#define STRV_NETWORK(m)		NULL
#define STRV_AUDIT(m)		NULL
#define STRV_YESNO(m)		NULL
#define STRV_DURATION(m)	NULL
#define STRV_HOSTS(m)		(&(m))
#define STRV_CIDRS(m)		(&(m))
#define STRV_NAMES(m)		(&(m))
#define STRV_SET(m)		NULL
#define STRV_CRED(m)		NULL

struct ab_strv *
ab_policy_strv(struct ab_policy *p, enum ab_key k)
{
	switch (k) {
#define STRV(ID, NAME, KIND, MEMBER, ...) case AB_KEY_##ID: return STRV_##KIND(p->MEMBER);
	AB_POLICY_KEYS(STRV)
#undef STRV
	case AB_KEY_N:
		break;
	}
	return NULL;
}

/* Only the host rules have a twin: where each one is written. */
#define SRC_HOSTS(p, m)		(&(p)->m##_src)
#define SRC_OTHER(p, m)		NULL
#define SRC_PATHS SRC_OTHER
#define SRC_PATTERNS SRC_OTHER
#define SRC_ENV_NAMES SRC_OTHER
#define SRC_PATH SRC_OTHER
#define SRC_ABI SRC_OTHER
#define SRC_NETWORK SRC_OTHER
#define SRC_AUDIT SRC_OTHER
#define SRC_YESNO SRC_OTHER
#define SRC_DURATION SRC_OTHER
#define SRC_CIDRS SRC_OTHER
#define SRC_NAMES SRC_OTHER

struct ab_strv *
ab_policy_src(struct ab_policy *p, enum ab_key k)
{
	switch (k) {
#define SRC(ID, NAME, KIND, MEMBER, ...) case AB_KEY_##ID: return SRC_##KIND(p, MEMBER);
	AB_USER_KEYS(SRC)
#undef SRC
	default:
		break;
	}
	return NULL;
}

const struct ab_strv *
ab_policy_list(const struct ab_policy *p, size_t i)
{
	/* The cast only lets one accessor serve both; nothing is written through it. */
	if (i >= AB_KEY_N)
		return NULL;
	return ab_policy_strv((struct ab_policy *)p, (enum ab_key)i);
}

/* What each kind owns in struct ab_policy. */
#define FREE_PATHS(p, m)	ab_strv_free(&(p)->m)
#define FREE_PATTERNS(p, m)	ab_strv_free(&(p)->m)
#define FREE_ENV_NAMES(p, m)	ab_strv_free(&(p)->m)
#define FREE_PATH(p, m)		free((p)->m)
#define FREE_ABI(p, m)
#define FREE_NETWORK(p, m)	free((p)->ports)
#define FREE_AUDIT(p, m)
#define FREE_YESNO(p, m)
#define FREE_DURATION(p, m)
#define FREE_HOSTS(p, m)	(ab_strv_free(&(p)->m), ab_strv_free(&(p)->m##_src))
#define FREE_CIDRS(p, m)	ab_strv_free(&(p)->m)
#define FREE_NAMES(p, m)	ab_strv_free(&(p)->m)
#define FREE_SET(p, m)
#define FREE_CRED(p, m)

void
ab_cred_free(struct ab_cred *c)
{
#define FREE_FIELD(ID, NAME, KIND, MEMBER, ...) free(c->MEMBER);
	AB_CRED_KEYS(FREE_FIELD)
#undef FREE_FIELD
	free(c->name);
}

void
ab_policy_free(struct ab_policy *p)
{
	if (p == NULL)
		return;
	free(p->user);
#define FREE(ID, NAME, KIND, MEMBER, ...) FREE_##KIND(p, MEMBER);
	AB_POLICY_KEYS(FREE)
#undef FREE
	for (size_t i = 0; i < p->ncreds; i++)
		ab_cred_free(&p->creds[i]);
	free(p->creds);
	free(p);
}

#define NAME_OF(VALUE, NAME, SUFFIX)	[VALUE] = NAME,
#define SUFFIX_OF(VALUE, NAME, SUFFIX)	[VALUE] = SUFFIX,
static const char *const net_names[] = { AB_NETWORK_MODES(NAME_OF) };
static const char *const net_suffixes[] = { AB_NETWORK_MODES(SUFFIX_OF) };
static const char *const audit_names[] = { AB_AUDIT_MODES(NAME_OF) };
static const char *const audit_suffixes[] = { AB_AUDIT_MODES(SUFFIX_OF) };
static const char *const yesno_names[] = { AB_YESNO_MODES(NAME_OF) };
static const char *const yesno_suffixes[] = { AB_YESNO_MODES(SUFFIX_OF) };
#define NVALUES(a) (sizeof(a) / sizeof((a)[0]))

const char *
ab_kind_value(enum ab_key_kind k, unsigned int i, const char **suffix)
{
	const char *const *names, *const *suffixes;
	size_t n;

	switch (k) {
	case AB_KIND_NETWORK:
		names = net_names, suffixes = net_suffixes, n = NVALUES(net_names);
		break;
	case AB_KIND_AUDIT:
		names = audit_names, suffixes = audit_suffixes, n = NVALUES(audit_names);
		break;
	case AB_KIND_YESNO:
		names = yesno_names, suffixes = yesno_suffixes, n = NVALUES(yesno_names);
		break;
	default:
		return NULL;
	}
	if (i >= n)
		return NULL;
	if (suffix != NULL)
		*suffix = suffixes[i];
	return names[i];
}

const char *
ab_network_name(enum ab_network n)
{
	const char *s = ab_kind_value(AB_KIND_NETWORK, (unsigned int)n, NULL);

	return s != NULL ? s : "?";
}

const char *
ab_audit_name(enum ab_audit_mode a)
{
	const char *s = ab_kind_value(AB_KIND_AUDIT, (unsigned int)a, NULL);

	return s != NULL ? s : "?";
}

const char *
ab_yesno_name(enum ab_yesno p)
{
	const char *s = ab_kind_value(AB_KIND_YESNO, (unsigned int)p, NULL);

	return s != NULL ? s : "?";
}

int
ab_duration_parse(const char *s, uint32_t *out)
{
	static const char units[] = "smhd";
	static const uint32_t mult[] = { 1, 60, 3600, 86400 };
	uint64_t v = 0;
	const char *u;
	size_t i;

	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > AB_DURATION_MAX)
			return -EINVAL;
	}
	if (i == 0)
		return -EINVAL;
	if (s[i] != '\0') {
		if (s[i + 1] != '\0' || (u = strchr(units, s[i])) == NULL)
			return -EINVAL;
		v *= mult[u - units];
	}
	if (v > AB_DURATION_MAX)
		return -EINVAL;
	if (out != NULL)
		*out = (uint32_t)v;
	return 0;
}

/* "tcp:53,443": the name, then the ports as the policy writes them. */
static int
network_spelling(const struct ab_policy *p, char **out)
{
	const char *name = ab_network_name(p->network);
	size_t i, len = strlen(name) + 6 * p->nports + 1, at;
	char *s;

	if ((s = malloc(len)) == NULL)
		return -ENOMEM;
	at = (size_t)snprintf(s, len, "%s", name);
	for (i = 0; i < p->nports; i++)
		at += (size_t)snprintf(s + at, len - at, "%c%u", i == 0 ? ':' : ',',
		    (unsigned int)p->ports[i]);
	*out = s;
	return 0;
}

static int
spell_str(const char *s, char **out)
{
	return (*out = strdup(s)) != NULL ? 0 : -ENOMEM;
}

static int
spell_int(int v, char **out)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", v);
	return spell_str(num, out);
}

/* Seconds in the largest unit that divides them: "86400" is spelt "1d", 0 "0". */
static int
spell_duration(uint32_t secs, char **out)
{
	static const struct { uint32_t n; char c; } unit[] = {
		{ 86400, 'd' }, { 3600, 'h' }, { 60, 'm' }, { 1, 's' },
	};
	char buf[24];
	size_t i;

	for (i = 0; secs != 0 && secs % unit[i].n != 0; i++)
		;
	if (secs == 0)
		snprintf(buf, sizeof(buf), "0");
	else
		snprintf(buf, sizeof(buf), "%u%c", secs / unit[i].n, unit[i].c);
	return spell_str(buf, out);
}

/* Each kind's value as the policy spells it; lists have none. */
#define SPELL_PATHS(p, m, out)		-EINVAL
#define SPELL_PATTERNS(p, m, out)	-EINVAL
#define SPELL_ENV_NAMES(p, m, out)	-EINVAL
#define SPELL_PATH(p, m, out)		spell_str((p)->m, out)
#define SPELL_ABI(p, m, out)		spell_int((p)->m, out)
#define SPELL_NETWORK(p, m, out)	network_spelling(p, out)
#define SPELL_AUDIT(p, m, out)		spell_str(ab_audit_name((p)->m), out)
#define SPELL_YESNO(p, m, out)	spell_str(ab_yesno_name((p)->m), out)
#define SPELL_DURATION(p, m, out)	spell_duration((p)->m, out)
#define SPELL_HOSTS(p, m, out)		-EINVAL
#define SPELL_CIDRS(p, m, out)		-EINVAL
#define SPELL_NAMES(p, m, out)		-EINVAL
#define SPELL_SET(p, m, out)		-EINVAL
#define SPELL_CRED(p, m, out)		-EINVAL

int
ab_policy_scalar(const struct ab_policy *p, size_t i, char **out)
{
	switch (i) {
#define SPELL(ID, NAME, KIND, MEMBER, ...) \
	case AB_KEY_##ID: return SPELL_##KIND(p, MEMBER, out);
	AB_POLICY_KEYS(SPELL)
#undef SPELL
	}
	return -EINVAL;
}

static int
is_alpha_(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

int
ab_env_name_valid(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > 255 || !is_alpha_((unsigned char)name[0]))
		return 0;
	for (i = 1; i < n; i++)
		if (!is_alpha_((unsigned char)name[i]) && !is_digit((unsigned char)name[i]))
			return 0;
	return 1;
}

static int
is_alnum(int c)
{
	return is_alpha_(c) && c != '_' ? 1 : is_digit(c);
}

/* Every byte of S in [1, max] bytes passes OK. */
static int
all_of(const char *s, size_t max, int (*ok)(int))
{
	size_t i, n = strlen(s);

	if (n == 0 || n > max)
		return 0;
	for (i = 0; i < n; i++)
		if (!ok((unsigned char)s[i]))
			return 0;
	return 1;
}

static int
set_name_char(int c)
{
	return is_alnum(c) || c == '.' || c == '_' || c == '-';
}

int
ab_set_name_valid(const char *name)
{
	return is_alnum((unsigned char)name[0]) && all_of(name, 64, set_name_char);
}

/* RFC 9110 5.6.2 tchar. */
static int
tchar(int c)
{
	return is_alnum(c) || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

int
ab_header_name_valid(const char *name)
{
	return all_of(name, 64, tchar);
}

/* RFC 3986 pchar without pct-encoded, and '/'. */
static int
path_char(int c)
{
	return is_alnum(c) || (c != '\0' && strchr("-._~!$&'()*+,;=:@/", c) != NULL);
}

int
ab_url_path_valid(const char *path)
{
	return path[0] == '/' && all_of(path, 255, path_char);
}

static int
printable(int c)
{
	return c >= 0x20 && c < 0x7f;
}

int
ab_cred_prefix_valid(const char *prefix)
{
	return all_of(prefix, 64, printable);
}
