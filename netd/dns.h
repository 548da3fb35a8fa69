/*
 * The box's DNS answerer, wire side (dns.c): parse one query from the box, build the
 * reply.  Pure code: no sockets, no lookups, no allocation, no global state.  The I/O
 * around it (the listeners PAM made in the session's netns) lives in the daemon.
 */
#ifndef AB_NETD_DNS_H
#define AB_NETD_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define AB_NETD_DNS_NAME_MAX	253	/* presentation form, no final dot (RFC 1035 2.3.4) */
#define AB_NETD_DNS_WIRE_MAX	255	/* the same name on the wire, root label included */
#define AB_NETD_DNS_QUERY_MAX	1232	/* larger queries are refused unread (FORMERR) */
#define AB_NETD_DNS_UDP_MAX	1232	/* our largest UDP reply: no IP fragments (DNS flag day 2020) */
#define AB_NETD_DNS_ANSWERS_MAX 16	/* addresses per reply */
#define AB_NETD_DNS_TTL		5	/* seconds: see dns.c */

/* Response codes we send (RFC 1035 4.1.1, RFC 6891 9 for BADVERS). */
enum {
	AB_NETD_DNS_NOERROR = 0,
	AB_NETD_DNS_FORMERR = 1,
	AB_NETD_DNS_SERVFAIL = 2,
	AB_NETD_DNS_NOTIMP = 4,
	AB_NETD_DNS_REFUSED = 5,
	AB_NETD_DNS_BADVERS = 16,
};

enum { AB_NETD_DNS_A = 1, AB_NETD_DNS_AAAA = 28, AB_NETD_DNS_OPT = 41 };

struct ab_netd_dns_query {
	uint16_t id;
	uint16_t flags;		/* the query's header flags, for RD/CD echo */
	uint16_t qtype;
	uint16_t qclass;
	bool edns;		/* an OPT record came with it */
	uint8_t edns_version;
	uint16_t udp_size;	/* reply size the client takes over UDP: 512..AB_NETD_DNS_UDP_MAX */
	size_t qwire_len;	/* the question as sent: name, type, class (case kept: 0x20 clients) */
	uint8_t qwire[AB_NETD_DNS_WIRE_MAX + 4];
	char name[AB_NETD_DNS_NAME_MAX + 1];	/* lower case, no final dot; "" for the root */
};

/*
 * Parse one DNS message from the box (UDP payload, or a TCP message without its length
 * prefix) into *q.  Returns:
 *   0            a query with one IN-or-other-class question, *q filled;
 *   -EBADMSG     no reply at all: shorter than a header, or QR=1 (a response sent to us:
 *                answering answers is how reflection loops start);
 *   -EOPNOTSUPP  OPCODE is not QUERY: reply NOTIMP (q->id, q->flags set);
 *   -EPROTO      malformed but with a header: reply FORMERR (q->id, q->flags set);
 *   -EILSEQ      a well-formed name with bytes other than letters, digits, '-', '_':
 *                it can name nothing the policy allows; reply REFUSED (question kept,
 *                q->name empty).
 */
int ab_netd_dns_parse(const uint8_t *msg, size_t len, struct ab_netd_dns_query *q);

/*
 * Build the reply to *q with rcode and, for NOERROR, the addresses of addrs[0..n) whose
 * family fits q->qtype (others are skipped; none fitting is NODATA).  The question is
 * echoed unless rcode is FORMERR or NOTIMP.  At most AB_NETD_DNS_ANSWERS_MAX answers,
 * and over UDP (tcp false) at most q->udp_size bytes: answers that do not fit are left
 * out and TC is set.  With tcp true the message is written after a 2-byte length prefix.
 * Returns 0 and *outlen, or -ENOBUFS when cap cannot hold a header and the question.
 */
int ab_netd_dns_reply(const struct ab_netd_dns_query *q, int rcode,
		      const struct sockaddr_storage *addrs, size_t n, bool tcp,
		      uint8_t *out, size_t cap, size_t *outlen);

/*
 * What the answerer asks of its caller.  allowed(): 1 the session's policy allows name,
 * 0 it does not, -errno could not decide (the box gets SERVFAIL).  resolve(): the host's
 * addresses of an allowed name for family AF_INET or AF_INET6, already filtered by the
 * address policy, at most max into out, count in *n; 0 or -errno (SERVFAIL).  resolve is
 * never called for a name allowed() did not allow.
 */
struct ab_netd_dns_hooks {
	int (*allowed)(void *ctx, const char *name);
	int (*resolve)(void *ctx, const char *name, int family, struct sockaddr_storage *out,
		       size_t max, size_t *n);
	void *ctx;
};

/* What happened to one query, for its audit record. */
struct ab_netd_dns_verdict {
	int rcode;		/* what the box was told; -1 when nothing was sent */
	bool decided;		/* allowed() was asked about name */
	bool allowed;		/* ... and said yes */
	uint16_t qtype;
	char name[AB_NETD_DNS_NAME_MAX + 1];
};

/*
 * Answer one message from the box: parse, decide on the name, resolve only what is
 * allowed, build the reply.  in/len is one UDP payload, or one TCP message without its
 * prefix (see ab_netd_dns_tcp_next); with tcp true the reply gets its prefix.  Returns 0
 * with *outlen bytes to send (0: send nothing), or -ENOBUFS when cap is below 514.
 */
int ab_netd_dns_answer(const struct ab_netd_dns_hooks *h, const uint8_t *in, size_t len,
		       bool tcp, uint8_t *out, size_t cap, size_t *outlen,
		       struct ab_netd_dns_verdict *v);

/*
 * Find the next whole message in bytes buffered from a TCP connection (RFC 1035 4.2.2:
 * a 2-byte length before each).  Returns 0 with *msg, *msglen and *used (bytes to drop
 * from the buffer); -EAGAIN when more bytes are needed; -EMSGSIZE when the length is 0
 * or over AB_NETD_DNS_QUERY_MAX (close the connection: we never buffer more).
 */
int ab_netd_dns_tcp_next(const uint8_t *buf, size_t len, const uint8_t **msg,
			 size_t *msglen, size_t *used);

#endif /* AB_NETD_DNS_H */
