#!/bin/bash
# Escape suite, class "sockets" (invariant 3: no path to a helper running outside):
# ssh-agent, docker, D-Bus (system and session), tmux and X11 sockets of the host,
# abstract sockets of host services and of another agent's session, a pathname socket
# served by an outside process of the same uid handing over an fd with SCM_RIGHTS, and
# fds leaked into the session.  Entered through the test sshd.
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
finish
