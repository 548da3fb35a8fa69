#!/bin/bash
# agentbox-maskd on a real mount (research/dynamic_masks.md §7).
# In its own mount namespace: a tmpfs holds the project (the "host path", where the
# developer and root work), and a bind mount of it is the session's view, marked by the
# enforcer.  The agent is a process with its own audit session (it writes a test uid to
# /proc/self/loginuid, as pam_loginuid would) that drops to that uid; each attack of
# research §7 rows 1-9 and 16 must fail with EPERM *and* leave a type=FANOTIFY resp=2
# record in the same audit event as a SYSCALL record with the agent's ses.  The record is
# only written while some audit rule is loaded: a narrow one for the test uid is loaded
# here and removed by a defer.  Also: root reads masked names through the host path,
# what killing the enforcer does today (TODO rows: the supervisor must close it), and
# the cost of open+close on 10,000 unmasked files.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
need_root
if [ "${AB_MASKD_WORLD:-}" != "$$" ]; then
	export AB_MASKD_WORLD=$$
	exec unshare --mount --propagation private -- "$BASH" "$0" "$@"
	skip_all "unshare --mount failed"
fi

MASKD=$BUILD/agentbox-maskd
TRY=$BUILD/tests/maskd-try
[ -x "$MASKD" ] && [ -x "$TRY" ] || skip_all "build first: make $MASKD $TRY"
command -v auditctl >/dev/null || skip_all "auditctl missing"
AU=64123			# the agent's uid: no account needed, only audit rules by uid
KEY=ab-maskd-test
RULE=(-F arch=b64 -S open,openat,openat2 -F uid=$AU -F exit=-EPERM -k $KEY)

W=$(mktemp -d /tmp/ab-maskd.XXXXXX) || skip_all "mktemp"
mount -t tmpfs -o mode=0755 ab-maskd "$W" || skip_all "tmpfs on $W"
defer "umount -l '$W'; rmdir '$W'"
H=$W/fs/proj		# the host path: the developer's and root's view
S=$W/sess/proj		# the session's mount of the same tree
mkdir -p "$H" "$S" "$W/sig" && chmod 0777 "$H" "$W/sig" || skip_all "tree"
mount -t tmpfs -o mode=0755 ab-maskd-fs "$W/fs" && mkdir -p "$H" && chmod 0777 "$H" &&
    mount --bind "$H" "$S" || skip_all "session mount"


# agent OP ARGS...: maskd-try as the agent, in a fresh audit session.  Sets out, rc, ses;
# its pid is in $W/ses.pid.
agent() {
	out=$(AU=$AU SESF=$W/ses sh -c 'echo "$AU" > /proc/self/loginuid &&
	    cat /proc/self/sessionid > "$SESF" && echo $$ > "$SESF.pid" &&
	    exec setpriv --reuid="$AU" --regid="$AU" --clear-groups "$@"' agent "$TRY" "$@" 2>&1)
	rc=$?
	ses=$(cat "$W/ses")
}

# denied WHAT INFO OP ARGS...: the agent's OP fails with EPERM and is on the record.
denied() {
	local what=$1 info=$2
	shift 2
	agent "$@"
	is "$rc" 1 "$what: EPERM"
	[ "$rc" = 1 ] || diag "$out"
	if e2e_fan_event "$ses" "" "$info"; then
		ok "$what: type=FANOTIFY resp=2 fan_info=$info in the event of ses=$ses"
	else
		not_ok "$what: no type=FANOTIFY resp=2 fan_info=$info with ses=$ses"
	fi
}

dev() { printf '%s' "$2" > "$H/$1.tmp" && chmod 0666 "$H/$1.tmp" && mv "$H/$1.tmp" "$H/$1"; }

# ---- before the session: what exists at login, and the baseline cost ----
# The cost is measured before the audit rule is loaded (a loaded rule costs every
# syscall of every process: DESIGN "Pitfalls"), three sets of 10,000 files so that
# each enforced pass meets inodes the enforcer has not cached yet.
mkdir -p "$H/r4/secrets" && chmod -R 0777 "$H/r4" || e2e_die "tree"
for b in 0 1 2; do
	mkdir -p "$H/bench$b" && (cd "$H/bench$b" && for i in $(seq 0 9999); do : > "f$i"; done)
done
dev .env SECRET-0
dev r4/secrets/k SECRET-4K	# masked at login; renamed away by the agent later
# bench WHAT: open+close of 10,000 files in each set, as the agent; BENCH = the figures.
bench() {
	local b
	BENCH=""
	for b in 0 1 2; do
		agent bench "$S/bench$b" 10000
		[ "$rc" = 0 ] || { not_ok "$1: $out"; return; }
		BENCH="$BENCH $out"
	done
	ok "$1: open+close of 3 x 10,000 unmasked files"
}
bench "warm-up"
bench "baseline, no enforcer"
base=$BENCH

# ---- the enforcer ----
"$MASKD" --mount "$S" --project "$S" --pattern .env --pattern '.env.*' --pattern '*.pem' \
    --pattern secrets/ --ready "$W/ready" 2>"$W/maskd.err" &
MPID=$!
defer "kill -9 $MPID"
for i in $(seq 50); do [ -e "$W/ready" ] && break; sleep 0.1; done
[ -e "$W/ready" ] || e2e_die "enforcer not ready: $(cat "$W/maskd.err")"

bench "enforcer, first open of each file (uncached)"
uncached=$BENCH
bench "enforcer, the same files again (ignore-mark cache)"
cached=$BENCH
diag "open+close per file, us (3 sets): no enforcer$base; uncached$uncached; cached$cached"

# A rule of the host's own (not keyed agentbox): agentbox's audit scope rule would
# silence it for this test's tasks, so the rebuild takes the scope away while the rule is
# loaded, and the defer (run after the rule's) puts it back.
defer "'$BUILD/agentbox' audit-scope >/dev/null"
auditctl -a always,exit "${RULE[@]}" >/dev/null || e2e_die "cannot load an audit rule"
defer "auditctl -d always,exit ${RULE[*]}"
"$BUILD/agentbox" audit-scope >/dev/null || e2e_die "agentbox audit-scope"
is "$(auditctl -l | grep -c -- '-a never,task .*key=agentbox')" 0 \
    "agentbox's audit scope rule yields to a host rule of its own"
e2e_audit_since

# Row 1: the developer saves .env from outside (tmp + rename) during the session.
dev .env SECRET-1
denied "row 1: .env saved over from outside" 1 read "$S/.env"
# Row 2: new masked files and a new secrets/ directory.
mkdir -p "$H/config" "$H/sub" "$H/a/b/secrets"
dev config/.env.local SECRET-2a
dev sub/server.PEM SECRET-2b
dev a/b/secrets/k SECRET-2c
denied "row 2: new config/.env.local" 2 read "$S/config/.env.local"
denied "row 2: new sub/server.PEM" 3 read "$S/sub/server.PEM"
denied "row 2: new a/b/secrets/k" 4 read "$S/a/b/secrets/k"
# Row 3: case variants.
mkdir -p "$H/r3/SECRETS"
dev r3/.ENV S3a; dev r3/.Env.prod S3b; dev r3/SECRETS/x S3c; dev r3/x.Pem S3d
denied "row 3: .ENV" 1 read "$S/r3/.ENV"
denied "row 3: .Env.prod" 2 read "$S/r3/.Env.prod"
denied "row 3: SECRETS/x" 4 read "$S/r3/SECRETS/x"
denied "row 3: x.Pem" 3 read "$S/r3/x.Pem"
# Row 4: the agent renames a masked file, and a masked directory, away.
dev r4/.env SECRET-4
agent rename "$S/r4/.env" "$S/r4/x"
is "$rc" 0 "row 4: the agent may rename .env to x (a rename is not an open)"
denied "row 4: mv .env x; cat x" 10000 read "$S/r4/x"
agent rename "$S/r4/secrets" "$S/r4/notsecret"
is "$rc" 0 "row 4: the agent may rename secrets/ (there since login) to notsecret/"
denied "row 4: mv secrets notsecret; cat notsecret/k" 10000 read "$S/r4/notsecret/k"
# Row 5: a hard link made by the agent (the file is writable by it, as with a group).
mkdir -p "$H/r5" && chmod 0777 "$H/r5" && dev r5/.env SECRET-5
agent link "$S/r5/.env" "$S/r5/y"
is "$rc" 0 "row 5: ln .env y works (protected_hardlinks lets a writer link)"
denied "row 5: ln .env y; cat y" 10000 read "$S/r5/y"
# Row 6: an O_PATH fd turned into a new name.
mkdir -p "$H/r6" && chmod 0777 "$H/r6" && dev r6/.env SECRET-6
agent opath-linkat "$S/r6/.env" "$S/r6/z"
is "$rc" 0 "row 6: linkat(O_PATH fd, AT_EMPTY_PATH) works"
denied "row 6: linkat(AT_EMPTY_PATH) then open" 10000 read "$S/r6/z"
agent opath-proclink "$S/r6/.env" "$S/r6/z2"
is "$rc" 0 "row 6: linkat(/proc/self/fd/N, AT_SYMLINK_FOLLOW) works"
denied "row 6: linkat(/proc/self/fd/N) then open" 10000 read "$S/r6/z2"
# Row 7: a symlink to .env (the resolved name is judged).
mkdir -p "$H/r7" && chmod 0777 "$H/r7" && dev r7/.env SECRET-7
agent symlink .env "$S/r7/s"
denied "row 7: ln -s .env s; cat s" 1 read "$S/r7/s"
# Row 8: an O_PATH fd reopened through /proc/self/fd.
mkdir -p "$H/r8" && dev r8/.env SECRET-8
denied "row 8: O_PATH .env, open /proc/self/fd/N" 1 opath-reopen "$S/r8/.env"
# Row 9: an O_PATH fd held across the developer's save, reopened: ".env (deleted)".
mkdir -p "$H/r9" && dev r9/.env SECRET-9-OLD
rm -f "$W/sig/ready" "$W/sig/go"
(agent stale "$S/r9/.env" "$W/sig/ready" "$W/sig/go"; echo "$rc $ses" > "$W/r9.rc"
    printf '%s' "$out" > "$W/r9.out") &
for i in $(seq 50); do [ -e "$W/sig/ready" ] && break; sleep 0.1; done
dev r9/.env SECRET-9-NEW && : > "$W/sig/go"
wait $!
read -r rc ses < "$W/r9.rc"
is "$rc" 1 "row 9: the stale fd of the replaced .env reopened: EPERM"
unlike "$(cat "$W/r9.out")" SECRET "row 9: no secret read"
if e2e_fan_event "$ses" "" 1; then ok "row 9: on the record with ses=$ses"; else not_ok "row 9: no record for ses=$ses"; fi
# Row 16: a cached inode renamed to .env and written by the developer.
mkdir -p "$H/r16" && dev r16/f plain
agent read "$S/r16/f"
is "$rc" 0 "row 16: f is readable (and now cached)"
mv "$H/r16/f" "$H/r16/.env" && echo SECRET-16 >> "$H/r16/.env"
denied "row 16: cached f, mv f .env, append: the write cleared the cache" 1 read "$S/r16/.env"

# Outside the session nothing changes.
like "$(cat "$H/.env")" SECRET-1 "root reads .env through the host path"
like "$(setpriv --reuid=$AU --regid=$AU --clear-groups cat "$H/sub/server.PEM")" SECRET-2b \
    "the same uid reads server.PEM through the host path (unmarked mount)"

# Killing the enforcer mid-session, an open pending in its queue.  fanotify(7) and the
# research's e1 (reader killed after reading the event): the group's last fd closes and
# the pending open is *allowed*.  Measured here for an event still unread (reader
# stopped, then killed): the reader's exit waits in fsnotify_destroy_group and the open
# stays blocked (state D, killable) until the opener is killed; then the marks are gone.
# Both are today's; the supervisor (next session) must hold a dup of the group fd and
# end the session before the last fd closes (maskd/README.md "Fail-open modes").
mkdir -p "$H/rk" && dev rk/.env SECRET-K
kill -STOP $MPID
(agent read "$S/rk/.env"; echo "$rc" > "$W/rk.rc"; printf '%s' "$out" > "$W/rk.out") &
bg=$!
sleep 0.5
if [ -e "$W/rk.rc" ]; then not_ok "the agent's open of rk/.env waits for the stopped enforcer"
else ok "the agent's open of rk/.env waits for the stopped enforcer"; fi
kill -9 $MPID
for i in $(seq 30); do [ -e "$W/rk.rc" ] && break; sleep 0.1; done
if [ -e "$W/rk.rc" ]; then
	not_ok "today (unread event): the open stays blocked after the enforcer is killed"
	diag "the open returned $(cat "$W/rk.rc"): $(cat "$W/rk.out" 2>/dev/null)"
else
	ok "today (unread event): the open stays blocked after the enforcer is killed"
	kill -9 "$(cat "$W/ses.pid")"	# the opener (maskd-try: sh exec'd it): killable
fi
wait $bg
for i in $(seq 30); do kill -0 $MPID 2>/dev/null || break; sleep 0.1; done
if kill -0 $MPID 2>/dev/null; then not_ok "the enforcer's exit finished once the opener died"
else ok "the enforcer's exit finished once the opener died"; fi
n=$((n + 1)); echo "not ok $n - the pending open is denied (EPERM), not held or allowed, when the enforcer dies # TODO supervisor: hold a dup of the group fd, end the session before the last fd closes"
agent read "$S/.env"
like "$out" SECRET-1 "today: after the enforcer died, .env is readable (marks gone)"
n=$((n + 1)); echo "not ok $n - no open succeeds after the enforcer died # TODO supervisor: end the session's access first"

# Fail closed: when the enforcer cannot go on (here S is bounded to 3 inodes and the
# developer makes 4 masked files), the open it is answering is denied, on the record
# with rule 0x10001, and it exits non-zero.  (After that the marks are gone: the
# supervisor's to close, as above.)
"$MASKD" --mount "$S" --project "$S" --pattern .env --pattern '.env.*' --history-max 3 \
    --ready "$W/ready2" 2>"$W/maskd2.err" &
M2=$!
defer "kill -9 $M2"
for i in $(seq 50); do [ -e "$W/ready2" ] && break; sleep 0.1; done
[ -e "$W/ready2" ] || e2e_die "second enforcer not ready: $(cat "$W/maskd2.err")"
mkdir -p "$H/rf" && dev rf/plain nothing-secret
for i in 1 2 3 4; do dev "rf/.env.$i" "SECRET-F$i"; done
denied "S full: the next open, of an unmasked file, fails closed" 10001 read "$S/rf/plain"
wait $M2
is "$?" 1 "the enforcer exits 1 after failing closed"
like "$(cat "$W/maskd2.err")" "failing closed: No space left on device" "and says why"
finish
