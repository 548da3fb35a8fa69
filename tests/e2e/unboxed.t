#!/bin/bash
# No process of an enrolled user outside a box (issue 13 item 3, DESIGN invariant 3):
# the real `agentbox enroll`, the installed PAM module and this world's agentbox-maskd.
# A process of the agent's uid that root starts outside any box (setpriv, as a service
# manager or start-stop-daemon would) can hand a session fds of the host's tree through
# a socket in the agent's home: masks are per mount namespace.  So while one runs, every
# login of the agent is refused, with one auth-log line naming it; the daemon knows it
# from the kernel's process events, and a login reads its answer in a file, in well
# under 0.2 ms with thousands of processes on the host.  enroll refuses (or ends them
# with --kill-running), doctor lists them; with the daemon down every login is refused.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
e2e_enter_private_world "$@"

U=h13u1; V=h13u2
PROJ=/home/h13u1-project
STATE=/run/agentbox-maskd/unboxed
command -v setpriv >/dev/null || skip_all "needs setpriv"
mkdir -p "$PROJ" && chmod 0755 "$PROJ"
e2e_enroll_retry "$U" --project "$PROJ"
uid=$(id -u "$U"); gid=$(id -g "$U"); home=$(getent passwd "$U" | cut -d: -f6)
# The module's clock in the auth log: the world's private stack gets `debug`.
sed -i '/pam_agentbox\.so/s/$/ debug/' /etc/pam.d/common-session ||
    e2e_die "debug on the module line"
# A secret the agent's box hides (~/.ssh is masked by the default policy).
install -d -m 0700 -o "$U" -g "$gid" "$home/.ssh"
echo "SECRET-KEY-h13" > "$home/.ssh/id_ed25519"
chown "$U:$gid" "$home/.ssh/id_ed25519" && chmod 0600 "$home/.ssh/id_ed25519"
outside() { setpriv --reuid="$uid" --regid="$gid" --clear-groups "$@"; }
# In the background, with $! the process itself (a function run with & is a root subshell).
# Its output goes to a file, never to prove's pipe, which it would hold open.
outside_bg() {
	setpriv --reuid="$uid" --regid="$gid" --clear-groups "$@" \
	    </dev/null >>"$E2E_DIR/outside.log" 2>&1 &
}
# The system's python: root's PATH may lead into root's home, which the agent cannot read.
PY=/usr/bin/python3
[ -x $PY ] || skip_all "needs $PY"
login() { su "$U" -c "$1" 2>&1; }
state() { cat "$STATE/$uid" 2>/dev/null; }
# The state file names pid $1 first ("PID NAME" lines).
names_first() {
	local got; got=$(state)
	if [[ $got == "$1 "* ]]; then ok "$2"; else not_ok "$2"; diag "got: '$got'" "want: '$1 ...'"; fi
}
# Wait until the state file says none (or, with -n, some) process outside a box.
wait_state() {
	local i=0
	while [ $i -lt 50 ]; do
		if [ "$1" = -n ]; then [ -s "$STATE/$uid" ] && return 0
		else [ -f "$STATE/$uid" ] && [ ! -s "$STATE/$uid" ] && return 0; fi
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

## 1. A clean agent logs in; the daemon watches it from its first login
out=$(login 'echo IN')
like "$out" "IN" "a login with no process of the agent outside a box is let in"
[ -f "$STATE/$uid" ] && [ ! -s "$STATE/$uid" ]
check $? "the daemon watches the uid from its first login (empty state file)"
flock -n -s "$STATE/lock" true 2>/dev/null
[ $? != 0 ]; check $? "the daemon holds the state directory's lock"

## 2. A process of the agent outside any box: every login refused, with its line
outside_bg sleep 600
bad=$!
defer "kill -KILL $bad 2>/dev/null"
wait_state -n; check $? "the daemon saw the process outside a box at once"
names_first "$bad" "... and names it in the uid's state file"
pam_authlog_since
e2e_audit_since
out=$(login 'echo IN')
[[ $out != *IN* ]]; check $? "a login is refused while it runs"
pam_authlog_find "refusing session of $U: 1 process\(es\) of $U run outside any box \(pid $bad " >/dev/null
check $? "... with one auth-log line naming the process"
# The same refusal on the audit record, its reason hex-encoded by libaudit (it has spaces).
rec=$(e2e_audit_find - "op=agentbox-session-refused user=\"$U\" service=\"su\"")
check $? "... and with its op=agentbox-session-refused audit record"
why=$($PY -c '
import re, sys
m = re.search(r" reason=(\"[^\"]*\"|[0-9A-F]+)", sys.stdin.read())
v = m.group(1) if m else ""
print(v.strip("\"") if v.startswith("\"") else bytes.fromhex(v).decode("utf-8", "replace"))' <<<"$rec")
like "$why" "run outside any box (pid $bad " "... whose reason names the process"
kill -KILL $bad; wait $bad 2>/dev/null
wait_state; check $? "the process gone: the state file is empty again"
like "$(login 'echo IN')" "IN" "... and logins are let in again"

## 2b. A root process that borrows the uid (as sshd and PAM modules do to read the
## user's files) keeps its real uid: root's, not the agent's.  One that becomes the
## agent's is held, and let go when it is root's again.
setpriv --euid="$uid" sleep 600 </dev/null >/dev/null 2>&1 &
borrow=$!
defer "kill -KILL $borrow 2>/dev/null"
sleep 0.5
[ ! -s "$STATE/$uid" ]; check $? "a root process with only the agent's effective uid is not listed"
like "$(login 'echo IN')" "IN" "... and logins are let in"
kill -KILL $borrow; wait $borrow 2>/dev/null
$PY -c '
import os, signal, sys, time
u = int(sys.argv[1]); back = []
signal.signal(signal.SIGUSR1, lambda *a: back.append(1))
os.setresuid(u, u, 0)
while not back: time.sleep(0.05)
os.setresuid(0, 0, 0)
time.sleep(600)' "$uid" </dev/null >/dev/null 2>&1 &
turn=$!
defer "kill -KILL $turn 2>/dev/null"
wait_state -n; check $? "a root process that takes the agent's real and effective uid is listed"
kill -USR1 $turn
wait_state; check $? "... and let go once it is root's again"
kill -KILL $turn; wait $turn 2>/dev/null

## 3. The attack it stops: a directory fd of ~/.ssh handed over a socket in the home
cat > "$E2E_DIR/fdserver.py" <<'EOF'
import array, os, socket, sys, ctypes
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)		# PR_SET_DUMPABLE 0: hide from /proc
ctypes.CDLL(None).prctl(15, b"agentbox-init", 0, 0, 0)	# PR_SET_NAME: look like a box
d = os.open(sys.argv[2], os.O_RDONLY | os.O_DIRECTORY)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try: os.unlink(sys.argv[1])
except FileNotFoundError: pass
s.bind(sys.argv[1]); s.listen(4)
open(sys.argv[1] + ".ready", "w").close()
while True:
    c, _ = s.accept()
    c.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [d]))])
    c.close()
EOF
cat > "$home/fdclient.py" <<'EOF'
import array, os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sys.argv[1])
msg, anc, _, _ = s.recvmsg(1, socket.CMSG_SPACE(4))
fd = array.array("i", anc[0][2])[0]
print(open(os.open("id_ed25519", os.O_RDONLY, dir_fd=fd)).read().strip())
EOF
chmod 0644 "$home/fdclient.py"
sock="$home/.fdsock"
outside_bg $PY "$E2E_DIR/fdserver.py" "$sock" "$home/.ssh"
srv=$!
defer "kill -KILL $srv 2>/dev/null"
i=0; while [ ! -e "$sock.ready" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$sock.ready" ] || e2e_die "the fd server did not start"
wait_state -n; check $? "a non-dumpable process named agentbox-init outside a box is seen"
names_first "$srv" "... and named by its pid"
# The same read from the host, as the agent's uid: the fd does carry the secret.
like "$(outside $PY "$home/fdclient.py" "$sock" 2>&1)" "SECRET-KEY-h13" \
    "outside a box, the passed fd reads the key (the attack is real)"
pam_authlog_since
out=$(login "cat ~/.ssh/id_ed25519; $PY ~/fdclient.py $sock")
unlike "$out" "SECRET-KEY-h13" "a login while it runs never reads the key"
pam_authlog_find "refusing session of $U: .*outside any box \(pid $srv " >/dev/null
check $? "... because it is refused, on the record"
kill -KILL $srv; wait $srv 2>/dev/null
wait_state; check $? "the server gone: nothing outside a box"
out=$(login "cat ~/.ssh/id_ed25519 2>&1; echo IN")
like "$out" "IN" "a login is let in again ..."
unlike "$out" "SECRET-KEY-h13" "... and its box hides the key as ever"

## 4. What an outside process leaves: a child it forked, with no event of its own
outside sh -c 'sleep 600 </dev/null >/dev/null 2>&1 & echo $! > '"$home/child"'; exit 0'
child=$(cat "$home/child") || e2e_die "the outside child's pid"
rm -f "$home/child"
defer "kill -KILL $child 2>/dev/null"
i=0; while ! grep -q "^$child " "$STATE/$uid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
names_first "$child" "the parent gone, its child outside a box is found and named"
[[ $(login 'echo IN') != *IN* ]]; check $? "... and logins are refused while it runs"
kill -KILL "$child"
wait_state; check $? "the child gone: nothing outside a box"

## 5. Processes in a box are no reason: a login while another runs
su "$U" -c 'sleep 3' &
inbox=$!
sleep 1
like "$(login 'echo IN')" "IN" "a second login while the first one's process runs is let in"
[ ! -s "$STATE/$uid" ]; check $? "... and nothing in a box is listed"
wait $inbox

## 6. The check's cost does not grow with the host: 2,000 more processes
python3 -c '
import os, signal, sys, time
for i in range(2000):
    if os.fork() == 0:
        signal.pause(); os._exit(0)
open(sys.argv[1], "w").close(); signal.pause()' "$E2E_DIR/many.ready" &
many=$!
defer "pkill -KILL -P $many 2>/dev/null; kill -KILL $many 2>/dev/null"
i=0; while [ ! -e "$E2E_DIR/many.ready" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
nproc=$(ls -d /proc/[0-9]* | wc -l)
pam_authlog_since
for i in 1 2 3 4 5 6 7; do login true >/dev/null; done
us=$(pam_authlog_find "confined session of $U: " | grep -o 'cumulative: unboxed [0-9]*' |
    awk '{print $3}' | sort -n | sed -n 4p)
diag "$nproc processes on the host; the login's check took $us us (median of 7)"
[ -n "$us" ] && [ "$us" -le 200 ]; check $? "the login's check takes at most 200 us with $nproc processes"
walk_us=$(python3 -c '
import os, time
t = time.monotonic()
for p in os.listdir("/proc"):
    if p.isdigit():
        try: open("/proc/%s/status" % p).read()
        except OSError: pass
print(int((time.monotonic() - t) * 1e6))')
diag "a walk of /proc reading each status: $walk_us us"
pkill -KILL -P $many; kill -KILL $many; wait $many 2>/dev/null

## 7. Nobody watching: every login refused, then served again after a restart
kill "$E2E_MASKD_PID"
i=0; while kill -0 "$E2E_MASKD_PID" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
pam_authlog_since
[[ $(login 'echo IN') != *IN* ]]; check $? "agentbox-maskd down: a login is refused"
pam_authlog_find "refusing session of $U: agentbox-maskd is not watching" >/dev/null
check $? "... with one auth-log line saying nobody watches"
_e2e_maskd_start || e2e_die "maskd restart"
[ ! -e "$STATE/$uid" ]; check $? "a restarted daemon keeps no stale state"
like "$(login 'echo IN')" "IN" "after a restart the first login is watched again and let in"

## 8. enroll: refuses while a process of the user runs outside a box, or ends it
useradd -m "$V" >/dev/null 2>&1 || e2e_die "useradd $V"
defer "userdel -r $V 2>/dev/null"
vuid=$(id -u "$V")
setpriv --reuid="$vuid" --regid="$(id -g "$V")" --clear-groups sleep 600 </dev/null >/dev/null 2>&1 &
vbad=$!
defer "kill -KILL $vbad 2>/dev/null"
sleep 0.3
out=$("$E2E_AGENTBOX" enroll "$V" --project "$PROJ" 2>&1); rc=$?
[ $rc != 0 ]; check $? "enroll refuses a user with a process outside any box"
like "$out" "run outside any box: $vbad \(sleep\)" "... naming it"
[ ! -e "/etc/agentbox/policy.d/$V.conf" ]; check $? "... and changes nothing"
out=$("$E2E_AGENTBOX" enroll "$V" --project "$PROJ" --kill-running 2>&1); rc=$?
defer "$E2E_AGENTBOX unenroll '$V' >/dev/null 2>&1"
defer "e2e_audit_rules_remove $vuid"
is "$rc" 0 "enroll --kill-running enrolls"
like "$out" "ended 1 process\(es\) of $V" "... saying what it ended"
kill -0 "$vbad" 2>/dev/null; [ $? != 0 ]; check $? "... and the process is gone"
wait "$vbad" 2>/dev/null

## 9. doctor lists them
outside_bg sleep 600
bad=$!
defer "kill -KILL $bad 2>/dev/null"
sleep 0.3
doc=$("$E2E_AGENTBOX" doctor 2>&1)
like "$doc" "fail  user $U: 1 process\(es\) outside any box: $bad \(sleep\)" "doctor lists the process outside a box"
like "$doc" "ok    agentbox-maskd watches for processes outside a box" "doctor sees the watcher"
kill -KILL $bad; wait $bad 2>/dev/null
like "$("$E2E_AGENTBOX" doctor 2>&1)" "ok    user $U: no process outside a box" "... and none once it is gone"
finish
