/*
 * agentbox check's two questions about `network = proxy` host rules, which need what
 * the policy library must not link (libpsl, for the PAM module's sake):
 *   - is any allow_host / deny_host wildcard on a public suffix ("*.com", "*.co.uk",
 *     "*.github.io")?  Such a rule would open (or pretend to close) names that belong
 *     to everyone; the library already refuses a bare "*" by syntax;
 *   - what does agentbox-netd decide for USER and HOST[:PORT]?  The same deny-wins
 *     decision (netd/host.c ab_netd_decide), with where the deciding rule is written.
 * And one warning: a credential's secret file that agentbox-netd would refuse to read.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abutil.h"
#include "cmd.h"
#include "host.h"
#include "policy.h"

/* P's deny rules then allow rules, parsed; *srcs parallel: where each is written. */
static int
rules_of(const struct ab_policy *p, struct ab_netd_rule **out, const char ***srcs,
    size_t *n)
{
	const struct ab_strv *lists[2] = { &p->deny_host, &p->allow_host };
	const struct ab_strv *from[2] = { &p->deny_host_src, &p->allow_host_src };
	struct ab_netd_rule *r;
	const char **s;
	size_t i, j, k = 0, total = p->deny_host.n + p->allow_host.n;

	r = calloc(total + 1, sizeof(*r));
	s = calloc(total + 1, sizeof(*s));
	if (r == NULL || s == NULL) {
		free(r);
		free(s);
		return -ENOMEM;
	}
	for (i = 0; i < 2; i++)
		for (j = 0; j < lists[i]->n; j++, k++) {
			/* Validated by the policy library with this same parser. */
			if (ab_netd_rule_parse(lists[i]->v[j], i == 0, &r[k], NULL) != 0) {
				free(r);
				free(s);
				return -EINVAL;
			}
			s[k] = j < from[i]->n ? from[i]->v[j] : "?";
		}
	*out = r;
	*srcs = s;
	*n = total;
	return 0;
}

int
admin_hostrules_check(const struct ab_policy *p, struct ab_strv *reported)
{
	struct ab_netd_suffixes *psl = NULL;
	struct ab_netd_rule *rules;
	const char **srcs;
	char *key;
	size_t n, i;
	int r, bad = 0;

	if ((r = rules_of(p, &rules, &srcs, &n)) != 0)
		return r;
	for (i = 0; i < n; i++) {
		if (rules[i].kind != AB_NETD_RULE_WILDCARD)
			continue;
		if (psl == NULL && (r = ab_netd_suffixes_open(&psl)) != 0) {
			fprintf(stderr, "agentbox check: no public suffix list (libpsl): cannot "
			    "check wildcard host rules\n");
			bad = r;
			break;
		}
		if (ab_netd_rule_check(psl, &rules[i]) == 0)
			continue;
		/* One message per rule and place, however many users share it. */
		if (asprintf(&key, "%s %s", srcs[i], rules[i].text) < 0) {
			bad = -ENOMEM;
			break;
		}
		if (!ab_strv_has(reported, key)) {
			fprintf(stderr, "%s: %s: '%s': *.%s is a public suffix: the rule would "
			    "cover names of everyone under it\n", srcs[i],
			    rules[i].deny ? "deny_host" : "allow_host", rules[i].text,
			    rules[i].base);
			if (ab_strv_push(reported, key) != 0)
				bad = -ENOMEM;
			bad = bad != 0 ? bad : -EINVAL;
		}
		free(key);
	}
	ab_netd_suffixes_free(psl);
	free(rules);
	free(srcs);
	return bad;
}

int
admin_host_decide(const struct ab_policy *p, const char *hostport)
{
	struct ab_netd_verdict v;
	struct ab_netd_rule *rules;
	struct ab_netd_host host;
	const char **srcs;
	uint16_t port;
	size_t n;
	int r;

	if (ab_netd_authority_parse(hostport, strlen(hostport), AB_NETD_DEFAULT_PORT, &host,
	    &port) != 0) {
		fprintf(stderr, "agentbox check: --host: not HOST[:PORT] (a name, an IPv4 "
		    "address or a bracketed IPv6 address)\n");
		return 2;
	}
	if (p->network != AB_NET_PROXY) {
		fprintf(stderr, "agentbox check: --host: %s has network = %s; host rules apply "
		    "only with network = proxy\n", p->user, ab_network_name(p->network));
		return 2;
	}
	if ((r = rules_of(p, &rules, &srcs, &n)) != 0) {
		fprintf(stderr, "agentbox check: %s: %s\n", p->user, strerror(-r));
		return 1;
	}
	ab_netd_decide(rules, n, &host, port, &v);
	if (v.rule == NULL)
		printf("denied: no allow_host matches\n");
	else
		printf("%s by %s (%s)\n", v.allow ? "allowed" : "denied", srcs[v.index], v.rule);
	free(rules);
	free(srcs);
	return v.allow ? 0 : 4;
}

/* Why agentbox-netd would refuse FILE (root:agentbox-netd, mode 0640), or NULL. */
static const char *
secret_file_why(const char *file)
{
	struct group *g;
	struct stat st;
	int fd;

	/* O_PATH: look at the file without reading the secret. */
	if ((fd = open(file, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return errno == ENOENT ? "does not exist" : "cannot be opened (or is a symlink)";
	if (fstat(fd, &st) == -1) {
		close(fd);
		return "cannot be examined";
	}
	close(fd);
	if (!S_ISREG(st.st_mode))
		return "is not a regular file";
	if (st.st_uid != 0)
		return "is not owned by root";
	if ((g = getgrnam("agentbox-netd")) == NULL || st.st_gid != g->gr_gid)
		return "is not in group agentbox-netd";
	if ((st.st_mode & 07777) != 0640)
		return "does not have mode 0640";
	return NULL;
}

void
admin_creds_warn(const struct ab_policy *p, struct ab_strv *reported)
{
	const char *why;
	size_t i;

	for (i = 0; i < p->ncreds; i++) {
		const char *file = p->creds[i].file;

		if (ab_strv_has(reported, file) || (why = secret_file_why(file)) == NULL)
			continue;
		fprintf(stderr, "agentbox check: warning: [credential:%s] file %s %s: "
		    "agentbox-netd refuses sessions using it (want root:agentbox-netd, 0640)\n",
		    p->creds[i].name, file, why);
		(void)ab_strv_push(reported, file);	/* only repeats a warning if it fails */
	}
}
