/*
 * One field of one JSON line, for `agentbox run`'s summary, which reads what
 * `agentbox-audit --json` prints (one flat object per denial, man agentbox-audit(8))
 * rather than parsing audit logs a second time.  Strict RFC 8259 for what it reads;
 * nested values are skipped, never interpreted.  No JSON library is a build dependency,
 * and this is all the summary needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"

struct cur {
	const char	*p;
	char		*out;		/* NULL: skip */
	size_t		 cap, len;
};

static void
ws(struct cur *c)
{
	while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n')
		c->p++;
}

static void
put(struct cur *c, uint32_t cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	if (c->out != NULL && c->len + n < c->cap) {
		memcpy(c->out + c->len, b, n);
		c->len += n;
	}
}

static int
hex4(const char *p, uint32_t *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char h = p[i];
		*v <<= 4;
		if (h >= '0' && h <= '9')
			*v |= (uint32_t)(h - '0');
		else if (h >= 'a' && h <= 'f')
			*v |= (uint32_t)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F')
			*v |= (uint32_t)(h - 'A' + 10);
		else
			return -EINVAL;
	}
	return 0;
}

/* A string at c->p (the opening quote), decoded into c->out when set. */
static int
string(struct cur *c)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	const char *e;
	uint32_t cp, lo;

	if (*c->p++ != '"')
		return -EINVAL;
	for (;;) {
		unsigned char ch = (unsigned char)*c->p;

		if (ch == '\0' || ch < 0x20)
			return -EINVAL;
		c->p++;
		if (ch == '"')
			break;
		if (ch != '\\') {
			if (c->out != NULL && c->len + 1 < c->cap)
				c->out[c->len++] = (char)ch;
			continue;
		}
		if (*c->p == 'u') {
			if (hex4(c->p + 1, &cp) != 0)
				return -EINVAL;
			c->p += 5;
			if (cp >= 0xd800 && cp < 0xdc00 && c->p[0] == '\\' && c->p[1] == 'u' &&
			    hex4(c->p + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				c->p += 6;
			} else if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			put(c, cp);
			continue;
		}
		if (*c->p == '\0' || (e = strchr(esc_in, *c->p)) == NULL)
			return -EINVAL;
		put(c, (uint32_t)(unsigned char)esc_out[e - esc_in]);
		c->p++;
	}
	if (c->out != NULL)
		c->out[c->len] = '\0';
	return 0;
}

static int value(struct cur *c, int depth);

/* An object or array at c->p, skipped. */
static int
nested(struct cur *c, int depth)
{
	char close = *c->p == '{' ? '}' : ']';
	struct cur skip = { .p = c->p + 1 };
	int r;

	if (depth > 16)
		return -EINVAL;
	ws(&skip);
	if (*skip.p == close) {
		c->p = skip.p + 1;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			if ((r = string(&skip)) != 0)
				return r;
			ws(&skip);
			if (*skip.p++ != ':')
				return -EINVAL;
		}
		if ((r = value(&skip, depth + 1)) != 0)
			return r;
		ws(&skip);
		if (*skip.p == ',') {
			skip.p++;
			ws(&skip);
			continue;
		}
		if (*skip.p++ != close)
			return -EINVAL;
		c->p = skip.p;
		return 0;
	}
}

/* A value at c->p: a string decoded into c->out, a literal or number copied there. */
static int
value(struct cur *c, int depth)
{
	size_t n;

	ws(c);
	if (*c->p == '"')
		return string(c);
	if (*c->p == '{' || *c->p == '[') {
		struct cur skip = { .p = c->p };
		int r = nested(&skip, depth);
		c->p = skip.p;
		return r;
	}
	n = strspn(c->p, "0123456789+-.eEtruefalsn");
	if (n == 0)
		return -EINVAL;
	if (c->out != NULL) {
		if (n >= c->cap)
			n = c->cap - 1;
		memcpy(c->out, c->p, n);
		c->out[n] = '\0';
	}
	c->p += strspn(c->p, "0123456789+-.eEtruefalsn");
	return 0;
}

int
adm_jsonl_get(const char *line, const char *key, char *out, size_t cap)
{
	char name[64];
	struct cur c = { .p = line };
	int r, is_str;

	if (cap == 0)
		return -EINVAL;
	ws(&c);
	if (*c.p++ != '{')
		return -EINVAL;
	ws(&c);
	if (*c.p == '}')
		return -ENOENT;
	for (;;) {
		struct cur k = { .p = c.p, .out = name, .cap = sizeof(name) };

		if ((r = string(&k)) != 0)
			return r;
		c.p = k.p;
		ws(&c);
		if (*c.p++ != ':')
			return -EINVAL;
		ws(&c);
		if (strcmp(name, key) == 0) {
			struct cur v = { .p = c.p, .out = out, .cap = cap };

			is_str = *c.p == '"';
			out[0] = '\0';
			if ((r = value(&v, 0)) != 0)
				return r;
			if (!is_str && strcmp(out, "null") == 0) {
				out[0] = '\0';
				return 0;
			}
			return is_str ? 1 : 2;
		}
		if ((r = value(&c, 0)) != 0)
			return r;
		ws(&c);
		if (*c.p == ',') {
			c.p++;
			ws(&c);
			continue;
		}
		return *c.p == '}' ? -ENOENT : -EINVAL;
	}
}
