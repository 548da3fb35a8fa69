/*
 * sessfail.c: how a step of the session says why it failed.  In a file of its own so
 * that the steps (world.c, mask.c, entry.c, ...) and pam_agentbox.c, which calls them,
 * do not depend on each other both ways, and a test can link one step alone.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>

#include "module.h"

int
ab_sess_fail(struct ab_sess *s, int r, const char *fmt, ...)
{
	va_list ap;

	/* The first failure is the cause; later ones are mostly its consequences. */
	if (s->why[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(s->why, sizeof(s->why), fmt, ap);
		va_end(ap);
	}
	return r;
}
