#!/bin/bash
# The box's mount namespace after the login (issue 14, the login's exit; maskd/daemon.c
# world_hold): agentbox-maskd's reader holds the session's mount namespace while the
# session runs, so that the login's process is not the last holder when it exits (the
# unmount of the whole world falls in the reader's exit instead); it lets go once that
# process is gone, or LOGIN_EXIT_WAIT_MS after the box's end when it lingers, and after
# both nothing on the host holds it (DESIGN invariant 4); the session's fanotify groups,
# whose last close the reader makes now, are all closed after it.  Then a reader that
# cannot be forked, and one that cannot be watched: the login is refused before its
# command runs, and says why; and one that finds its supervisor gone as it starts: it
# ends the session itself.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
E2E_NO_INSTALL=1 e2e_enter_private_world "$@"
command -v auditctl >/dev/null || skip_all "auditctl missing"
pam_setup
TRY="$BUILD/tests/pam_try"
[ -x "$TRY" ] || e2e_die "build first: make $TRY"
U=h14_mw1
pam_user $U "$PAM_WORLD_SHELL"
pam_stack su
UID_A=$(id -u $U)
P=/home/$U/proj
install -d -o $U -g $U "$P"
printf 'SECRET' > "$P/.env" && chown $U: "$P/.env"
{ cat "$TOP/policy/agentbox.conf"; printf '[user:%s]\nproject = %s\n' $U "$P"; } | pam_policy
CONF="$E2E_DIR/pamconf"
mkdir -p "$CONF" && echo "$PAM_LINE" > "$CONF/su" || e2e_die "pam confdir"
OURS=$(readlink /proc/self/ns/mnt)

# holders NS: the pids holding mount namespace NS ("mnt:[N]"), as theirs or by an fd.
holders() {
	find /proc/[0-9]*/ns/mnt /proc/[0-9]*/fd -maxdepth 1 -lname "${1//[/\\[}" 2>/dev/null |
	    cut -d/ -f3 | sort -u
}
# session_of PID: once PID (a login's process) has unshared its mount namespace, set NS
# and SES to that namespace and its audit session, READER to the session's reader.
session_of() {
	local i
	NS="" SES="" READER=""
	for i in $(seq 100); do
		NS=$(readlink "/proc/$1/ns/mnt" 2>/dev/null)
		[ -n "$NS" ] && [ "$NS" != "$OURS" ] && break
		NS=""; sleep 0.05
	done
	[ -n "$NS" ] || return 1
	SES=$(cat "/proc/$1/sessionid")
	for i in $(seq 100); do
		READER=$(sed -n "s/.*ses $SES (uid $UID_A): enforcing masks, reader \([0-9]*\)$/\1/p" \
		    "$E2E_DIR/maskd/log" | tail -n 1)
		[ -n "$READER" ] && return 0
		sleep 0.05
	done
	return 1
}
# audit_within S ERE: a record since e2e_audit_since matches ERE within S seconds.
audit_within() {
	local i
	for i in $(seq $(( $1 * 10 ))); do
		e2e_audit_records | grep -q -- "$2" && return 0
		sleep 0.1
	done
	return 1
}
# within S CMD...: CMD (a test) holds within S seconds.
within() {
	local i n=$(( $1 * 20 ))
	shift
	for i in $(seq $n); do "$@" && return 0; sleep 0.05; done
	return 1
}
no_holder() { [ -z "$(holders "$1")" ]; }
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# fan_groups: fanotify fds held by this world's agentbox-maskd and its readers.
fan_groups() {
	local p n=0
	for p in $PAM_MASKD_PID $(pgrep -P "$PAM_MASKD_PID"); do
		n=$((n + $(ls -l "/proc/$p/fd" 2>/dev/null | grep -c 'anon_inode:\[fanotify\]')))
	done
	echo $n
}
groups_back() { [ "$(fan_groups)" = "$GROUPS0" ]; }
GROUPS0=$(fan_groups)

# ---- an su login: held while it runs, let go after the logout ----
su $U -c "sleep 2" >>"$E2E_DIR/su.log" 2>&1 &
SU_PID=$!
defer "kill $SU_PID 2>/dev/null"
session_of $SU_PID || e2e_die "no su session (maskd log: $(tail -n 3 "$E2E_DIR/maskd/log"))"
if holders "$NS" | grep -qx "$READER"; then
	ok "su: the session's reader holds its mount namespace ($NS) while it runs"
else
	not_ok "su: the reader $READER does not hold $NS"; diag "holders: $(holders "$NS" | tr '\n' ' ')"
fi
wait $SU_PID
check $? "su: the login ran and ended (status 0)"
if within 3 no_holder "$NS"; then
	ok "su: after the logout nothing on the host holds the box's mount namespace"
else
	not_ok "su: $NS still held after the logout by: $(holders "$NS" | tr '\n' ' ')"
fi
within 3 pid_gone "$READER"; check $? "su: the reader has ended"
if within 3 groups_back; then
	ok "su: the session's fanotify groups are all closed ($GROUPS0 held, the daemon's own)"
else
	not_ok "su: agentbox-maskd holds $(fan_groups) fanotify fds, $GROUPS0 before the login"
fi

# ---- a login's process that lingers after its close: the reader's wait is bounded ----
out="$E2E_DIR/try.out"
AB_TRY_LINGER_MS=6000 AB_TRY_CMD="sleep 1" "$TRY" "$CONF" su $U > "$out" 2>&1 &
TRY_PID=$!
defer "kill $TRY_PID 2>/dev/null"
session_of $TRY_PID || e2e_die "no pam_try session: $(cat "$out")"
within 10 grep -q "close=PAM_SUCCESS" "$out"
check $? "lingering: the session closed (pam_try: $(cat "$out"))"
if within 3 pid_gone "$READER" && kill -0 $TRY_PID 2>/dev/null; then
	ok "lingering: the reader let go and ended while the login's process still runs"
else
	not_ok "lingering: reader $READER still there, or pam_try gone early"
fi
is "$(holders "$NS" | tr '\n' ' ')" "$TRY_PID " \
    "lingering: the login's process is then the only holder of the box's mount namespace"
wait $TRY_PID
if within 3 no_holder "$NS"; then
	ok "lingering: once it exits, nothing holds the box's mount namespace"
else
	not_ok "lingering: $NS still held by: $(holders "$NS" | tr '\n' ' ')"
fi

within 3 groups_back; check $? "lingering: the session's groups are all closed"

# ---- a reader that cannot be forked: the login is refused, and says why ----
# The reader answers "ok" itself, once it holds the groups: a daemon that dies between
# an "ok" and the fork cannot leave a session unmasked.  A pids cgroup (v1, as this VM
# has) of one task, with agentbox-maskd alone in it: its next fork fails with EAGAIN,
# root or not.
CG_ROOT=/sys/fs/cgroup/pids
CG=$CG_ROOT/abt-h14-mw-$$
if [ -w "$CG_ROOT/cgroup.procs" ] && mkdir "$CG" 2>/dev/null; then
	defer "rmdir '$CG'"
	e2e_audit_since
	pam_authlog_since
	rm -f "$P/ran"
	echo "$PAM_MASKD_PID" > "$CG/cgroup.procs" &&
	    defer "echo $PAM_MASKD_PID > '$CG_ROOT/cgroup.procs'" || e2e_die "move maskd"
	echo 1 > "$CG/pids.max" || e2e_die "pids.max"
	timeout 20 su $U -c "echo ran > $P/ran" >>"$E2E_DIR/su.log" 2>&1
	rc=$?
	echo max > "$CG/pids.max"
	echo "$PAM_MASKD_PID" > "$CG_ROOT/cgroup.procs"
	if [ $rc != 0 ] && [ $rc != 124 ] && [ ! -e "$P/ran" ]; then
		ok "no fork: the login is refused, its command never runs (su status $rc)"
	else
		not_ok "no fork: su status $rc (124: it hung), command ran: $([ -e "$P/ran" ] && echo yes || echo no)"
	fi
	line=$(grep -E "ses [0-9]+ refused: fork: " "$E2E_DIR/maskd/log" | tail -n 1)
	if [ -n "$line" ]; then ok "no fork: agentbox-maskd says why ($line)"
	else not_ok "no fork: nothing in agentbox-maskd's log"; fi
	pam_authlog_find "agentbox-maskd refused the session: fork: " >/dev/null
	check $? "no fork: the auth log says the session was refused, and why"
	audit_within 5 "op=agentbox-session-refused user=\"*$U"
	check $? "no fork: on the record: agentbox-session-refused user=$U"
	e2e_wait_uid_gone "$UID_A" 5; check $? "no fork: no process of the agent left"
	# The daemon goes on: the next login has its reader.
	su $U -c "echo ran > $P/ran" >>"$E2E_DIR/su.log" 2>&1
	[ "$(cat "$P/ran" 2>/dev/null)" = ran ]; check $? "no fork: the next login runs as before"
elif [ -n "${CI:-}${AB_STRICT:-}" ]; then
	not_ok "no fork: cannot run: no writable pids cgroup (v1) here"
else
	ok "# SKIP no writable pids cgroup (v1) here"
fi

# ---- a reader that cannot be watched, or that finds its supervisor gone ----
# faulty TAG FAIL-SYSCALL-ARGS...: a second agentbox-maskd, its control socket
# $E2E_DIR/maskd-TAG/control, run by tests/fail-syscall with one syscall failing; sets
# FAULTY_SOCK, FAULTY_LOG and FAULTY_PID.
faulty() {
	local tag=$1 i
	shift
	FAULTY_SOCK=$E2E_DIR/maskd-$tag/control
	FAULTY_LOG=$E2E_DIR/maskd-$tag/log
	mkdir -p "${FAULTY_SOCK%/*}" || e2e_die "mkdir"
	"$BUILD/tests/fail-syscall" "$@" "$PAM_MASKD" --daemon --foreground \
	    --control "$FAULTY_SOCK" >>"$FAULTY_LOG" 2>&1 </dev/null &
	FAULTY_PID=$!
	defer "kill $FAULTY_PID 2>/dev/null"
	for i in $(seq 100); do [ -S "$FAULTY_SOCK" ] && return 0; sleep 0.05; done
	e2e_die "agentbox-maskd under fail-syscall $* did not start"
}
# login_faulty CMD: one login of $U through the faulty daemon; sets RC and OUT.
login_faulty() {
	sed "s|maskd=$PAM_MASKD_SOCK|maskd=$FAULTY_SOCK|" "$E2E_DIR/su.pam" > /etc/pam.d/su &&
	    grep -q "maskd=$FAULTY_SOCK" /etc/pam.d/su || e2e_die "the PAM line of $FAULTY_SOCK"
	rm -f "$P/ran"
	OUT=$(timeout 20 su $U -c "$1" 2>&1)
	RC=$?
	cp "$E2E_DIR/su.pam" /etc/pam.d/su || e2e_die "restore the su stack"
}
# log_says WHAT ERE: the faulty daemon's log has a line matching ERE.
log_says() {
	local line
	line=$(grep -E "$2" "$FAULTY_LOG" | tail -n 1)
	if [ -n "$line" ]; then ok "$1 ($line)"
	else not_ok "$1: not in its log ($(tail -n 3 "$FAULTY_LOG" | tr '\n' '|'))"; fi
}
# after_fault LABEL: nothing of the session is left, and the usual daemon serves again.
after_fault() {
	e2e_wait_uid_gone "$UID_A" 5; check $? "$1: no process of the agent left"
	# pgrep lists zombies too: the reader ended and was reaped.
	within 3 sh -c "! pgrep -P $FAULTY_PID >/dev/null"
	check $? "$1: no reader of that daemon is left"
	su $U -c "echo ran > $P/ran" >>"$E2E_DIR/su.log" 2>&1
	[ "$(cat "$P/ran" 2>/dev/null)" = ran ]; check $? "$1: the next login, through the usual daemon, runs"
}
cp /etc/pam.d/su "$E2E_DIR/su.pam" || e2e_die "save the su stack"
defer "cp '$E2E_DIR/su.pam' /etc/pam.d/su"

# The supervisor answers "ok" only once it holds a pidfd of the reader it forked (without
# one it could not see the reader die, and the session would run on unmasked after it).
# Nothing makes pidfd_open fail alone: here it fails with ENOMEM in the whole daemon, so
# the reader's own pidfd_open of its supervisor fails too, which must end the session as
# well, never open it.
faulty nopidfd pidfd_open 12
e2e_audit_since
pam_authlog_since
login_faulty "echo ran > $P/ran"
if [ $RC != 0 ] && [ $RC != 124 ] && [ ! -e "$P/ran" ]; then
	ok "no pidfd: the login is refused, its command never runs (su status $RC)"
else
	not_ok "no pidfd: su status $RC (124: it hung), command ran: $([ -e "$P/ran" ] && echo yes || echo no)"
fi
log_says "no pidfd: agentbox-maskd says why" "ses [0-9]+ refused: pidfd_open\(reader\): "
pam_authlog_find "agentbox-maskd refused the session: pidfd_open\(reader\): " >/dev/null
check $? "no pidfd: the auth log says the session was refused, and why"
audit_within 5 "op=agentbox-session-refused user=\"*$U"
check $? "no pidfd: on the record: agentbox-session-refused user=$U"
after_fault "no pidfd"

# Both holders of the session's groups gone before its processes would let every open
# through; a reader that cannot see its supervisor (pidfd_open of it fails: here made to,
# for that pid alone, by --arg0-self) ends the session itself: pid 1 killed, every open
# denied until it is gone, an agentbox-mask-end record.
faulty noparent --arg0-self pidfd_open 12
printf 'VISIBLE' > "$P/plain.txt" && chown $U: "$P/plain.txt"
e2e_audit_since
login_faulty "cat $P/plain.txt; echo ran > $P/ran"
if [ $RC != 0 ] && [ $RC != 124 ] && [ ! -e "$P/ran" ] && [ "${OUT#*VISIBLE}" = "$OUT" ]; then
	ok "supervisor gone: the session ends before its command reads or writes (su status $RC)"
else
	not_ok "supervisor gone: su status $RC (124: it hung), wrote: $([ -e "$P/ran" ] && echo yes || echo no), output: $OUT"
fi
log_says "supervisor gone: the reader says so" \
    "ses [0-9]+: supervisor gone before the reader started: ending the session"
audit_within 5 "op=agentbox-mask-end ses=[0-9]* uid=$UID_A reason=supervisor-gone"
check $? "supervisor gone: on the record: agentbox-mask-end reason=supervisor-gone"
after_fault "supervisor gone"
finish
