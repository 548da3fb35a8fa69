/*
 * netd/daemon.h: the daemon's own state, shared by main.c, session.c, conn.c and
 * dnsserve.c.  Not a library: these files make up one program, agentbox-netd.
 */
#ifndef AB_NETD_DAEMON_H
#define AB_NETD_DAEMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <openssl/ssl.h>

#include "cred.h"
#include "loader.h"
#include "proto.h"
#include "record.h"
#include "rules.h"

/* Bounds per session (netd-spec §4). */
#define AB_NETD_CONNS_MAX	256	/* concurrent connections (tunnels, DNS over TCP) */
#define AB_NETD_RATE_MAX	64	/* new connections per second */
#define AB_NETD_HEAD_MS		10000	/* the whole request head within this */
#define AB_NETD_DIAL_MS		10000
#define AB_NETD_HELLO_MS	10000	/* the ClientHello after our 200 */
#define AB_NETD_FIRST_MS	1000	/* a named port: the client's first bytes, or dial */
#define AB_NETD_DNS_TCP_MS	10000	/* a DNS-over-TCP connection idle this long: closed */

struct ab_netd_daemon {
	struct ab_netd_recorder *rec;
	struct ab_netd_suffixes *psl;
	const char *registry;		/* directory of per-session files */
	const char *rules_file;		/* tests only: rules instead of the policy's */
	int loader_fd;			/* the policy loader (loader.c) */
	struct ab_netd_polcache *pcache;	/* its last answer per user (polcache.c) */
	unsigned loader_id;		/* its last request */
	uint64_t own_netns;		/* SO_NETNS_COOKIE of our own namespace */
	int epfd;
	struct ab_netd_session *sessions;
	SSL_CTX *tls;			/* the gateways' TLS client; NULL: no trust store */
	uid_t cred_owner;		/* credential files: owner (root; tests: theirs) */
	gid_t cred_group;		/* ... and group (agentbox-netd, ours after the drop) */
	uint16_t gw_port;		/* the credential hosts' port: 443 */
	bool verbose;			/* --verbose: each hand-off's clock on stderr */
	char why[256];			/* a refusal's reason that names a credential */
};

/*
 * One [credential:NAME] of a session, as the loader sent it (no secret), and its secret,
 * which the daemon reads itself at open (session.c says why) and wipes at the end.
 */
struct ab_netd_gwcred {
	char *line;			/* the loader's fields, split in place */
	const char *name, *host, *header, *prefix, *file, *env;	/* prefix: NULL if none */
	char secret[AB_NETD_SECRET_MAX + 1];
	size_t secret_len;
};

/* What an epoll event belongs to. */
enum ab_netd_src {
	AB_NETD_SRC_CONTROL, AB_NETD_SRC_LIFELINE, AB_NETD_SRC_PROXY, AB_NETD_SRC_DNS_TCP,
	AB_NETD_SRC_GATEWAY,
};
struct ab_netd_watch {
	enum ab_netd_src src;
	struct ab_netd_session *s;
	int fd;
};

struct ab_netd_session {
	struct ab_netd_daemon *d;
	struct ab_netd_session *next;
	uint32_t ses, uid;
	char user[AB_NETD_USER_MAX + 1];
	pid_t init_pid;
	unsigned long long start;	/* init's start time, clock ticks after boot */
	int pidfd;
	int fd[AB_NETD_NFDS_MAX];	/* the listeners; fd[0] unused (the pidfd) */
	size_t nfd;
	struct ab_netd_watch watch[AB_NETD_NFDS_MAX];
	struct ab_netd_rules rules;
	struct ab_netd_gwcred *cred;	/* cred[i] is served on fd[AB_NETD_FD_GATEWAY + i] */
	size_t ncred;
	int stopfd;			/* eventfd: readable once the session ended */
	pthread_mutex_t lock;		/* refs, active, rate_ms, tokens */
	unsigned refs;
	unsigned active;
	uint64_t rate_ms;		/* the token bucket's last refill */
	uint64_t tokens;		/* thousandths of a new connection */
};

uint64_t ab_netd_now_ms(void);

/* session.c */
int ab_netd_session_open(struct ab_netd_daemon *d, int conn, const char **why);
void ab_netd_session_end(struct ab_netd_session *s, const char *reason);
void ab_netd_session_unref(struct ab_netd_session *s);
void ab_netd_registry_sweep(struct ab_netd_daemon *d);
/* Count a new connection: 0, or -EAGAIN over the per-second rate, -EMFILE over the cap. */
int ab_netd_session_admit(struct ab_netd_session *s);
void ab_netd_session_release(struct ab_netd_session *s);

/* conn.c: run one accepted connection in a worker thread (takes fd and a session ref);
 * GW: the credential's index for AB_NETD_SRC_GATEWAY. */
int ab_netd_conn_start(struct ab_netd_session *s, int fd, enum ab_netd_src src, size_t gw);
/* An address as text ("?" if it has none); PORT into a sockaddr_in or _in6. */
void ab_netd_addr_text(const struct sockaddr_storage *ss, char *out, size_t cap);
void ab_netd_set_port(struct sockaddr_storage *ss, uint16_t port);
/* Write one denial for S (a refused accept: limit). */
void ab_netd_conn_deny(struct ab_netd_session *s, const char *proto, const char *host,
		       uint16_t port, enum ab_netd_reason reason);

/* gwconn.c: serve one connection on credential GW's gateway listener (netd-spec §4). */
void ab_netd_gateway_conn(struct ab_netd_session *s, int fd, size_t gw);

/* dnsserve.c: the session's UDP answerer thread; TCP connections run in conn threads. */
int ab_netd_dns_udp_start(struct ab_netd_session *s, int fd);
void ab_netd_dns_tcp_serve(struct ab_netd_session *s, int fd);

/* resolve.c: the host's addresses of NAME (never expanded by search domains), checked
 * against the session's address policy; the first refused one's reason when none pass. */
int ab_netd_resolve(const struct ab_netd_session *s, const char *name, int family,
		    struct sockaddr_storage *out, size_t max, size_t *n,
		    enum ab_netd_reason *why, struct sockaddr_storage *refused);

#endif /* AB_NETD_DAEMON_H */
