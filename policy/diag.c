/* Diagnostics for people: "FILE:LINE: reason" lines collected, never printed here. */
#define _GNU_SOURCE	/* qsort_r, vasprintf, asprintf, strchrnul */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/*
 * Control bytes become "\xHH": messages quote paths, and a path can come from a symlink
 * the agent owns; they end up on an admin's terminal (agentbox check) and in logs.
 */
static char *
defang(char *msg)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0, i;
	char *out, *d;

	for (i = 0; msg[i]; i++)
		n += ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f) ? 4 : 1;
	if (n == i)
		return msg;
	if ((out = d = malloc(n + 1)) == NULL) {
		free(msg);
		return NULL;
	}
	for (i = 0; msg[i]; i++) {
		unsigned char c = (unsigned char)msg[i];

		if (c < 0x20 || c == 0x7f) {
			*d++ = '\\';
			*d++ = 'x';
			*d++ = hex[c >> 4];
			*d++ = hex[c & 15];
		} else {
			*d++ = (char)c;
		}
	}
	*d = '\0';
	free(msg);
	return out;
}

int
ab_diag_add(struct ab_diag *diag, const char *fmt, ...)
{
	va_list ap;
	char *msg, **v;
	int r;

	if (diag == NULL)
		return 0;
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0 || (msg = defang(msg)) == NULL)
		return -ENOMEM;
	if ((v = reallocarray(diag->msg, diag->n + 1, sizeof(*v))) == NULL) {
		free(msg);
		return -ENOMEM;
	}
	v[diag->n++] = msg;
	diag->msg = v;
	return 0;
}

void
ab_diag_free(struct ab_diag *diag)
{
	size_t i;

	if (diag == NULL)
		return;
	for (i = 0; i < diag->n; i++)
		free(diag->msg[i]);
	free(diag->msg);
	diag->msg = NULL;
	diag->n = 0;
}
