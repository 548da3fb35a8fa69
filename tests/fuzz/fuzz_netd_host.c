/*
 * libFuzzer: bytes -> ab_netd_host_parse, ab_netd_authority_parse, ab_netd_rule_parse.
 * The normal form must be a fixed point (parsing it again gives it back), so a rule and
 * a request can never disagree on spelling; a name rule must match its own name and a
 * wildcard must never match its own base; an address rule must match its own address.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_host(const struct ab_netd_host *h)
{
	char buf[AB_NETD_NAME_MAX + 3];
	struct ab_netd_host again;
	size_t n = strlen(h->text);

	if (n == 0 || n > AB_NETD_NAME_MAX)
		abort();
	if (h->kind == AB_NETD_HOST_IPV6) {
		buf[0] = '[';
		memcpy(buf + 1, h->text, n);
		buf[n + 1] = ']';
		n += 2;
	} else
		memcpy(buf, h->text, n);
	if (ab_netd_host_parse(buf, n, &again) != 0 || again.kind != h->kind ||
	    strcmp(again.text, h->text) != 0 || memcmp(again.addr, h->addr, 16) != 0)
		abort();
}

static void
check_rule(const struct ab_netd_rule *r)
{
	struct ab_netd_host h;

	memset(&h, 0, sizeof(h));
	if (r->kind == AB_NETD_RULE_NAME || r->kind == AB_NETD_RULE_WILDCARD) {
		if (ab_netd_host_parse(r->base, strlen(r->base), &h) != 0 ||
		    h.kind != AB_NETD_HOST_NAME)
			abort();
		if (ab_netd_rule_match(r, &h, r->port) != (r->kind == AB_NETD_RULE_NAME))
			abort();
		return;
	}
	h.kind = r->kind == AB_NETD_RULE_IPV4 ? AB_NETD_HOST_IPV4 : AB_NETD_HOST_IPV6;
	memcpy(h.addr, r->addr, 16);
	if (!ab_netd_rule_match(r, &h, r->port))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[AB_NETD_RULE_TEXT_MAX + 1];
	struct ab_netd_host h;
	struct ab_netd_rule r;
	uint16_t port;

	if (ab_netd_host_parse((const char *)data, size, &h) == 0)
		check_host(&h);
	if (ab_netd_authority_parse((const char *)data, size, 443, &h, &port) == 0) {
		check_host(&h);
		if (port == 0)
			abort();
	}
	if (size <= AB_NETD_RULE_TEXT_MAX) {
		memcpy(text, data, size);
		text[size] = '\0';
		if (ab_netd_rule_parse(text, size % 2, &r, NULL) == 0) {
			if (strcmp(r.text, text) != 0 || r.port == 0)
				abort();
			check_rule(&r);
		}
	}
	return 0;
}
