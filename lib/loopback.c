/* loopback.c: lo up in the network namespace this thread is in.  One flag: the
 * SIOCSIFFLAGS ioctl, no netlink library for it. */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "abutil.h"

int
ab_lo_up(void)
{
	struct ifreq ifr;
	int fd, r = 0;

	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == -1)
		r = -errno;
	else if (!(ifr.ifr_flags & IFF_UP)) {	/* a namespace made ahead has it up */
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) == -1)
			r = -errno;
	}
	(void)close(fd);
	return r;
}
