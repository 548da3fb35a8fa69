/*
 * The directory-entry events of a FID group (FAN_REPORT_DFID_NAME, with or without
 * _TARGET), parsed out of a read(2) buffer: the tracking group's, fed into S
 * (history.c), and the walk index's (walkindex.c).  Pure: every length the kernel wrote
 * is checked against the buffer before it is used, so a short or malformed buffer is
 * -EPROTO, never a read past its end (tests/unit/test_maskd_history.c feeds such).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/fanotify.h>

#include "maskd.h"

/*
 * One FID info record at P[0..LEN): fsid, file_handle, and (NAME_TOO) a NUL-terminated
 * name after the handle.  Copied out with memcpy: the buffer is not aligned for them.
 */
static int
parse_fid(const unsigned char *p, size_t len, int name_too, struct ab_maskd_key *k,
    const char **name)
{
	struct fanotify_event_info_fid fid;
	struct file_handle fh;
	size_t off = sizeof(fid), hend;

	if (len < off + sizeof(fh))
		return -EPROTO;
	memcpy(&fid, p, sizeof(fid));
	memcpy(&fh, p + off, sizeof(fh));
	if (fh.handle_bytes > AB_MASKD_HANDLE_MAX)
		return -EPROTO;
	hend = off + sizeof(fh) + fh.handle_bytes;
	if (hend > len)
		return -EPROTO;
	memset(k, 0, sizeof(*k));
	memcpy(k->fsid, &fid.fsid, sizeof(k->fsid));
	k->type = fh.handle_type;
	k->len = fh.handle_bytes;
	memcpy(k->h, p + off + sizeof(fh), fh.handle_bytes);
	if (!name_too)
		return 0;
	if (hend >= len || memchr(p + hend, '\0', len - hend) == NULL)
		return -EPROTO;
	*name = (const char *)p + hend;
	return 0;
}

/* The info records of one event at P[0..LEN) (after its metadata) into EV. */
static int
parse_infos(const unsigned char *p, size_t len, struct ab_maskd_dirent_ev *ev)
{
	struct fanotify_event_info_header hdr;
	size_t off = 0;
	int r;

	memset(ev, 0, sizeof(*ev));
	while (off < len) {
		if (len - off < sizeof(hdr))
			return -EPROTO;
		memcpy(&hdr, p + off, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || hdr.len > len - off)
			return -EPROTO;
		switch (hdr.info_type) {
		case FAN_EVENT_INFO_TYPE_FID:
			r = parse_fid(p + off, hdr.len, 0, &ev->target, NULL);
			ev->has_target = r == 0;
			break;
		case FAN_EVENT_INFO_TYPE_DFID_NAME:
		case FAN_EVENT_INFO_TYPE_OLD_DFID_NAME:
		case FAN_EVENT_INFO_TYPE_NEW_DFID_NAME:
			if (ev->nnames == 2)
				return -EPROTO;
			r = parse_fid(p + off, hdr.len, 1, &ev->dir[ev->nnames],
			    &ev->name[ev->nnames]);
			ev->is_old[ev->nnames] =
			    hdr.info_type == FAN_EVENT_INFO_TYPE_OLD_DFID_NAME;
			ev->nnames += r == 0;
			break;
		default:
			r = 0;	/* DFID alone, pidfd, error: nothing about names */
		}
		if (r != 0)
			return r;
		off += hdr.len;
	}
	return 0;
}

int
ab_maskd_events_each(const void *buf, size_t len, ab_maskd_event_fn fn, void *arg)
{
	const unsigned char *p = buf;
	struct fanotify_event_metadata md;
	struct ab_maskd_dirent_ev ev;
	size_t off = 0;
	int r;

	while (off < len) {
		if (len - off < sizeof(md))
			return -EPROTO;
		memcpy(&md, p + off, sizeof(md));
		if (md.vers != FANOTIFY_METADATA_VERSION || md.metadata_len < sizeof(md) ||
		    md.event_len < md.metadata_len || md.event_len > len - off)
			return -EPROTO;
		if (md.mask & FAN_Q_OVERFLOW)
			return -EOVERFLOW;
		if ((r = parse_infos(p + off + md.metadata_len, md.event_len - md.metadata_len,
		    &ev)) != 0)
			return r;
		ev.mask = md.mask;
		ev.pid = md.pid;
		if ((r = fn(arg, &ev)) != 0)
			return r;
		off += md.event_len;
	}
	return 0;
}
