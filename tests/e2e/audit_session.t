#!/bin/bash
# The review of a real confined session: real `agentbox enroll`,
# real su into pam_agentbox + agentbox-shell, a list of provoked denials of each kind
# (Landlock, a masked file, a protected file, seccomp), then agentbox-audit must list
# each one, attributed to the session and user, and its `sessions` row must match the
# session record.  With AB_AUDIT_FIXTURE=FILE the log slice is also saved there (that is
# how tests/fixtures/real-confined.log was recorded).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
e2e_enter_private_world "$@"

U=abt_aud1
PROJ=/home/abt_aud1-project
TRY=/usr/local/bin/try-op
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
[ -x "$AA" ] && [ -x "$BUILD/try-op" ] || skip_all "build first"
command -v python3 >/dev/null || skip_all "python3 needed"
grep -qw errno /proc/sys/kernel/seccomp/actions_logged ||
	skip_all "kernel does not log seccomp errno actions (actions_logged)"

install -D -m 0755 "$BUILD/try-op" "$TRY" || e2e_die "install try-op"
mkdir -p "$PROJ/.git/hooks" && chmod 0755 "$PROJ"
echo 'API_KEY=secret' > "$PROJ/.env"
printf '#!/bin/sh\n' > "$PROJ/.git/hooks/pre-commit"
mount -t tmpfs -o mode=0755 abt-aud-srv /srv || e2e_die "tmpfs /srv"
echo outside > /srv/outside.txt && chmod 0644 /srv/outside.txt
e2e_enroll "$U" --project "$PROJ" || e2e_die "enroll $U"
chown -R "$U" "$PROJ"
# The user may predate this test (tests/fixtures/gen/record makes it without a home).
home=$(getent passwd "$U" | cut -d: -f6)
[ -d "$home" ] || { mkdir -p "$home" && chown "$U:" "$home"; } || e2e_die "home $home"

# kind | access | path (or syscall) | the operation
rows="landlock|fs.read_file|/srv/outside.txt|read /srv/outside.txt
landlock|fs.make_reg|/etc|write /etc/abt-aud-x
dac|EACCES|$PROJ/.env|read $PROJ/.env
dac|EROFS|$PROJ/.git/hooks/pre-commit|write $PROJ/.git/hooks/pre-commit
seccomp|ptrace|-|ptrace
seccomp|bpf|-|bpf
seccomp|keyctl|-|keyctl"
# Output into a project file: the test counts denials, and the output is kept for a
# failure's diagnosis.  (A /dev/null opened inside the box would do now: the shell grants
# its ioctls, so stdio's isatty() on it is no longer an fs.ioctl_dev denial; shell.t.)
script=$(printf '%s\n' "$rows" | while IFS='|' read -r _ _ _ op; do echo "$TRY $op >>$PROJ/out.txt 2>&1"; done)
e2e_audit_since
su "$U" -c "$script"
sleep 1	# the session end record, and auditd's flush
e2e_audit_records > "$E2E_DIR/slice.log"
[ -n "${AB_AUDIT_FIXTURE:-}" ] && cp "$E2E_DIR/slice.log" "$AB_AUDIT_FIXTURE"

"$AA" --json --user "$U" --input "$E2E_DIR/slice.log" > "$E2E_DIR/review.json" 2> "$E2E_DIR/review.err"
rc=$?
python3 - "$E2E_DIR/review.json" > "$E2E_DIR/rows" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print("%s|%s|%s|%s" % (d["kind"], d["access"], d["path"] or d["syscall"], d["session"]))
PY
# This user's start record: other tests may log sessions of their own users meanwhile.
ses=$(grep -F "user=\"$U\"" "$E2E_DIR/slice.log" |
	sed -n 's/.*op=agentbox-session-start ses=\([0-9]*\) .*/\1/p' | tail -1)
[ -n "$ses" ] && ok "session start record: ses $ses" || not_ok "no session start record in the log"
while IFS='|' read -r kind access obj op; do
	[ "$obj" = - ] && obj=$access
	if grep -qxF "$kind|$access|$obj|$ses" "$E2E_DIR/rows"; then ok "listed: $op ($kind $access)"
	else not_ok "not listed: $op ($kind $access $obj in session $ses)"; fi
done <<< "$rows"
is "$(grep -c '' "$E2E_DIR/rows")" "$(grep -c '' <<< "$rows")" "nothing listed that the test did not provoke"
is "$rc" 0 "the slice is complete (exit 0)"
# The start and end records carry the kernel's lost counter (docs/audit-records.md), and a
# review of this session alone is judged on that span, not on the counter since boot.
lost_of() { grep -F "op=agentbox-session-$1 ses=$ses " "$E2E_DIR/slice.log" |
	sed -n 's/.* lost=\([0-9][0-9]*\) .*/\1/p' | tail -1; }
l0=$(lost_of start); l1=$(lost_of end)
[ -n "$l0" ] && ok "start record carries lost=$l0" || not_ok "start record: no numeric lost="
[ -n "$l1" ] && ok "end record carries lost=$l1" || not_ok "end record: no numeric lost="
[ -n "$l0" ] && [ -n "$l1" ] && [ "$l1" -ge "$l0" ] && ok "lost at end >= at start" ||
	not_ok "lost at end ($l1) below start ($l0)"
# ... and the state of the kernel's queue: records queued then, and its limit.
for w in start end; do
	grep -F "op=agentbox-session-$w ses=$ses " "$E2E_DIR/slice.log" |
		grep -qE ' backlog=[0-9]+ backlog_limit=[1-9][0-9]* '
	check $? "$w record carries backlog= and backlog_limit="
done
"$AA" --json --session "$ses" --kernel-status --input "$E2E_DIR/slice.log" >/dev/null \
	2> "$E2E_DIR/span.err"
like "$(cat "$E2E_DIR/span.err")" "\"lost_judged_on\":\"sessions\",\"lost_during_sessions\":$((l1 - l0))" \
	"--session: losses judged on the session's span ($((l1 - l0)) lost during it)"
out=$("$AA" sessions --input "$E2E_DIR/slice.log")
like "$out" "$ses	$U	su	" "sessions: the su session, its user and service"
like "$out" "7 (landlock 2, seccomp 3, dac 2)" "sessions: denial counts by kind"
finish
