/* Diagnostics for people: "FILE:LINE: reason" lines collected, never printed here. */
#define _GNU_SOURCE	/* qsort_r, vasprintf, asprintf, strchrnul */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

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
	if (r < 0)
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
