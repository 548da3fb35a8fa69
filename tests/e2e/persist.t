#!/bin/bash
# persist = yes end to end (issue 15): the real `agentbox enroll`, real su and sshd, in
# the harness's private world.  A tmux server started by one login survives its logout;
# later logins (su, ssh) join the box and find it; each login is confined by its own
# agentbox-shell and keeps its own audit session, whose records name the box; a policy
# change, agentbox stop and linger end the box with every process; persist = no is
# unchanged.  Escape rows: what a process left by one login can do to a later one.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
e2e_enter_private_world "$@"

U=h15p1			# persist = yes
V=h15p2			# persist = no, same host
PROJ=/home/h15p1-project
PROJV=/home/h15p2-project
TRY=/usr/local/bin/try-op
PORT=2215
SOCK=/tmp/h15.sock	# in the box's private /tmp: only a login in the box finds it
for c in tmux ssh sshd; do
	command -v "$c" >/dev/null || skip_all "needs $c"
done

install -D -m 0755 "$BUILD/try-op" "$TRY" || e2e_die "install try-op"
mkdir -p "$PROJ" "$PROJV" && chmod 0755 "$PROJ" "$PROJV"
# Outside every rule (/mnt is not in the default read set); a tmpfs of this world only.
mount -t tmpfs -o mode=0755 h15-out /mnt || e2e_die "tmpfs /mnt"
echo outside > /mnt/outside.txt && chmod 0644 /mnt/outside.txt
e2e_enroll_retry "$U" --project "$PROJ"
e2e_enroll_retry "$V" --project "$PROJV"
uid=$(id -u "$U"); vuid=$(id -u "$V")
CONF=/etc/agentbox/policy.d/$U.conf
[ -f "$CONF" ] || e2e_die "no $CONF"
printf 'persist = yes\nlinger = 0\n' >> "$CONF"
"$E2E_AGENTBOX" check >/dev/null || e2e_die "policy with persist does not check"
# Whatever happens below, no box of ours outlives the test.
defer "$E2E_AGENTBOX stop $U >/dev/null 2>&1"
defer "$E2E_AGENTBOX stop $V >/dev/null 2>&1"

as() { su "$U" -c "$1"; }
reg() { cat "/run/agentbox-box/$uid" 2>/dev/null; }
box_id() { reg | cut -d' ' -f1; }
box_pid() { reg | cut -d' ' -f2; }
# The audit session id of a login's start record with box_op=$1 since the mark.
start_ses() {
	e2e_audit_find - "op=agentbox-session-start .*user=\"?$U\"? .*box_op=$1" 5 |
	    grep -o 'op=agentbox-session-start ses=[0-9]*' | tail -1 | cut -d= -f3
}
procs_of() { ps -e -o uid=,pid=,args= | awk -v u="$1" '$1 == u'; }
# Running, not a zombie: a box's pid 1 outlives su, and this machine's init may never reap it.
alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$st" ] && [ "${st#Z}" = "$st" ]; }
wait_gone() { local i=0; while [ -n "$(procs_of "$1")" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; }

## 1. The first login builds the box; its tmux server outlives the logout
e2e_audit_since
as "tmux -S $SOCK new-session -d -s work 'sleep 7777'" ||
    not_ok "su: tmux new-session -d"
id1=$(box_id); pid1=$(box_pid)
[ -n "$id1" ] && [ -n "$pid1" ]; check $? "the registry names the box (id $id1, pid 1 $pid1)"
ses1=$(start_ses build)
is "$ses1" "$id1" "the box's id is the audit session of the login that built it"
e2e_audit_find - "op=agentbox-session-end ses=$ses1 .*box=$id1" >/dev/null
check $? "the first login's end record names the box"
alive "$pid1"; check $? "the box's pid 1 lives on after the logout"
procs_of "$uid" | grep -q 'sleep 7777'; check $? "the program in tmux runs on after the logout"

## 2. A later login joins: tmux ls and attach find the running program
e2e_audit_since
out=$(as "tmux -S $SOCK ls; tmux -S $SOCK list-panes -t work -F '#{pane_current_command}'")
like "$out" "work:" "a new su login finds the tmux session (tmux ls)"
like "$out" "sleep" "... and the program running in it"
ses2=$(start_ses join)
[ -n "$ses2" ] && [ "$ses2" != "$ses1" ]; check $? "the joining login has its own audit session ($ses2)"
e2e_audit_find - "op=agentbox-session-start ses=$ses2 .*box=$id1 box_op=join" >/dev/null
check $? "... whose start record names the box"
is "$(box_id)" "$id1" "joining did not build a new box"
# attach from a terminal: tmux in a host tmux pane running su, as a person would
hsock="$E2E_DIR/host-tmux.sock"
tmux -S "$hsock" new-session -d -x 100 -y 20 "su - $U -c 'tmux -S $SOCK attach -t work'" ||
    not_ok "host tmux"
defer "tmux -S '$hsock' kill-server 2>/dev/null"
i=0; while ! tmux -S "$hsock" capture-pane -p | grep -q 'work' && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
like "$(tmux -S "$hsock" capture-pane -p)" "[work]" "tmux attach from a new login shows the session"
tmux -S "$hsock" kill-server 2>/dev/null

## 3. ssh joins the same box
e2e_sshd_start "$PORT"
e2e_ssh_key "$U"
out=$(e2e_ssh "$U" "$PORT" "tmux -S $SOCK ls; grep Seccomp: /proc/self/status" 2>&1)
like "$out" "work:" "an ssh login finds the tmux session"
like "$out" "Seccomp:	2" "... and is confined (seccomp)"

## 4. Two logins at once share the box and are both confined, each on its own record
e2e_audit_since
as "readlink /proc/self/ns/pid /proc/self/ns/mnt > $PROJ/ns.a; sleep 2" &
bg=$!
sleep 0.5
nsb=$(as "readlink /proc/self/ns/pid /proc/self/ns/mnt")
wait $bg
is "$nsb" "$(cat "$PROJ/ns.a")" "two logins at once are in the same pid and mount namespaces"
for who in a b; do
	out=$(as "echo \$\$ > $PROJ/login.$who; $TRY read /mnt/outside.txt"); rc=$?
	is "$rc" 13 "login $who: a read outside the read set is denied (EACCES)"
done
e2e_audit_find - '(UNKNOWN\[1423\]|LANDLOCK_ACCESS).*path="/mnt/outside\.txt"' >/dev/null
sess=$(e2e_audit_records | grep -E 'type=SYSCALL.*comm="try-op"' | grep -o ' ses=[0-9]*' | sort -u | wc -l)
[ "$sess" -ge 2 ]; check $? "each login's Landlock denial is on the record with its own session ($sess)"

## 5. Escapes: a process left by one login cannot loosen a later one
# The left process: in the tmux session started by login 1, with its terminal.
as "tmux -S $SOCK set-environment -g H15_PLANTED yes; tmux -S $SOCK new-window -d -t work 'exec 7>$PROJ/kept; sleep 7777'"
out=$(as "env | grep -c H15_PLANTED; ls /proc/self/fd | tr '\n' ' '")
like "$out" "0" "environment: what a left process sets in tmux does not reach a new login"
# The shell's fds listed by a child, with no pipe of the shell's own open while it looks
# (a pipeline's read end could be in the listing, or not, by the scheduler's whim).
is "$(as 'ls /proc/$$/fd; :' | tr '\n' ' ')" "0 1 2 " "fds: a new login's shell holds only 0 1 2"
is "$(as "$TRY write /run/agentbox/session.plan >/dev/null; echo \$?")" 30 \
    "files the shell reads: the plan stays read-only to the box (EROFS)"
is "$(as "$TRY write /run/agentbox/x >/dev/null; echo \$?")" 30 "... nothing new in /run/agentbox"
st=$(as 'cat /proc/self/status')
like "$st" "NoNewPrivs:	1" "a later login still gets no_new_privs"
like "$st" "Seccomp:	2" "... and seccomp"
# tty: the pane's tty the left process kept; TIOCSTI from the box into it is refused.
pty=$(as "tmux -S $SOCK list-panes -t work -F '#{pane_tty}' | head -1")
out=$(as "$TRY tiocsti $pty X; echo rc=\$?" 2>&1)
like "$out" "rc=1" "tty: TIOCSTI into a terminal a left process holds gets EPERM"
# Another user's box: V's login sees none of U's processes.
out=$(su "$V" -c 'ps -e -o args=' 2>&1)
unlike "$out" "sleep 7777" "another user's login does not see this box's processes"
# The review: the left process's denial is attributed to the login that started it.
e2e_audit_since
as "tmux -S $SOCK send-keys -t work:0 '' ; tmux -S $SOCK new-window -d -t work '$TRY read /mnt/outside.txt; sleep 1'"
e2e_audit_find - "type=SYSCALL.* ses=$ses1 comm=\"try-op\"" >/dev/null
check $? "a denial of a process the tmux server (login $ses1) started is attributed to login $ses1"

## 6. agentbox sessions lists the box with its logins
as "sleep 3" &
bg=$!
sleep 0.5
out=$("$E2E_AGENTBOX" sessions)
like "$out" "$U" "agentbox sessions lists the user"
like "$out" "persist" "... a persistent box"
like "$out" "logins (ses:pid)" "... with its logins now"
json=$("$E2E_AGENTBOX" sessions --json | grep "\"box\":\"$id1\"")
like "$json" '"nlogins":1' "--json: the box has one login now"
wait $bg

## 7. A policy change: the next login ends the old box and builds a new one.  A change
## of the files that is not one of the user's policy in force (a comment here; another
## user's section alike) changes the files' digest, not the box's: it is kept.
echo "# h15: a comment" >> "$CONF"
as true
is "$(box_id)" "$id1" "a comment in the user's file: the next login joins the same box"
alive "$pid1"; check $? "... whose pid 1 still runs"
e2e_audit_since
echo "mask = *.h15secret" >> "$CONF"
as true
id2=$(box_id)
[ -n "$id2" ] && [ "$id2" != "$id1" ]; check $? "the next login built a new box ($id1 -> $id2)"
alive "$pid1"; check $((!$?)) "the old box's pid 1 is gone"
procs_of "$uid" | grep -q 'sleep 7777'; check $((!$?)) "... and every process of it"
e2e_audit_find - "op=agentbox-box-end box=$id1 .*reason=policy-changed" >/dev/null
check $? "the old box's end record says why (policy-changed)"
sleep 1	# agentbox-maskd saw the old pid 1 end too: it must leave the record to the login
is "$(e2e_audit_find - "op=agentbox-box-end box=$id1 " | grep -c 'op=agentbox-box-end')" 1 \
    "policy changed: one end record for the old box, not a second from agentbox-maskd"

## 8. agentbox stop leaves no process
as "tmux -S $SOCK new-session -d -s two 'sleep 7778'"
e2e_audit_since
out=$("$E2E_AGENTBOX" stop "$U" --box "$id2"); rc=$?
is "$rc" 0 "agentbox stop $U --box $id2: exit 0 ($out)"
wait_gone "$uid"
is "$(procs_of "$uid")" "" "agentbox stop: no process of $U left"
is "$(reg)" "" "agentbox stop: the registry forgets the box"
e2e_audit_find - "op=agentbox-box-end box=$id2 .*reason=stop" >/dev/null
check $? "agentbox stop: the box's end record (reason=stop)"
sleep 1	# agentbox-maskd saw the pid 1 end too: it must leave the record to stop
is "$(e2e_audit_find - "op=agentbox-box-end box=$id2 " | grep -c 'op=agentbox-box-end')" 1 \
    "agentbox stop: one end record for the box, not a second from agentbox-maskd"
"$E2E_AGENTBOX" stop "$U" >/dev/null 2>&1; is "$?" 1 "agentbox stop with no box: exit 1"

## 9. Linger: a box with no login left ends by itself
sed -i 's/^linger = 0$/linger = 2s/' "$CONF"
e2e_audit_since
as "tmux -S $SOCK new-session -d -s idle 'sleep 7779'"
pid3=$(box_pid); id3=$(box_id)
alive "$pid3"; check $? "a box with linger = 2s lives on right after the logout"
i=0; while alive "$pid3" && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
alive "$pid3"; check $((!$?)) "... and is gone within 10 s of no login ($((i / 10)) s)"
wait_gone "$uid"
is "$(procs_of "$uid")" "" "linger: nothing of the box is left"
# agentbox-maskd holds a pidfd of the box's pid 1: the end is on the record now.
e2e_audit_find - "op=agentbox-box-end box=$id3 .*init_pid=$pid3 reason=gone" >/dev/null
check $? "the lingered box's end is on the record when it ends, before any login (reason=gone)"
is "$(reg)" "" "... and the registry forgets it"
# A login counts while it runs: 4 s of login outlast 2 s of linger.
e2e_audit_since
as "sleep 4" &
bg=$!
sleep 3
pid4=$(box_pid); id4=$(box_id)
alive "$pid4"; check $? "linger = 2s: the box lives while a login runs (3 s into it)"
wait $bg
i=0; while alive "$pid4" && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
alive "$pid4"; check $((!$?)) "... and ends after it ($((i / 10)) s after the logout)"
# Marked before that login: agentbox-maskd wrote the end already, the login writes none.
is "$(e2e_audit_find - "op=agentbox-box-end box=$id3 " 1 | grep -c 'op=agentbox-box-end')" 0 \
    "the lingered box ends on the record once: the next login writes no second end"
"$E2E_AGENTBOX" stop "$U" >/dev/null 2>&1

## 10. persist = no is unchanged: logout ends everything
su "$V" -c "tmux -S $SOCK new-session -d -s v 'sleep 7780'"
wait_gone "$vuid"
is "$(procs_of "$vuid")" "" "persist = no: the tmux server ends with the login"
[ ! -s "/run/agentbox-box/$vuid" ]; check $? "persist = no: no box in the registry"

## 11. unenroll ends a running box first
sed -i 's/^linger = 2s$/linger = 0/' "$CONF"
as "tmux -S $SOCK new-session -d -s last 'sleep 7781'"
procs_of "$uid" | grep -q 'sleep 7781'; check $? "a box is running before unenroll"
out=$("$E2E_AGENTBOX" unenroll "$U" 2>&1) && "$E2E_AGENTBOX" unenroll "$V" >/dev/null 2>&1
check $? "unenroll both users"
like "$out" "stopped box" "unenroll ends the running box ($out)"
e2e_assert_host_clean "$U" "$uid"
e2e_assert_host_clean "$V" "$vuid"
finish
