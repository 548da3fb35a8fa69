#!/bin/bash
# No process of the agent's uid outside a box (DESIGN invariant 3; FINDINGS F7's second
# defence): while one runs, pam_agentbox refuses the agent's logins (one auth-log line
# with its pid and comm, the refusal record), doctor fails naming it, enroll lists it and
# --kill-running ends it.  The agent's own sessions (su's and sshd's, whose post-auth
# child lives in the box) never block a second login.  Real enroll, in a private world.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
e2e_enter_private_world "$@"

U=abt_st1
PROJ=/home/abt_st1-project
PORT=2209
mkdir -p "$PROJ" && chmod 0755 "$PROJ"
e2e_enroll_retry "$U" --project "$PROJ"
uid=$(id -u "$U")
# The debug line times the steps, the new "stray" one among them.
sed -i -E 's/^(session.*pam_agentbox\.so.*[^g])$/\1 debug/' /etc/pam.d/common-session
grep -q 'pam_agentbox\.so.* debug$' /etc/pam.d/common-session || e2e_die "no debug on the module line"
e2e_sshd_start "$PORT" || e2e_die "sshd"
e2e_ssh_key "$U" || e2e_die "ssh key"

login_su() { su - "$U" -c 'echo INSIDE' 2>&1; }

# refused HOW PID COMM: the login is refused, the auth log and the record say why.
refused() {
	local how=$1 pid=$2 comm=$3 out hex
	pam_authlog_since; e2e_audit_since
	if [ "$how" = ssh ]; then out=$(e2e_ssh "$U" "$PORT" 'echo INSIDE' 2>&1)
	else out=$(login_su); fi
	unlike "$out" INSIDE "$how: login refused while process $pid ($comm) runs outside"
	pam_authlog_find "pam_agentbox\(.*:session\): refusing session of $U: process $pid \($comm\) of uid $uid runs outside every agentbox box" >/dev/null
	check $? "$how: one auth-log line names pid $pid and comm $comm"
	hex=$(e2e_audit_find - "op=agentbox-session-refused user=\"$U\"" |
	    sed -n 's/.*reason=\([0-9A-F]*\).*/\1/p' | head -1)
	like "$(printf '%s' "$hex" | xxd -r -p)" "process $pid ($comm) of uid $uid" \
	    "$how: the refusal record says the same"
}

## Control: nothing of the agent runs, the login works.
like "$(login_su)" INSIDE "control: su - $U works"

## A process of the agent's uid started by root outside any box.
setpriv --reuid="$U" --regid="$U" --init-groups sleep 300 </dev/null >/dev/null 2>&1 &
stray=$!
defer "kill -KILL $stray"
sleep 0.3
refused su "$stray" sleep
refused ssh "$stray" sleep
out=$("$E2E_AGENTBOX" doctor 2>&1); rc=$?
[ "$rc" != 0 ]; check $? "doctor fails while it runs"
like "$out" "fail  user $U: process $stray (sleep) runs outside every box" "doctor names it"
like "$out" "--kill-running" "doctor says how to end it"
out=$("$E2E_AGENTBOX" enroll "$U" --project "$PROJ" 2>&1); rc=$?
is "$rc" 0 "enroll without --kill-running still enrolls"
like "$out" "process $stray (sleep) runs outside every box" "... and lists the process"
kill -0 "$stray" 2>/dev/null; check $? "... and leaves it running"
out=$("$E2E_AGENTBOX" enroll "$U" --project "$PROJ" --kill-running 2>&1); rc=$?
is "$rc" 0 "enroll --kill-running succeeds"
like "$out" "ended 1 process of $U" "... and says it ended one process"
! kill -0 "$stray" 2>/dev/null; check $? "... which is gone (SIGKILL, waited for)"
wait "$stray" 2>/dev/null
like "$(login_su)" INSIDE "su - works again once it is gone"
out=$("$E2E_AGENTBOX" doctor 2>&1)
like "$out" "ok    user $U: no process outside a box" "doctor: no process outside a box"

## One that made its own user, pid and mount namespaces is still outside.
if setpriv --reuid="$U" --regid="$U" --init-groups unshare -Urpm --fork true 2>/dev/null; then
	setpriv --reuid="$U" --regid="$U" --init-groups unshare -Urpm --fork sleep 300 \
	    </dev/null >/dev/null 2>&1 &
	ns_parent=$!
	defer "kill -KILL $ns_parent"
	sleep 0.3
	unlike "$(login_su)" INSIDE "a process in namespaces of its own still refuses the login"
	"$E2E_AGENTBOX" enroll "$U" --project "$PROJ" --kill-running >/dev/null 2>&1
	wait "$ns_parent" 2>/dev/null
	like "$(login_su)" INSIDE "... and after enroll --kill-running the login works"
else
	not_ok "cannot make user namespaces as $U here: the own-namespaces case did not run"
fi

## The agent's own sessions are in boxes: a second login is not blocked by the first.
su - "$U" -c 'sleep 20' </dev/null >/dev/null 2>&1 &
first=$!
defer "kill $first"
sleep 0.5
like "$(login_su)" INSIDE "a second su session while the first runs"
like "$(e2e_ssh "$U" "$PORT" 'echo INSIDE' 2>&1)" INSIDE "an ssh login while a su session runs"
kill "$first" 2>/dev/null; wait "$first" 2>/dev/null
e2e_wait_uid_gone "$uid" 5
# sshd's post-authentication child ("sshd: abt_st1@notty") runs as the agent: it is
# forked after the module's unshare, so it is in the session's box and not counted.
e2e_ssh_bg "$U" "$PORT" 'sleep 20' </dev/null >/dev/null 2>&1
sleep 1
ps -u "$uid" -o args= | grep -q "^sshd: $U"; check $? "sshd's post-auth child of the first ssh session runs as $U"
like "$(e2e_ssh "$U" "$PORT" 'echo INSIDE' 2>&1)" INSIDE "a second ssh login while it runs"
like "$(login_su)" INSIDE "su while an ssh session runs"
kill "$E2E_BG_PID" 2>/dev/null; wait "$E2E_BG_PID" 2>/dev/null
e2e_wait_uid_gone "$uid" 5; check $? "nothing of $U runs after the sessions"

## The cost: the debug line's "stray" step, on this host.
pam_authlog_since
for i in 1 2 3 4 5 6 7 8 9 10; do login_su >/dev/null; done
sleep 1
us=$(pam_authlog_find "confined session of $U:" | sed -n 's/.*(cumulative: stray \([0-9]*\),.*/\1/p' | sort -n)
n_us=$(printf '%s\n' "$us" | grep -c .)
[ "$n_us" -ge 5 ]; check $? "the debug line times the stray step ($n_us logins)"
diag "stray step, us over $n_us logins (sorted): $(echo $us); $(ls -d /proc/[0-9]* | wc -l) processes on the host"
finish
