#!/bin/bash
# Escape suite, class "audit" (invariant 5: every denial is on the record): turning audit
# off, forging agentbox's own session records, changing the login uid (and so ses=),
# reaching auditd, a Landlock domain of the agent's own made to silence Landlock records,
# hostile file names in denied paths, and a flood of a million denials meant to push
# earlier evidence out or lose records.  Entered with sudo -iu.
#
# ESC_FLOOD sets the flood size: 1,000,000 under CI (the suite runs alone); elsewhere
# 100,000 by default, because the kernel audit backlog and auditd are shared with every
# other test running on the machine.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"
# 100,000 denials by default (about a minute); the million-denial storm runs
# as bench/review-storm (about 15 minutes): ESC_FLOOD=1000000 runs it here too.
flood=${ESC_FLOOD:-100000}
auditd_pid=$(pgrep -x auditd | head -n 1)
# A secret whose name tries to forge audit fields (newline, quotes, ses=): masked (*.pem).
evil=$'evil\ntype=SYSCALL msg=audit(1.0:1): "x" ses=4294967295 key=.pem'
esc_as_dev "printf ABTSECRET-evil > '$P/$evil'" || e2e_die "hostile file"
lost_before=$(auditctl -s | awk '$1 == "lost" {print $2}')

esc_begin audit
attempt A01 "turn auditing off (AUDIT_SET enabled=0)"  'EPERM|EACCES' rec audit-off
attempt A02 "forge an agentbox-session-end record"      'EPERM|EACCES' rec audit-forge
attempt A03 "rewrite /proc/self/loginuid (a new ses=)"  'EPERM|EACCES' rec loginuid 0
attempt A04 "signal auditd by its host pid"             'ESRCH|EPERM' 'rec?' kill "${auditd_pid:-1}" 15
raw "if auditctl -D >/dev/null 2>&1; then echo 'ESC A05 0 OK auditctl -D worked'; else echo 'ESC A05 1 EPERM auditctl -D refused'; fi"
expect A05 "auditctl -D" '!OK' -
attempt A06 "read through a Landlock domain of the agent's own, logging off" EACCES rec nested-landlock "$DH/notes.txt"
attempt A07 "denied read of a masked file whose name forges audit fields" EACCES rec read "$P/$evil"
attempt A08 "evidence before the flood"                 EACCES rec read "$P/.env"
attempt A09 "flood: $flood denied syscalls"             EPERM - flood-seccomp "$flood"
attempt A10 "evidence after the flood"                  EACCES rec read "$P/.env"
# The flood runs at the pace auditd drains the kernel backlog (about 800 denials/s on the
# 2-core test machine, where the agent waits in audit_log_start): bound it accordingly.
limit=$((300 + flood / 400))
t0=$(date +%s)
esc_run sudo "" "$limit"
t1=$(date +%s)
esc_check
esc_assert_confined
diag "flood of $flood denials: session took $((t1 - t0)) s; $(esc_result A09)"
[ $((t1 - t0)) -lt "$limit" ] && ok "A09 the flood is bounded in time ($((t1 - t0)) s, limit $limit s)" || not_ok "A09 the flood ran into the $limit s timeout"
is "$(pgrep -x auditd | head -n 1)" "$auditd_pid" "A04 auditd still runs, same pid"
is "$(auditctl -s | awk '$1 == "enabled" {print $2}')" 1 "A01 auditing still enabled"
# A06: no Landlock record (the agent silenced its own domain) but the backstop holds.
recs=$(esc_records_of A06)
diag "A06 records: ${recs:-none}"
# A07: the review shows the true path (hex-decoded), not a forged field.
jq -r --arg c e-A07 'select(.comm == $c) | .path' "$ESC_REVIEW" > "$E2E_DIR/a07.path"
is "$(cat "$E2E_DIR/a07.path")" "$P/$evil" "A07 the review shows the hostile path exactly (decoded, not split)"
unlike "$(jq -r 'select(.comm == "e-A07") | .session' "$ESC_REVIEW" | sort -u)" "4294967295" "A07 the forged ses= did not become the denial's session"

# A09: the flood either is all on the record or its loss is counted and shown; and the
# evidence from before it is still in the review read from the rotated logs.
lost_after=$(auditctl -s | awk '$1 == "lost" {print $2}')
"$ESC_AUDIT_TOOL" --session "$ESC_SES" --json >"$E2E_DIR/a09.json" 2>"$E2E_DIR/a09.complete"
rc=$?
n_flood=$(jq -r 'select(.comm == "e-A09")' "$E2E_DIR/a09.json" 2>/dev/null | grep -c '"comm"')
diag "A09 flood denials in the review: $n_flood of $flood; kernel lost $lost_before -> $lost_after; review exit $rc"
diag "completeness: $(head -c 400 "$E2E_DIR/a09.complete")"
if [ "$n_flood" -ge "$flood" ]; then
	ok "A09 every flood denial is on the record"
elif [ "$rc" != 0 ] && [ -s "$E2E_DIR/a09.complete" ] && ! grep -q '"complete": *true' "$E2E_DIR/a09.complete"; then
	ok "A09 the review says it is incomplete ($n_flood of $flood on record)"
else
	not_ok "A09 $((flood - n_flood)) flood denials missing and the review claims completeness"
fi
esc_in_review "$E2E_DIR/a09.json" e-A08 &&
    ok "A08 evidence from before the flood is still in the review" ||
    not_ok "A08 evidence from before the flood was pushed out of the review"

esc_assert_gone "$ESC_AGENT"
finish
