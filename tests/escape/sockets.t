#!/bin/bash
# Escape suite, class "sockets" (invariant 3: no path to a helper running outside):
# ssh-agent, docker, D-Bus (system and session), tmux and X11 sockets of the host,
# abstract sockets of host services and of another agent's session, a pathname socket
# served by an outside process of the same uid handing over an fd with SCM_RIGHTS, and
# fds leaked into the session.  Entered through the test sshd.  Then two boxes of the
# same agent at once (invariant 2, F11): one hands the other an fd of its home.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"
esc_enroll "$ESC_AGENT2"
uid=$(id -u "$ESC_AGENT")

# Listeners outside, made by the test (this world's /run is private at the top level;
# /tmp is the host's, so the names there are unique and removed on exit).
listen() {	# listen PATH OWNER MODE
	python3 -c '
import os, socket, sys, time
p = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try: os.unlink(p)
except FileNotFoundError: pass
s.bind(p); os.chmod(p, int(sys.argv[2], 8)); s.listen(8)
s.settimeout(300)
while True:
    try: c, _ = s.accept()
    except socket.timeout: break
    c.sendall(b"ABTSECRET-from-" + p.encode() + b"\n"); c.close()
' "$1" "$3" &
	local pid=$!
	defer "kill $pid; rm -f '$1'"
	local i=0; while [ ! -S "$1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -n "$2" ] && chown "$2" "$1"
}
mkdir -p /run/dbus "/run/user/$uid" && chown "$ESC_AGENT" "/run/user/$uid"
listen /run/docker.sock "" 0666
[ -S /run/dbus/system_bus_socket ] || listen /run/dbus/system_bus_socket "" 0666
listen "/run/user/$uid/bus" "$ESC_AGENT" 0600
agent_dir=$(mktemp -d /tmp/ssh-abtesc.XXXXXX); chown "$ESC_AGENT" "$agent_dir"; defer "rm -rf $agent_dir"
listen "$agent_dir/agent.sock" "$ESC_AGENT" 0600
xdir_made=""; [ -d /tmp/.X11-unix ] || { mkdir -m 1777 /tmp/.X11-unix; xdir_made=1; }
listen /tmp/.X11-unix/X77 "" 0777
[ -n "$xdir_made" ] && defer "rmdir /tmp/.X11-unix"
tdir="/tmp/tmux-$uid"; mkdir -p "$tdir"; chown "$ESC_AGENT" "$tdir"; chmod 700 "$tdir"; defer "rm -rf $tdir"
listen "$tdir/default" "$ESC_AGENT" 0600
# Abstract sockets of "host services" in this world's network namespace.
"$ESC" HOSTX alisten /tmp/.X11-unix/X77 200 >/dev/null & defer "kill $!"
"$ESC" HOSTA alisten abt-esc-host-service 200 >/dev/null & defer "kill $!"
# Another agent's session listening on an abstract name.
su "$ESC_AGENT2" -c "$ESC OTHER alisten abt-esc-other-session 60" </dev/null >/dev/null 2>&1 &
defer "kill $!; esc_kill_user $ESC_AGENT2"
# An outside process of the agent's own uid serving an fd of this world's / by SCM_RIGHTS
# on a pathname socket in the project (the project is the one tree both sides share).
# While one runs no login is let in (F7's second defence), so it starts once the
# session is in, and serves before the session tries it.
# It serves up to 1000 connections: it must still run when the next login is tried.
ESC_OUTSIDE_READY=$P/.esc-scm.sock esc_outside_later scm "$ESC" SERVE scm-serve "$P/.esc-scm.sock" / 1000
defer "rm -f $P/.esc-scm.sock"
sleep 0.5

esc_begin sockets
esc_outside_wait scm SERVE_PID
attempt S01 "connect to the host's docker socket"         '!OK' 'rec?' unix /run/docker.sock
attempt S02 "connect to the D-Bus system bus"             '!OK' 'rec?' unix /run/dbus/system_bus_socket
attempt S03 "connect to the agent's D-Bus session bus outside" '!OK' 'rec?' unix "/run/user/$uid/bus"
attempt S04 "connect to an ssh-agent of the agent's uid outside" '!OK' 'rec?' unix "$agent_dir/agent.sock"
attempt S05 "connect to an X11 socket in /tmp"            '!OK' 'rec?' unix /tmp/.X11-unix/X77
attempt S06 "connect to a tmux server of the agent's uid outside" '!OK' 'rec?' unix "$tdir/default"
attempt S07 "connect to X11's abstract socket"            '!OK' 'rec?' abstract /tmp/.X11-unix/X77
attempt S08 "connect to a host service's abstract socket" '!OK' 'rec?' abstract abt-esc-host-service
attempt S09 "connect to another agent session's abstract socket" '!OK' 'rec?' abstract abt-esc-other-session
attempt S10 "SCM_RIGHTS fd of the outside / from a same-uid process: read .env through it" '!OK' 'rec?' scm-recv "$P/.esc-scm.sock" "${P#/}/.env"
attempt S11 "SCM_RIGHTS fd of the outside /: read the developer's notes" '!OK' 'rec?' scm-recv "$P/.esc-scm.sock" "${DH#/}/notes.txt"
attempt S12 "inherited fds above 2 (sshd, PAM, shell leaks)" EBADF - fds
esc_run ssh
esc_check
esc_assert_confined

esc_outside_refuses scm
esc_assert_gone "$ESC_AGENT"

## F11: two boxes of the same agent at once (two `persist = no` logins).  Box A serves an
## O_PATH fd of its home with SCM_RIGHTS on a socket file in the home, one in the project
## and an abstract socket; box B takes it, holds it until A has ended (A's masks and
## fanotify marks went with A's mounts), then opens .ssh/id_ed25519 through it.  Since
## b7d8e76 a socket file is made only in the box's own /tmp, /var/tmp, /dev/shm and
## /run/user/UID (Landlock fs.make_sock), and abstract sockets are scoped to the box
## (Landlock scope.abstract_unix_socket), so the hand-over fails at its first step.
TWO="$P/.esc-2box"
defer "rm -f $TWO.sock $TWO-a-ready $TWO-a-gone $AH/.esc-2box.sock"
rm -f "$TWO-a-ready" "$TWO-a-gone"
esc_begin 2box-a
attempt_bg S13 "box A: a socket file in the shared home, to hand a second box of the agent an O_PATH fd of the home (SCM_RIGHTS)" EACCES rec 'scm-serve "$HOME/.esc-2box.sock" "$HOME" 1 20'
attempt_bg S14 "box A: the same socket file in the project" EACCES rec "scm-serve $TWO.sock \"\$HOME\" 1 20"
attempt_bg S15 "box A: an abstract socket handing out the home fd: no other box takes it" ETIMEDOUT - 'scm-serve @abt-esc-2box "$HOME" 1 20'
raw "i=0; until grep -q '@abt-esc-2box\$' /proc/net/unix || [ \$i -ge 100 ]; do sleep 0.05; i=\$((i + 1)); done; sleep 0.2; touch $TWO-a-ready"
raw 'wait $pid_S13; wait $pid_S14; wait $pid_S15'
esc_run_bg su
# A's end, told to B (which holds A's fd by then if the hand-over worked).
( i=0; while [ ! -e "$E2E_DIR/ended-2box-a" ] && [ $i -lt 1500 ]; do sleep 0.1; i=$((i + 1)); done
  touch "$TWO-a-gone" ) &
defer "kill $! 2>/dev/null"
i=0; while [ ! -e "$TWO-a-ready" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$TWO-a-ready" ]; check $? "box A of $ESC_AGENT runs and listens (abstract @abt-esc-2box)"

esc_begin 2box-b
attempt_bg S16 "box B (same agent, while A runs): take A's home fd on the socket file in the home, hold it until A ends, read A's masked ~/.ssh/id_ed25519" ENOENT - "scm-recv \"\$HOME/.esc-2box.sock\" .ssh/id_ed25519 $TWO-a-gone"
attempt_bg S17 "box B: the same through the socket file in the project" ENOENT - "scm-recv $TWO.sock .ssh/id_ed25519 $TWO-a-gone"
attempt_bg S18 "box B: the same through box A's abstract socket" EPERM rec "scm-recv @abt-esc-2box .ssh/id_ed25519 $TWO-a-gone"
raw 'wait $pid_S16; wait $pid_S17; wait $pid_S18'
raw "[ -e $TWO-a-gone ] && echo 'box A had ended before box B did' || echo 'box A still ran when box B ended'"
esc_run su
esc_check
esc_assert_confined
esc_ll_record S18 scope.abstract_unix_socket
grep -q '^box A still ran' "$ESC_OUT"; check $? "box B's attempts ran while box A ran"

esc_bg_wait
esc_check
esc_assert_confined
esc_ll_record S13 fs.make_sock
esc_ll_record S14 fs.make_sock
[ ! -e "$AH/.esc-2box.sock" ] && [ ! -e "$TWO.sock" ]; check $? "S13/S14 no socket file was made in the home or the project"
is "$(grep -c SECRET-LEAKED "$E2E_DIR/out-2box-a" "$E2E_DIR/out-2box-b" | awk -F: '{ s += $2 } END { print s + 0 }')" 0 \
    "S13-S18 no planted secret reached either box"
esc_assert_gone "$ESC_AGENT"
finish
