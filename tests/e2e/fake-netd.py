#!/usr/bin/python3
# A stand-in for agentbox-netd's control side, for tests/e2e/netd_pam.t: takes the
# PAM module's `open` message (netd-spec.md section 3), checks it as the daemon must,
# and answers.  It serves no traffic: it keeps the listeners (so the box's 3128 stays
# open) and, to show they reach it, accepts one connection on the proxy listener and
# writes one line into it.
#
#   fake-netd.py SOCKET LOG MODE
#   MODE: ok | error (replies "error x") | silent | fast (ok before the checks)
#
# Every message, check and verdict goes to LOG, one "key value" line each, for the test
# to assert on.  Bounded: it exits after 120 s or 64 connections, whichever first.
import array
import fcntl
import os
import socket
import struct
import sys
import threading
import time

SIOCGSKNS = 0x894C
PIDFD_GET_NET_NAMESPACE = 0xFF04	# _IO(PIDFS_IOCTL_MAGIC 0xFF, 4), Linux 6.11
PORTS = [(socket.SOCK_STREAM, 3128), (socket.SOCK_DGRAM, 53), (socket.SOCK_STREAM, 53)]

path, logpath, mode = sys.argv[1], sys.argv[2], sys.argv[3]
log = open(logpath, "a", buffering=1)
kept = []


def say(*a):
	log.write(" ".join(str(x) for x in a) + "\n")


def ns_ino(fd):
	return os.fstat(fd).st_ino


def check_listener(fd, want_type, want_port, box_ns):
	s = socket.socket(fileno=os.dup(fd))
	try:
		if s.family != socket.AF_INET or s.type != want_type:
			return "family/type %s/%s" % (s.family, s.type)
		if s.getsockname() != ("127.0.0.1", want_port):
			return "bound to %s" % (s.getsockname(),)
		if want_type == socket.SOCK_STREAM and \
		   not s.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
			return "not listening"
		if not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK:
			return "not O_NONBLOCK"
		if not s.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR):
			return "no SO_REUSEADDR"
		ns = fcntl.ioctl(fd, SIOCGSKNS)
		ino = ns_ino(ns)
		os.close(ns)
		if ino != box_ns:
			return "not in the box's netns"
		if ino == os.stat("/proc/self/ns/net").st_ino:
			return "in the daemon's own netns"
		return None
	finally:
		s.detach()


def pidfd_pid(fd):
	if os.readlink("/proc/self/fd/%d" % fd) != "anon_inode:[pidfd]":
		return None
	for line in open("/proc/self/fdinfo/%d" % fd):
		if line.startswith("Pid:"):
			return int(line.split()[1])
	return None


def greet(fd, ses):
	s = socket.socket(fileno=os.dup(fd))
	s.setblocking(True)
	s.settimeout(60)
	try:
		c, _ = s.accept()
		c.sendall(b"fake-netd ses=%s\n" % ses.encode())
		c.close()
	except OSError:
		pass


def handle(conn):
	pid, uid, gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET,
	    socket.SO_PEERCRED, struct.calcsize("3i")))
	say("peer_uid", uid)
	if uid != 0:
		say("verdict refused-peer")
		return
	conn.settimeout(5)
	fds = array.array("i")
	msg, anc, flags, _ = conn.recvmsg(2048, socket.CMSG_SPACE(32 * fds.itemsize))
	for level, typ, data in anc:
		if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
			fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
	fds = list(fds)
	kept.extend(fds)
	if mode == "fast":	# the reply first, as a C daemon's checks cost next to nothing
		conn.send(b"ok")
	say("msg_bytes", len(msg))
	say("msg_hex", msg.hex())
	say("nfds", len(fds))
	problems = []
	if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
		problems.append("truncated")
	text = msg.decode("ascii", "replace")
	if not text.endswith("\n"):
		problems.append("last line not ended")
	lines = text.split("\n")[:-1]
	if not lines or lines[0] != "agentbox-netd 1":
		problems.append("magic")
	kv = dict(l.split("=", 1) for l in lines[1:] if "=" in l)
	keys = [l.split("=", 1)[0] for l in lines[1:]]
	if keys != ["op", "ses", "uid", "user", "digest", "init_pid", "ncred"]:
		problems.append("keys %s" % keys)
	for k in keys:
		say("field", k, kv.get(k, "?"))
	ncred = int(kv.get("ncred", "-1"))
	if len(fds) != 4 + ncred:
		problems.append("%d fds for ncred %d" % (len(fds), ncred))
	if fds and pidfd_pid(fds[0]) != int(kv.get("init_pid", "0")):
		problems.append("fd 0 is not the pidfd of init_pid")
	if fds:
		ns = fcntl.ioctl(fds[0], PIDFD_GET_NET_NAMESPACE)
		box_ns = ns_ino(ns)
		os.close(ns)
		want = PORTS + [(socket.SOCK_STREAM, 3129 + i) for i in range(max(ncred, 0))]
		for fd, (typ, port) in zip(fds[1:], want):
			why = check_listener(fd, typ, port, box_ns)
			if why:
				problems.append("port %d: %s" % (port, why))
	say("problems", ";".join(problems) if problems else "none")
	if mode == "silent":
		say("verdict silent")
		time.sleep(4)
		return
	if mode == "fast":
		say("verdict ok")
		return
	if problems or mode == "error":
		conn.send(b"error x")
		say("verdict error")
		return
	conn.send(b"ok")
	say("verdict ok")
	threading.Thread(target=greet, args=(fds[1], kv["ses"]), daemon=True).start()


def main():
	os.makedirs(os.path.dirname(path), mode=0o711, exist_ok=True)
	try:
		os.unlink(path)
	except FileNotFoundError:
		pass
	srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
	old = os.umask(0o177)
	srv.bind(path)
	os.umask(old)
	srv.listen(16)
	srv.settimeout(1)
	say("listening", path)
	deadline = time.monotonic() + 120
	served = 0
	while time.monotonic() < deadline and served < 64:
		try:
			conn, _ = srv.accept()
		except socket.timeout:
			continue
		served += 1
		try:
			handle(conn)
		except Exception as e:	# a broken message is a test failure, not a crash
			say("exception", repr(e))
		conn.close()


main()
