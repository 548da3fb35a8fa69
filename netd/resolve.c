/*
 * netd/resolve.c: resolve an allowed name on the host and keep only the addresses the
 * session may dial.  Runs in worker threads (getaddrinfo blocks), never in the loop, and
 * is only ever called after the name decision allowed the name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

/*
 * getaddrinfo without search domains.  "NAME." first: DNS takes it as absolute, so
 * resolv.conf's search list never turns "db" into "db.corp".  glibc's files backend
 * does not match "NAME." against /etc/hosts, so when that fails, "NAME" once more with
 * this thread's resolver told not to search (RES_DNSRCH, RES_DEFNAMES: res_nsearch then
 * queries the name as it is, and only that).
 */
static int
lookup(const char *fqdn, const struct addrinfo *hints, struct addrinfo **res)
{
	char name[AB_NETD_NAME_MAX + 1];
	size_t len = strlen(fqdn);
	int r;

	if ((r = getaddrinfo(fqdn, NULL, hints, res)) != EAI_NONAME &&
	    r != EAI_NODATA)
		return r;
	memcpy(name, fqdn, len - 1);
	name[len - 1] = '\0';
	if ((_res.options & RES_INIT) == 0 && res_init() != 0)
		return EAI_FAIL;
	_res.options &= ~(unsigned long)(RES_DNSRCH | RES_DEFNAMES);
	return getaddrinfo(name, NULL, hints, res);
}

int
ab_netd_resolve(const struct ab_netd_session *s, const char *name, int family,
		struct sockaddr_storage *out, size_t max, size_t *n,
		enum ab_netd_reason *why, struct sockaddr_storage *refused)
{
	struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL, *ai;
	struct ab_netd_cidr *host = NULL;
	size_t nhost = 0;
	char fqdn[AB_NETD_NAME_MAX + 2];
	int r;

	*n = 0;
	*why = AB_NETD_R_RESOLVE_FAILED;
	/* The final dot: resolv.conf's search domains never turn "db" into "db.corp". */
	if ((size_t)snprintf(fqdn, sizeof(fqdn), "%s.", name) >= sizeof(fqdn))
		return -EINVAL;
	/* A fresh snapshot: an address added to the host since is refused too. */
	if ((r = ab_netd_addr_host_list(&host, &nhost)) != 0)
		return r;
	if (lookup(fqdn, &hints, &res) != 0) {
		free(host);
		return -EHOSTUNREACH;
	}
	for (ai = res; ai != NULL && *n < max; ai = ai->ai_next) {
		struct sockaddr_storage ss = { 0 };
		enum ab_netd_reason reason;

		if (ai->ai_addrlen > sizeof(ss))
			continue;
		memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
		if (ab_netd_decide_addr(&s->rules, host, nhost, &ss, &reason)) {
			out[(*n)++] = ss;
		} else if (*why == AB_NETD_R_RESOLVE_FAILED) {
			*why = reason;	/* the first refusal names the record */
			if (refused != NULL)
				*refused = ss;
		}
	}
	freeaddrinfo(res);
	free(host);
	if (*n > 0)
		*why = AB_NETD_R_NONE;
	return 0;
}
