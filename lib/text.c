/*
 * Text from places an agent can write into (file names, comm, proctitle, PAM items,
 * policy paths a symlink resolves to), made safe for the two places we print it: a
 * human's terminal and JSON.
 */
#include <string.h>

#include "abutil.h"

size_t
ab_utf8_decode(const void *buf, size_t n, uint32_t *cp)
{
	const unsigned char *p = buf;
	uint32_t c;
	size_t len, i;

	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		c = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		c = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		c = p[0] & 0x07;
	} else {
		return 0;	/* a continuation byte, or 0xf8..0xff */
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms would let "/" or NUL hide in other bytes; surrogates are UTF-16's. */
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

int
ab_utf8_valid(const void *buf, size_t n)
{
	const unsigned char *p = buf;
	uint32_t cp;
	size_t i = 0, l;

	while (i < n) {
		if ((l = ab_utf8_decode(p + i, n - i, &cp)) == 0)
			return 0;
		i += l;
	}
	return 1;
}

int
ab_text_cp_unsafe(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
	    cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

/* The escape for the L bytes at P (L == 0: an invalid byte) into TMP, or 0 if none. */
static int
escape(char *tmp, size_t cap, const unsigned char *p, size_t l, uint32_t cp,
    unsigned flags)
{
	if (l == 0 || (l == 1 && ab_text_cp_unsafe(cp)))
		return snprintf(tmp, cap, "\\x%02x", p[0]);
	if (ab_text_cp_unsafe(cp))
		return snprintf(tmp, cap, "\\u{%04x}", (unsigned)cp);
	if (cp == '\\' && (flags & AB_TEXT_ESC_BACKSLASH))
		return snprintf(tmp, cap, "\\\\");
	return 0;
}

size_t
ab_text_put_safe(FILE *f, const char *s, size_t n, size_t width, unsigned flags)
{
	size_t i = 0, cols = 0, l, w;
	uint32_t cp = 0;
	char tmp[16];
	int k;

	/* A column that cannot hold it all keeps one cell for the ellipsis. */
	if (width > 1 && n > width)
		width--;
	while (i < n) {
		const unsigned char *p = (const unsigned char *)s + i;

		l = ab_utf8_decode(p, n - i, &cp);
		k = escape(tmp, sizeof(tmp), p, l, cp, flags);
		w = k > 0 ? (size_t)k : 1;
		if (width && cols + w > width)
			break;
		if (k > 0)
			fputs(tmp, f);
		else
			fwrite(p, 1, l, f);
		cols += w;
		i += l == 0 ? 1 : l;
	}
	if (width && i < n) {
		/* Truncated: mark it, so nobody mistakes a prefix for the whole name. */
		fputs("…", f);
		cols++;
	}
	return cols;
}

void
ab_text_put_json(FILE *f, const char *s, size_t n)
{
	size_t i = 0, l;
	uint32_t cp;

	fputc('"', f);
	while (i < n) {
		const unsigned char *p = (const unsigned char *)s + i;
		size_t run = 0;

		/* Plain printable ASCII goes out in one piece. */
		while (i + run < n && p[run] >= 0x20 && p[run] < 0x7f && p[run] != '"' &&
		    p[run] != '\\')
			run++;
		if (run > 0) {
			fwrite(p, 1, run, f);
			i += run;
			continue;
		}
		if ((l = ab_utf8_decode(p, n - i, &cp)) == 0) {
			fputs("\\ufffd", f);	/* JSON text must be UTF-8 (RFC 8259 §8.1) */
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (int)cp);
		else if (cp < 0x20 || cp == 0x7f || cp == 0x2028 || cp == 0x2029)
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(p, 1, l, f);
		i += l;
	}
	fputc('"', f);
}
