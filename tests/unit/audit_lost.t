#!/bin/bash
# Losses judged on a session's own span: with --session/--user, the lost= the session's
# start and end records carry decides, not the kernel's counter since boot; records
# without lost= keep the host-wide verdict; hostile values are never read as clean.
# Both engines must agree.  No root needed (--input: the host's counter is not read; the
# verdict against a given host counter is in audit_record.c).
#
# tests/fixtures/session-lost.log, written by hand, one seccomp denial per session:
#   201 abt_l1  lost=7 .. lost=7        clean      202 abt_l2  lost=7 .. lost=12  5 lost
#   204 abt_l3  no lost= (older module)             205 abt_l4  99999999999 .. -1
#   206 abt_l5  abc .. (empty)                      207 abt_l6  5 .. (end without lost=)
#   208 abt_l7  20 .. 10 (fell)                     209 abt_l8  0x10 .. 0x10
#   203 abt_l1  lost=12, no end (open)
. "$(dirname "$0")/../lib.sh"
export TZ=UTC
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
F=$TOP/tests/fixtures/session-lost.log
[ -x "$AA" ] || skip_all "$AA not built (make $AA)"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"

for e in fast auparse; do
	run() { "$AA" --engine "$e" --input "$F" "$@" > "$tmp/out" 2>&1; echo $?; }
	is "$(run --session 201)" 0 "$e: session 201, counter unchanged over its span: exit 0"
	like "$(cat "$tmp/out")" "COMPLETE: every serial" "$e: session 201 says COMPLETE"
	is "$(run --session 202)" 1 "$e: session 202, counter rose in its span: exit 1"
	like "$(cat "$tmp/out")" "session 202: 5 audit record(s) lost during this session" \
		"$e: session 202 says how many"
	like "$(cat "$tmp/out")" "does not say whose" "$e: and that their owner is unknown"
	is "$(run --session 203)" 1 "$e: open session without --kernel-status: exit 1"
	like "$(cat "$tmp/out")" "session 203 is still open" "$e: open session: says why"
	is "$(run --session 204)" 0 "$e: record without lost=: today's verdict (--input: exit 0)"
	like "$(cat "$tmp/out")" "kernel lost counter not checked" "$e: older records: host-wide note"
	for s in 205 206 207 208 209; do
		is "$(run --session "$s")" 1 "$e: session $s, hostile lost=: not complete"
	done
	is "$(run --user abt_l1)" 1 "$e: --user abt_l1 (201 clean, 203 open): exit 1"
	is "$(run --user abt_l2 --json)" 1 "$e: --json: exit 1 too"
	like "$(cat "$tmp/out")" '"lost_judged_on":"sessions","lost_during_sessions":5' \
		"$e: --json says which counter judged, and what it lost"
	is "$(run)" 0 "$e: no session selected: the host-wide verdict, as before"
	unlike "$(cat "$tmp/out")" "losses: judged on" "$e: no session selected: no span verdict"
done
# sessions says which sessions are affected: a mark on the row, lost_during in --json.
out=$("$AA" sessions --input "$F" 2>/dev/null)
like "$out" "[5 audit record(s) lost during it]" "sessions: session 202's row says it lost 5"
like "$(grep '^205' <<< "$out")" "[lost counter in its records unreadable]" \
	"sessions: a hostile lost= is marked unreadable"
unlike "$(grep '^201' <<< "$out")" "lost" "sessions: a clean span carries no mark"
out=$("$AA" sessions --json --input "$F" 2>/dev/null)
like "$(grep '"session":202,' <<< "$out")" '"lost_during":5,"lost_judged":"span"' \
	"sessions --json: lost_during of a closed session"
like "$(grep '"session":204,' <<< "$out")" '"lost_during":null,"lost_judged":"host"' \
	"sessions --json: older records: judged by the host"
like "$(grep '"session":203,' <<< "$out")" '"lost_during":null,"lost_judged":"open"' \
	"sessions --json: an open session: null"
# The two engines' reports, word for word.
for sel in "--session 202" "--session 203" "--user abt_l1" "--session 207"; do
	# shellcheck disable=SC2086
	"$AA" --input "$F" $sel > "$tmp/fast" 2>&1
	# shellcheck disable=SC2086
	"$AA" --engine auparse --input "$F" $sel > "$tmp/aup" 2>&1
	if cmp -s "$tmp/fast" "$tmp/aup"; then ok "engines agree on $sel"
	else not_ok "engines differ on $sel"; diff "$tmp/fast" "$tmp/aup" | head -4 | sed 's/^/# /'; fi
done
finish
