/*
 * Kernel interfaces newer than Debian 12's glibc 2.36 / linux-libc-dev 6.1 headers.
 * Only what pam_agentbox and agentbox-maskd use; every definition is guarded so newer headers win.
 * Note: <linux/mount.h> clashes with glibc 2.36's <sys/mount.h>, so nothing here
 * includes it: <sys/mount.h> already has the new mount API (open_tree, move_mount,
 * mount_setattr) and its MOUNT_ATTR_* constants.
 */
#ifndef AB_PAM_COMPAT_H
#define AB_PAM_COMPAT_H

#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_openat2
#define __NR_openat2 437
#endif

/* <linux/openat2.h> (5.6): repeated here so this header stays self-contained. */
#ifndef RESOLVE_NO_XDEV
struct open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};
#define RESOLVE_NO_XDEV		0x01
#define RESOLVE_NO_MAGICLINKS	0x02
#define RESOLVE_NO_SYMLINKS	0x04
#define RESOLVE_BENEATH		0x08
#define RESOLVE_IN_ROOT		0x10
#endif

/* glibc 2.36 has no openat2() wrapper (pidfd_open and friends it has, <sys/pidfd.h>). */
static inline int
ab_openat2(int dirfd, const char *path, struct open_how *how)
{
	return (int)syscall(__NR_openat2, dirfd, path, how, sizeof(*how));
}

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOUNT_ATTR_NOSYMFOLLOW
#define MOUNT_ATTR_NOSYMFOLLOW 0x00200000
#endif

/* statx's mount id that is never reused (6.8).  The kernel's stx_mnt_id (5.8) is the
 * u64 at offset 0x90, after stx_dev_minor: glibc 2.36's struct statx has it as padding,
 * <linux/stat.h>'s by name, so it is read by offset from either. */
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#define AB_STATX_MNT_ID_OFF	0x90
static inline uint64_t
ab_statx_mnt_id(const struct statx *st)
{
	uint64_t v;

	_Static_assert(sizeof(struct statx) >= AB_STATX_MNT_ID_OFF + sizeof(uint64_t),
	    "struct statx holds stx_mnt_id");
	__builtin_memcpy(&v, (const unsigned char *)st + AB_STATX_MNT_ID_OFF, sizeof(v));
	return v;
}

/* A pidfd of a socket's peer (6.5), and the mount namespace of a pidfd's process (6.11):
 * Debian 12's headers (6.1) have neither.  77 is the generic socket ABI's number (alpha,
 * mips, parisc and sparc have their own): elsewhere it stays undefined, and nothing is
 * held (agentbox-maskd's world_hold). */
#if !defined(SO_PEERPIDFD) && (defined(__x86_64__) || defined(__i386__) || \
    defined(__aarch64__) || defined(__arm__) || defined(__riscv) || defined(__powerpc__) || \
    defined(__s390__) || defined(__loongarch__))
#define SO_PEERPIDFD 77
#endif
#ifndef PIDFD_GET_MNT_NAMESPACE
#define PIDFD_GET_MNT_NAMESPACE _IO(0xFF, 3)
#endif

#endif /* AB_PAM_COMPAT_H */
