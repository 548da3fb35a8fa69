/*
 * Minimal TAP producer for C unit tests run under prove (bubblewrap tests/ style).
 *   ok(cond, "what it shows %s", arg);   ...   return done_testing();
 * A failing check prints the condition, file and line as a TAP diagnostic.
 */
#ifndef AB_TAP_H
#define AB_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static void __attribute__((format(printf, 5, 6), unused))
tap_ok(int pass, const char *cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		printf("#   failed: %s at %s:%d\n", cond, file, line);
	}
	fflush(stdout);
}

#define ok(cond, ...) tap_ok(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)
#define diag(...) (printf("# " __VA_ARGS__), printf("\n"))
#define done_testing() (printf("1..%d\n", tap_n), tap_failed != 0)

#endif /* AB_TAP_H */
