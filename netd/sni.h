/*
 * netd/sni.h: the server name a TLS client asks for, read from the first bytes of a
 * CONNECT tunnel, so the daemon can cut a tunnel whose SNI is not the CONNECT host.
 *
 * Pure: bytes in, a result out, no allocation, no global state; 0 or -errno, no printing.
 */
#ifndef AB_NETD_SNI_H
#define AB_NETD_SNI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"

/* Largest ClientHello body taken (RFC 8446 allows 2^24 - 1; real ones are under 2 KiB
 * even with post-quantum key shares). It may span several records: they are joined. */
#define AB_SNI_HELLO_MAX 16384

#define AB_TLS_EXT_SERVER_NAME 0x0000	/* RFC 6066 §3 */
#define AB_TLS_EXT_ECH 0xfe0d		/* RFC 9849 encrypted_client_hello */
#define AB_TLS_EXT_ESNI 0xffce		/* draft-ietf-tls-esni <= -02, encrypted SNI */

struct ab_sni_result {
	bool has_name;		/* a host_name was sent in the clear */
	struct ab_netd_host name;	/* it, normalised (never an IP literal: RFC 6066) */
	/* ECH or the older ESNI was offered: the real name may differ from NAME, which is
	 * then only the outer (public) name. Chrome also sends a GREASE ECH extension that
	 * cannot be told from a real one (RFC 9849 §6.2): that is the point of it. */
	bool ech;
};

struct ab_sni_parser {
	uint8_t rec[5];		/* the record header being read */
	size_t rec_have;
	size_t rec_left;	/* fragment bytes of the current record still to come */
	uint8_t msg[4 + AB_SNI_HELLO_MAX];	/* handshake header + ClientHello body */
	size_t msg_len;
	int state;		/* 0 reading, 1 complete, or the sticky -errno */
	struct ab_sni_result res;
};

void ab_sni_init(struct ab_sni_parser *p);

/*
 * Feed the next bytes the client sent through the tunnel; the caller keeps its own copy
 * to forward. *used counts the bytes that belonged to the ClientHello's records.
 *   0          complete: P->res is filled (no name at all: has_name false);
 *   -EAGAIN    need more; all LEN bytes were taken;
 *   -EPROTO    not a TLS handshake record (first byte not 22, or an SSLv2 hello);
 *   -EMSGSIZE  the ClientHello is larger than AB_SNI_HELLO_MAX;
 *   -EBADMSG   malformed: bad lengths, a zero-length record, another record type or
 *              another handshake message before the ClientHello ends, bytes after it
 *              in its last record, a repeated server_name or ECH extension, more than
 *              one name or a name type other than host_name, an invalid host name.
 * An error is sticky.
 */
int ab_sni_feed(struct ab_sni_parser *p, const void *buf, size_t len, size_t *used);

#endif /* AB_NETD_SNI_H */
