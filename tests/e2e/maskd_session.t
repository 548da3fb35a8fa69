#!/bin/bash
# Live masks in real `su` sessions (issue 12; maskd/README.md): the PAM module hands the
# session's marked mounts to agentbox-maskd, which decides every open.  While an agent
# session runs, the developer saves over .env from outside (rename, sed -i, unlink and
# recreate, Python os.replace), leaves an editor's .env.tmp, drops certs/server.pem and a
# secrets/ directory; the agent hard-links, renames away, re-opens through O_PATH and
# /proc/self/fd, reads through /proc/self/root, holds an O_PATH fd from before a save.
# Each open fails with EPERM and leaves a type=FANOTIFY resp=2 record in the same audit
# event as the opener's SYSCALL with the session's ses; root outside still reads each.
# agentbox-maskd's own op=agentbox-mask record names the pattern, agentbox-audit lists
# each denial once, and 1000 opens of one masked file are a few records whose repeats
# add up to 1000.
# Then the fail-closed cases: no daemon refuses the login; a reader killed while an open
# waits, the daemon killed, and a history flood each end the session, the open unserved.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
E2E_NO_INSTALL=1 e2e_enter_private_world "$@"
command -v auditctl >/dev/null || skip_all "auditctl missing"
pam_setup
U=h12_ms1
pam_user $U "$PAM_WORLD_SHELL"
pam_stack su
UID_A=$(id -u $U)
P=/home/$U/proj
{ cat "$TOP/policy/agentbox.conf"; printf '[user:%s]\nproject = %s\n' $U "$P"; } | pam_policy
pam_maskd_try
pam_eperm_rule "$UID_A" || e2e_die "audit rule for uid $UID_A"

install -d -o $U -g $U "$P" "$P/cmd" "$P/res"
# Masked at login (a mask mount): the file the developer will save over.
printf 'SECRET-0' > "$P/.env" && chown $U: "$P/.env"
printf 'plain' > "$P/notes.md" && chown $U: "$P/notes.md"

# The agent: a login that runs each command file cmd/N as it appears, into res/N and
# res/N.rc, and says its ses in res/ses.
agent_loop='echo $(cat /proc/self/sessionid) > '"$P"'/res/ses; n=0
while :; do
	if [ -f '"$P"'/cmd/$n ]; then
		sh '"$P"'/cmd/$n > '"$P"'/res/$n 2>&1; echo $? > '"$P"'/res/$n.rc.t
		mv '"$P"'/res/$n.rc.t '"$P"'/res/$n.rc; n=$((n + 1))
	fi
	sleep 0.02
done'
N=0
session_start() {
	rm -rf "$P/cmd" "$P/res" && install -d -o $U -g $U "$P/cmd" "$P/res"
	N=0
	su $U -c "$agent_loop" >>"$E2E_DIR/su.log" 2>&1 &
	SU_PID=$!
	defer "kill $SU_PID 2>/dev/null"
	local i
	for i in $(seq 100); do [ -s "$P/res/ses" ] && break; sleep 0.05; done
	SES=$(cat "$P/res/ses" 2>/dev/null)
	[ -n "$SES" ]
}
# run CMD [TIMEOUT_S]: the agent runs CMD; out, rc (rc empty: no answer in time).
run() {
	local i n=$N
	printf '%s\n' "$1" > "$P/cmd/$n.t" && chmod 0644 "$P/cmd/$n.t" && mv "$P/cmd/$n.t" "$P/cmd/$n"
	N=$((N + 1))
	rc=""
	for i in $(seq $(( ${2:-5} * 20 ))); do
		[ -f "$P/res/$n.rc" ] && break
		sleep 0.05
	done
	out=$(cat "$P/res/$n" 2>/dev/null)
	rc=$(cat "$P/res/$n.rc" 2>/dev/null)
}

# denied WHAT PATH CMD: the agent's CMD (a maskd-try run) fails with EPERM, its open is
# on the record with the session's ses and a PATH record naming PATH.
denied() {
	run "$3"
	if [ "$rc" = 1 ] && [[ $out == *EPERM* ]]; then ok "$1: EPERM"
	else not_ok "$1: EPERM"; diag "rc=$rc out=$out"; fi
	[[ $out != *SECRET* ]] || not_ok "$1: the secret leaked: $out"
	if e2e_fan_event "$SES" "$2"; then ok "$1: type=FANOTIFY resp=2 in the event of ses=$SES"
	else not_ok "$1: no type=FANOTIFY resp=2 record with ses=$SES for $2"; fi
}
# root WHAT FILE: root outside still reads it.
root_reads() {
	if grep -q SECRET "$P/$1" 2>/dev/null; then ok "root outside reads $1"
	else not_ok "root outside reads $1"; fi
}

e2e_audit_since
session_start || e2e_die "no session (maskd log: $(tail -3 "$E2E_DIR/maskd/log"); su: $(tail -3 "$E2E_DIR/su.log"))"
ok "a session with live masks started (ses $SES)"
run "$TRY read $P/notes.md"
is "$rc" 0 "an unmasked file reads inside"
run "$TRY read $P/.env"
like "$out" "EACCES" ".env at login: denied (its mask mount)"

# ---- the developer, outside, while the session runs ----
printf 'SECRET-1' > "$P/.env.tmp" && mv "$P/.env.tmp" "$P/.env"
denied ".env saved over by rename from outside" "$P/.env" "$TRY read $P/.env"
root_reads .env
sed -i 's/SECRET-1/SECRET-2/' "$P/.env"
denied ".env saved by sed -i" "$P/.env" "$TRY read $P/.env"
rm -f "$P/.env" && printf 'SECRET-3' > "$P/.env"
denied ".env unlinked and recreated" "$P/.env" "$TRY read $P/.env"
python3 -c "
import os
open('$P/.env.new', 'w').write('SECRET-4')
os.replace('$P/.env.new', '$P/.env')"
denied ".env saved by Python os.replace" "$P/.env" "$TRY read $P/.env"
printf 'SECRET-5' > "$P/.env.tmp"
denied "an editor's .env.tmp left behind" "$P/.env.tmp" "$TRY read $P/.env.tmp"
root_reads .env.tmp
mkdir -p "$P/certs" && printf 'SECRET-6' > "$P/certs/server.pem"
denied "a new certs/server.pem" "$P/certs/server.pem" "$TRY read $P/certs/server.pem"
root_reads certs/server.pem
mkdir -p "$P/secrets" && printf 'SECRET-7' > "$P/secrets/db.txt"
denied "a new secrets/ directory" "$P/secrets/db.txt" "$TRY read $P/secrets/db.txt"
root_reads secrets/db.txt

# ---- the agent, against files that appeared after login (owned by it) ----
printf 'SECRET-8' > "$P/.env.local" && chown $U: "$P/.env.local"
denied "a hard link made after login" "$P/hl.txt" "$TRY link $P/.env.local $P/hl.txt && $TRY read $P/hl.txt"
printf 'SECRET-9' > "$P/.env.staging" && chown $U: "$P/.env.staging"
denied "mv .env.staging notes.txt by the agent" "$P/notes.txt" \
    "mv $P/.env.staging $P/notes.txt && $TRY read $P/notes.txt"
printf 'SECRET-10' > "$P/.env.prod" && chown $U: "$P/.env.prod"
denied "O_PATH fd re-opened through /proc/self/fd" "/proc/self/fd/" "$TRY opath-reopen $P/.env.prod"
printf 'SECRET-11' > "$P/new.pem"
denied "a file read through /proc/self/root" "$P/new.pem" "$TRY read /proc/self/root$P/new.pem"
printf 'SECRET-12' > "$P/.env.held" && chown $U: "$P/.env.held"
run "$TRY stale $P/.env.held $P/res/stale-ready $P/res/stale-go > $P/res/stale.out 2>&1 &" 5
for i in $(seq 100); do [ -e "$P/res/stale-ready" ] && break; sleep 0.05; done
printf 'SECRET-13' > "$P/.env.held.t" && mv "$P/.env.held.t" "$P/.env.held"
touch "$P/res/stale-go"
for i in $(seq 100); do grep -q "EPERM\|OK" "$P/res/stale.out" 2>/dev/null && break; sleep 0.05; done
like "$(cat "$P/res/stale.out")" "EPERM" "an O_PATH fd held from before the save: EPERM"
grep -q SECRET "$P/res/stale.out" && not_ok "the stale fd leaked: $(cat "$P/res/stale.out")"
# ---- the creating open (issue 12: denied "at its NEXT open") ----
# The session's own O_CREAT of a new masked name passes (python3 -m venv writes pip's
# certifi/cacert.pem); every later open of that inode is denied, on the record.
# eperm_sh WHAT PATH CMD: CMD (a shell open) fails "Operation not permitted", on record.
eperm_sh() {
	run "$3"
	if [ "$rc" != 0 ] && [[ $out == *"Operation not permitted"* ]]; then ok "$1: EPERM"
	else not_ok "$1: EPERM"; diag "rc=$rc out=$out"; fi
	[[ $out != *SECRET* ]] || not_ok "$1: the secret leaked: $out"
	if e2e_fan_event "$SES" "$2"; then ok "$1: type=FANOTIFY resp=2 in the event of ses=$SES"
	else not_ok "$1: no type=FANOTIFY resp=2 record with ses=$SES for $2"; fi
}
run "sh -c 'echo x > $P/newfile.pem'"
is "$rc" 0 "the session creates newfile.pem: its creating open passes" || diag "$out"
eperm_sh "cat of the newfile.pem the session made" "$P/newfile.pem" "cat $P/newfile.pem"
eperm_sh "the creator's own second open of its new twice.pem" "$P/twice.pem" \
    "sh -c 'echo x > $P/twice.pem && cat < $P/twice.pem'"
mkdir -p "$P/outside" && printf 'SECRET-14' > "$P/outside/.env" && chmod 0666 "$P/outside/.env"
eperm_sh "a .env created from outside, the session's first open" "$P/outside/.env" \
    "cat $P/outside/.env"
printf 'SECRET-15' > "$P/outside/.env.dev" && chown $U: "$P/outside/.env.dev"
eperm_sh "O_CREAT of an existing .env.dev (: >>)" "$P/outside/.env.dev" \
    ": >> $P/outside/.env.dev"
is "$(cat "$P/outside/.env.dev")" "SECRET-15" "...and it is unchanged"
run "$TRY read $P/notes.md"
is "$rc" 0 "the session still reads its unmasked files"
# The review lists them: the session's denial of certs/server.pem, as dac EPERM.
rev=$("$BUILD/agentbox-audit" --input "$E2E_AUDIT_LOG" --session "$SES" --json \
    --path "$P/certs/server.pem" 2>&1)
like "$rev" '"kind":"dac"' "agentbox-audit lists the new server.pem's denial as dac" ||
    diag "review: $rev"
like "$rev" '"access":"EPERM"' "...with the access the kernel returned, EPERM"

# ---- agentbox-maskd's own records (docs/audit-records.md "Live masks") ----
# mask_recs PATH: this session's op=agentbox-mask records for PATH since the mark.
mask_recs() {
	e2e_audit_records | grep -F "op=agentbox-mask ses=$SES " | grep -F " path=\"$1\" "
}
# mask_rec_has PATH TEXT: one of them holds TEXT (auditd writes asynchronously: 5 s).
mask_rec_has() {
	local i
	for i in $(seq 50); do mask_recs "$1" | grep -qF -- "$2" && return 0; sleep 0.1; done
	return 1
}
mask_rec_has "$P/certs/server.pem" " uid=$UID_A pid=" &&
    mask_rec_has "$P/certs/server.pem" " access=open path=\"$P/certs/server.pem\" pattern=\"*.pem\" comm=\"maskd-try\" prog=\"" &&
    mask_rec_has "$P/certs/server.pem" '/maskd-try" ' &&
    ok "server.pem's denial: maskd's record with ses, uid, pid, path, pattern *.pem, program" ||
    not_ok "no op=agentbox-mask record of ses $SES for server.pem: $(e2e_audit_records | grep -F op=agentbox-mask | tail -3)"
mask_rec_has "$P/notes.txt" ' pattern="history" ' &&
    ok "notes.txt (a .env renamed by the agent): its record says pattern=history" ||
    not_ok "no pattern=history record for notes.txt"
rev=$("$BUILD/agentbox-audit" --input "$E2E_AUDIT_LOG" --session "$SES" --json \
    --path "$P/certs/server.pem" 2>/dev/null)
is "$(grep -c '"kind"' <<<"$rev")" 1 \
    "agentbox-audit lists server.pem's denial once (maskd's record; the kernel's event joined to it)"
like "$rev" '"pattern":"*.pem","repeats":0' "...with its pattern" || diag "review: $rev"

# A loop of 1000 opens of one masked file: a few records, whose repeats add up to 1000.
printf 'SECRET-L' > "$P/loop.pem"	# made from outside: no creating open of the agent's
run "i=0; d=0; while [ \$i -lt 1000 ]; do true 2>/dev/null < $P/loop.pem || d=\$((d + 1)); i=\$((i + 1)); done; echo \$d" 60
is "$out" 1000 "1000 opens of loop.pem in one shell: 1000 denials"
# mask_sum PATH: "RECORDS DENIALS" of PATH's records (each stands for 1 + repeats).
mask_sum() {
	mask_recs "$1" | awk '{ n = 1; if (match($0, / repeats=[0-9]+/)) n += substr($0, RSTART + 9, RLENGTH - 9)
	    s += n; c++ } END { print c + 0, s + 0 }'
}
# The last window's count is written when the window ends (1 s after its record).
for i in $(seq 50); do read -r nrec nden < <(mask_sum "$P/loop.pem"); [ "$nden" -ge 1000 ] && break; sleep 0.1; done
is "$nden" 1000 "the records of loop.pem stand for exactly 1000 denials (1 + repeats each)"
if [ "$nrec" -ge 1 ] && [ "$nrec" -le 10 ]; then ok "...in a few records ($nrec), not 1000"
else not_ok "...in a few records, not 1000: $nrec"; fi
out=$("$BUILD/agentbox-audit" --input "$E2E_AUDIT_LOG" --session "$SES" --json --path "$P/loop.pem" \
    2>/dev/null | python3 -c '
import json, sys
ds = [json.loads(l) for l in sys.stdin]
print(len(ds), sum(1 + d["repeats"] for d in ds), sorted(set(d["pattern"] for d in ds)))')
is "$out" "$nrec 1000 ['*.pem']" \
    "agentbox-audit: the same rows, 1000 denials of *.pem, none of the kernel's 1000 events listed again"
# session_end: log out (su passes SIGTERM on, close_session kills pid 1) and wait until
# the agent's processes and the session's reader are gone.
session_end() {
	kill "$SU_PID" 2>/dev/null; wait "$SU_PID" 2>/dev/null
	e2e_wait_uid_gone "$UID_A" 5
	for i in $(seq 100); do [ -z "$(pgrep -P "$PAM_MASKD_PID")" ] && break; sleep 0.05; done
}
session_end

# ---- fail closed ----
reader_pid() { pgrep -n -P "$PAM_MASKD_PID"; }
# mask_end SES REASON: agentbox-maskd's op=agentbox-mask-end record of the session it
# ended, in the audit log (auditd writes asynchronously: poll up to 5 s).
mask_end() {
	local i
	for i in $(seq 50); do
		e2e_audit_records | grep -q "op=agentbox-mask-end ses=$1 uid=$UID_A reason=$2" &&
			return 0
		sleep 0.1
	done
	return 1
}
# A reader killed while an open waits on it: the session ends, the open never returns.
session_start || e2e_die "no second session"
R=$(reader_pid)
[ -n "$R" ] || e2e_die "no reader"
printf 'SECRET-20' > "$P/blocked.pem"
kill -STOP "$R"
printf 'cat %s/blocked.pem > %s/res/leak\n' "$P" "$P" > "$P/cmd/$N.t" && mv "$P/cmd/$N.t" "$P/cmd/$N"
sleep 0.5
kill -KILL "$R"
for i in $(seq 100); do kill -0 "$SU_PID" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$SU_PID" 2>/dev/null; then not_ok "reader killed: the session ended"
else ok "reader killed with an open waiting: the session ended"; fi
if grep -q SECRET "$P/res/leak" 2>/dev/null; then not_ok "the waiting open leaked the secret"
else ok "the waiting open never completed"; fi
e2e_wait_uid_gone "$UID_A" 5 && ok "no process of the agent left" ||
    not_ok "processes of the agent left: $(ps -o pid,stat,comm -u $UID_A | tr '\n' ' ')"
mask_end "$SES" reader-gone; check $? "on the record: agentbox-mask-end ses=$SES reason=reader-gone"
e2e_audit_records > "$E2E_DIR/end.log"; "$BUILD/agentbox-audit" sessions --input "$E2E_DIR/end.log" --session "$SES" 2>/dev/null | grep -q "\[ended by agentbox-maskd: reader-gone\]"
check $? "agentbox-audit sessions says agentbox-maskd ended it"

# The daemon itself killed: each reader ends its session.
session_start || e2e_die "no third session"
pam_maskd_stop
for i in $(seq 100); do kill -0 "$SU_PID" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$SU_PID" 2>/dev/null; then not_ok "daemon killed: the session ended"
else ok "daemon killed: its reader ended the session"; fi
mask_end "$SES" supervisor-gone; check $? "on the record: agentbox-mask-end ses=$SES reason=supervisor-gone"
e2e_wait_uid_gone "$UID_A" 5 && ok "no process of the agent left" || not_ok "agent processes left"

# No daemon: the login is refused, one auth log line.
pam_authlog_since
out=$(su $U -c 'echo IN' 2>&1)
[[ $out != *IN* ]] && ok "no agentbox-maskd: login refused" || not_ok "no agentbox-maskd: login refused"
# The first question a login asks it is whether it watches (no process of the agent
# outside a box); either way the refusal names the daemon.
pam_authlog_find "refusing session of $U: agentbox-maskd is not (taking sessions|watching)" >/dev/null &&
    ok "the refusal is in the auth log" || not_ok "no auth log line for the refusal"

# A flood: S bounded at 64; the agent creates masked names faster than it may: the
# reader fails closed and the session ends.
pam_maskd_start --history-max 64 || e2e_die "maskd restart"
session_start || e2e_die "no fourth session"
run "for i in \$(seq 500); do echo x > $P/f\$i.env; cat $P/f\$i.env; done > /dev/null 2>&1; echo survived" 3
for i in $(seq 100); do kill -0 "$SU_PID" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$SU_PID" 2>/dev/null; then not_ok "flood: the session ended"
else ok "flood past the history's bound: the session ended"; fi
grep -q "failed closed" "$E2E_DIR/maskd/log" && ok "the daemon logged why" ||
    not_ok "no 'failed closed' line in the daemon's log"
mask_end "$SES" failed-closed; check $? "on the record: agentbox-mask-end ses=$SES reason=failed-closed"
e2e_wait_uid_gone "$UID_A" 5 && ok "no process of the agent left" || not_ok "agent processes left"
finish
