#!/bin/bash
# Load and lifecycle (invariants 1, 4, 5): 32 parallel ssh sessions,
# started and ended ten times.  Every session is confined; after each round nothing is
# left: no process of the agent, no session mount, no fd the sessions gave sshd, no
# namespace; and the review lists all 320 sessions.  ESC_LOAD_ROUNDS / ESC_LOAD_PAR
# change the shape (defaults 10 x 32).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"
rounds=${ESC_LOAD_ROUNDS:-10}
par=${ESC_LOAD_PAR:-32}
# sshd's default MaxStartups (10:30:100) drops unauthenticated connections past ten.
echo "MaxStartups 100" > /etc/ssh/sshd_config.d/zz-esc-load.conf
esc_need_sshd
uid=$(id -u "$ESC_AGENT")

# Which of the round's session namespaces (mnt:[N] pid:[N], from the sessions' own
# status lines) does anything still hold: a process in it (the session's pid 1 is
# root's, so uids are not enough) or an fd on it?  Only processes whose audit loginuid is
# the agent's count: namespace inode numbers are recycled, and tests running beside this
# one make namespaces of their own all the time.
ns_held() {
	local want p
	want=$(grep -ho 'mnt=mnt:\[[0-9]*\]\|pidns=pid:\[[0-9]*\]' "$@" | sed 's/^[a-z]*=//' | sort -u)
	[ -n "$want" ] || return 0
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/loginuid" 2>/dev/null)" = "$uid" ] || continue
		ls -l "$p/ns/mnt" "$p/ns/pid" "$p/fd" 2>/dev/null | grep -oF "$want" | sed "s|^|${p#/proc/}:|"
	done | head -n 5
}
# The module pins its shared empty network namespace with an nsfs mount in the caller's
# namespace at the first network=none login (by design): not a session's mount.
count_mounts() { grep -cv ' nsfs ' /proc/self/mountinfo; }
sshd_fds() { ls "/proc/$E2E_SSHD_PID/fd" | wc -l; }
fds0=$(sshd_fds) mnt0=$(count_mounts)

e2e_audit_since
start=$(date +%s.%N)
out="$E2E_DIR/load"
mkdir -p "$out"
bad_rounds=0
for r in $(seq 1 "$rounds"); do
	for i in $(seq 1 "$par"); do
		e2e_ssh "$ESC_AGENT" "$ESC_PORT" "$ESC L$r-$i status; $ESC L$r-$i read $P/.env; sleep 0.5" \
		    </dev/null >"$out/$r-$i" 2>&1 &
	done
	wait
	# Logout is asynchronous: give the last sessions up to 5 s to be torn down.
	for w in $(seq 1 50); do
		[ -z "$(ps -e -o uid= | awk -v u="$uid" '$1 == u')" ] && [ -z "$(ns_held "$out"/$r-*)" ] && break
		sleep 0.1
	done
	procs=$(ps -e -o uid=,pid=,args= | awk -v u="$uid" '$1 == u')
	ns=$(ns_held "$out"/$r-*) fds=$(sshd_fds) mnt=$(count_mounts)
	if [ -n "$procs" ] || [ -n "$ns" ] || [ "$fds" -gt "$fds0" ] || [ "$mnt" -gt "$mnt0" ]; then
		bad_rounds=$((bad_rounds + 1))
		diag "round $r left: procs=[$(echo "$procs" | head -n 3 | tr '\n' ';')] ns held=[$(echo $ns)] sshd fds $fds0->$fds mounts $mnt0->$mnt"
	fi
done
end=$(date +%s.%N)
total=$((rounds * par))
diag "$total ssh sessions in $rounds rounds of $par: $(echo "$end - $start" | bc) s"

confined=$(grep -l 'ESC L[0-9]*-[0-9]* 0 OK .*nnp=1 seccomp=2' "$out"/* | wc -l)
masked=$(grep -l 'ESC L[0-9]*-[0-9]* 13 EACCES' "$out"/* | wc -l)
is "$confined" "$total" "all $total sessions ran confined (no_new_privs, seccomp)"
is "$masked" "$total" "all $total sessions had .env masked"
if [ "$confined" != "$total" ]; then
	for f in "$out"/*; do grep -q 'seccomp=2' "$f" || { diag "$(basename "$f"): $(head -c 300 "$f")"; break; }; done
fi
is "$bad_rounds" 0 "after every round: no process, namespace, sshd fd or mount left"
esc_assert_gone "$ESC_AGENT"

# The review: every session is listed, with its denial.
sess=$(sed -n 's/^ESC L[0-9]*-[0-9]* 0 OK .*ses=\([0-9]*\).*/\1/p' "$out"/* | sort -un)
is "$(echo "$sess" | grep -c .)" "$total" "$total distinct audit session ids"
for i in $(seq 1 50); do
	e2e_audit_records > "$E2E_DIR/load.log"
	[ "$(grep -c 'op=agentbox-session-end' "$E2E_DIR/load.log")" -ge "$total" ] && break
	sleep 0.2
done
"$ESC_AUDIT_TOOL" sessions --input "$E2E_DIR/load.log" --json >"$E2E_DIR/load-sessions.json" 2>"$E2E_DIR/load-sessions.err"
"$ESC_AUDIT_TOOL" --input "$E2E_DIR/load.log" --user "$ESC_AGENT" --json >"$E2E_DIR/load-denials.json" 2>/dev/null
listed=0 denied=0
for s in $sess; do
	jq -e -s --argjson s "$s" 'any(.[]; .session == $s)' "$E2E_DIR/load-sessions.json" >/dev/null 2>&1 &&
	    listed=$((listed + 1))
done
denied=$(jq -r 'select(.comm | test("^e-L")) | .session' "$E2E_DIR/load-denials.json" 2>/dev/null | sort -un | grep -c .)
is "$listed" "$total" "agentbox-audit sessions lists all $total sessions"
if [ "$listed" != "$total" ]; then
	diag "session-start records in the slice: $(grep -c 'op=agentbox-session-start' "$E2E_DIR/load.log"), ends: $(grep -c 'op=agentbox-session-end' "$E2E_DIR/load.log")"
	diag "sessions json: $(head -c 300 "$E2E_DIR/load-sessions.json")"
	diag "stderr: $(head -c 300 "$E2E_DIR/load-sessions.err")"
	diag "one start record: $(grep -m1 'op=agentbox-session-start' "$E2E_DIR/load.log" | head -c 400)"
fi
is "$denied" "$total" "agentbox-audit lists the .env denial of all $total sessions"
rm -f /etc/ssh/sshd_config.d/zz-esc-load.conf
finish
