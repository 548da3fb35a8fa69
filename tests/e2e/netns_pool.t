#!/bin/bash
# Network namespaces made ahead (issue 11's login cost; maskd/netpool.h): agentbox-maskd
# keeps a few new network namespaces, lo up, and a `network = loopback` or `proxy` login
# takes one at step 3 instead of making its own (~0.4 ms of kernel work off the login's
# clock).  What must hold: each box gets a namespace no other box, and no process but the
# box's, holds once it runs; it has only lo, up; the daemon's forked readers hold none of
# the pool; without a pool the login makes its own, as before; and the module takes only
# a network namespace other than its own from whatever answers on the socket.
# The real `agentbox enroll --network loopback`, the installed module, this world's daemon.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
e2e_enter_private_world "$@"

U=h11n1
PROJ=/home/h11n1-project
PY=/usr/bin/python3
[ -x $PY ] || skip_all "needs $PY"
e2e_enroll_project "$U" "$PROJ" --network loopback
sed -i '/pam_agentbox\.so/s/$/ debug/' /etc/pam.d/common-session ||
    e2e_die "debug on the module line"
login() { su "$U" -c "$1" 2>&1; }
# The network namespaces process $1 holds by fd, one "net:[INODE]" per line, but the one
# it runs in (the daemon keeps an fd of its own, to come back to after making one).
netns_fds() {
	local f own
	own=$(readlink /proc/"$1"/ns/net)
	for f in /proc/"$1"/fd/*; do readlink "$f"; done 2>/dev/null | grep '^net:' |
	    grep -vxF "$own" | sort
}
# The last debug line's "netns HOW".
netns_how() { pam_authlog_find "confined session of $U" | tail -1 | sed -n 's/.*, netns \([a-z]*\),.*/\1/p'; }
wait_pool() {	# wait_pool N: the daemon holds N namespaces again
	local i=0
	while [ $i -lt 50 ]; do
		[ "$(netns_fds "$E2E_MASKD_PID" | wc -l)" = "$1" ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
host_ns=$(readlink /proc/self/ns/net)

## 1. The daemon keeps the pool; a login takes one
wait_pool 4; check $? "agentbox-maskd holds 4 network namespaces made ahead"
pool_before=$(netns_fds "$E2E_MASKD_PID")
is "$(sort -u <<<"$pool_before" | wc -l)" 4 "... each a different one"
pam_authlog_since
out=$(login 'readlink /proc/self/ns/net; cat /proc/net/dev; echo EXIT')
like "$out" "EXIT" "a loopback login opens"
is "$(netns_how)" "pooled" "... in a namespace taken from the pool (debug line: netns pooled)"
ns1=$(head -1 <<<"$out")
grep -qxF "$ns1" <<<"$pool_before"; check $? "... one the daemon held before the login ($ns1)"
ifaces=$(tail -n +2 <<<"$out" | sed -n 's/^ *\([^:]*\):.*/\1/p' | tr '\n' ' ')
is "$ifaces" "lo " "... with only lo in it"
wait_pool 4; check $? "the daemon made another: 4 again"
unlike "$(netns_fds "$E2E_MASKD_PID")" "$ns1" "... and holds no copy of the one it gave"

## 2. Two boxes at once: two namespaces, each held by its own box only
su "$U" -c "$PY -c '
import socket, time
s = socket.socket(); s.bind((\"127.0.0.1\", 4711)); s.listen()
time.sleep(60)'" >/dev/null 2>&1 &
a=$!
defer "kill $a 2>/dev/null"
i=0; until [ -n "$(pgrep -u "$U" -f 'time.sleep\(60\)')" ] || [ $i -gt 50 ]; do sleep 0.1; i=$((i+1)); done
pa=$(pgrep -u "$U" -f 'time.sleep\(60\)' | head -1)
nsa=$(readlink /proc/"$pa"/ns/net 2>/dev/null)
[ -n "$nsa" ] && [ "$nsa" != "$host_ns" ]; check $? "a box that stays: its own namespace ($nsa)"
out=$(login "readlink /proc/self/ns/net; $PY -c '
import socket
s = socket.socket(); s.settimeout(1)
print(\"reach\", s.connect_ex((\"127.0.0.1\", 4711)))'")
nsb=$(head -1 <<<"$out")
[ -n "$nsb" ] && [ "$nsb" != "$nsa" ]; check $? "a second box at the same time gets another ($nsb)"
like "$out" "reach 111" "... lo is up in it, and the first box's server is not on it (refused)"
holders=0
for p in /proc/[0-9]*; do
	[ "$(readlink "$p"/ns/net 2>/dev/null)" = "$nsa" ] && continue	# the box's own processes
	netns_fds "${p#/proc/}" | grep -qxF "$nsa" && { holders=$((holders + 1)); diag "held by ${p#/proc/}: $(cat "$p"/comm)"; }
done
is "$holders" 0 "no process outside the first box holds its namespace by fd"
# A session with masks has a reader forked by the daemon: it holds none of the pool.
readers=$(pgrep -P "$E2E_MASKD_PID")
[ -n "$readers" ]; check $? "the running box has its reader, forked by the daemon"
held=""; for r in $readers; do held+=$(netns_fds "$r"); done
is "$held" "" "... which holds no network namespace of the pool"
kill "$a" 2>/dev/null; wait "$a" 2>/dev/null

## 3. No pool (--netns-pool 0): the login makes its own, as without the daemon's help
kill "$E2E_MASKD_PID"; sleep 0.2
E2E_MASKD_ARGS="--netns-pool 0" _e2e_maskd_start || e2e_die "agentbox-maskd --netns-pool 0"
is "$(netns_fds "$E2E_MASKD_PID" | wc -l)" 0 "--netns-pool 0: the daemon holds no namespace"
pam_authlog_since
out=$(login 'readlink /proc/self/ns/net; echo EXIT')
like "$out" "EXIT" "a loopback login still opens"
is "$(netns_how)" "made" "... in a namespace made at login (debug line: netns made)"
[ "$(head -1 <<<"$out")" != "$host_ns" ]; check $? "... not the host's"

## 4. Whatever answers on the socket: only a new network namespace is taken
# A stand-in for the daemon that answers "netns" with the host's own namespace, with the
# shared one of `network = none`, then with /dev/null: the module must refuse each and
# make its own.  It holds the watcher's lock
# so the login's first question (maskd/unboxed.h) is answered, and refuses every other
# hand-off, so the login is refused later, at step 7 (masks need the real daemon).
kill "$E2E_MASKD_PID"; sleep 0.2
fake_maskd() {
	$PY - "$1" <<'EOF' &
import array, fcntl, os, socket, sys
what = sys.argv[1]
lock = os.open("/run/agentbox-maskd/unboxed/lock", os.O_RDONLY)
fcntl.flock(lock, fcntl.LOCK_EX)
path = "/run/agentbox-maskd/control"
try: os.unlink(path)
except FileNotFoundError: pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(path); s.listen(8)
fd = os.open({"host": "/proc/self/ns/net", "none": "/run/agentbox-netns/none"}.get(what,
             "/dev/null"), os.O_RDONLY)
while True:
    c, _ = s.accept()
    m = c.recv(65536)
    if m == b"netns":
        c.sendmsg([b"ok"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
    else:
        c.send(b"refused a stand-in")
    c.close()
EOF
	FAKE=$!
	i=0; until [ -S /run/agentbox-maskd/control ] && [ $i -gt 2 ] || [ $i -gt 50 ]; do sleep 0.1; i=$((i+1)); done
}
# The shared namespace of `network = none` (lo down for every such box): pinned here as
# the first `none` login would pin it.
mkdir -p -m 0700 /run/agentbox-netns && touch /run/agentbox-netns/none &&
    unshare --net=/run/agentbox-netns/none true || e2e_die "pin a none namespace"
defer "umount /run/agentbox-netns/none; rm -f /run/agentbox-netns/none"
for what in host none devnull; do
	rm -f /run/agentbox-maskd/control
	fake_maskd "$what"
	pam_authlog_since
	out=$(login 'echo EXIT')
	kill $FAKE; wait $FAKE 2>/dev/null
	pam_authlog_find "agentbox-maskd sent something that is not a new network namespace: making one here" >/dev/null
	check $? "a stand-in sending $what as the namespace: the module refuses it, in one auth-log line"
	unlike "$(pam_authlog_find "confined session of $U")" "netns pooled" "... and no box runs in it"
done
rm -f /run/agentbox-maskd/control
_e2e_maskd_start || e2e_die "agentbox-maskd again"
wait_pool 4; check $? "the real daemon again: 4 namespaces made ahead"
like "$(login 'echo EXIT')" "EXIT" "... and logins open again"

finish
