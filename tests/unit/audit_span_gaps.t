#!/bin/bash
# Serial gaps and rotated-away starts judged on the selected sessions' spans: with
# --session/--user (and lost= in the sessions' records, as audit_lost.t), a serial missing
# inside a selected session's span (its start record .. its end record) makes the review
# incomplete; gaps outside every selected span and other sessions whose start was rotated
# away become notes.  Without a selection, or for a session judged by the host, the
# verdict is about every record read, as before.  Both engines must agree.
#
# tests/fixtures/session-gaps.log, written by hand (serials):
#   6000        a denial of session 303, whose start is not in the log (rotated away)
#   6001..6004  session 301 (abt_g1): start, one denial, end; lost=3 .. 3
#   6005..6010  missing: between sessions
#   6011..6016  session 302 (abt_g2): start, denial, 6014 missing, denial, end
. "$(dirname "$0")/../lib.sh"
export TZ=UTC
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
F=$TOP/tests/fixtures/session-gaps.log
[ -x "$AA" ] || skip_all "$AA not built (make $AA)"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"

for e in fast auparse; do
	run() { "$AA" --engine "$e" --input "$F" "$@" > "$tmp/out" 2>&1; echo $?; }
	is "$(run --session 301)" 0 "$e: session 301, no serial missing in its span: exit 0"
	like "$(cat "$tmp/out")" "COMPLETE: every serial in the selected session(s)' spans is present" \
		"$e: session 301 says COMPLETE, about its span"
	like "$(cat "$tmp/out")" "note: 7 serial(s) missing in the range read outside" \
		"$e: the gaps outside its span are a note"
	like "$(cat "$tmp/out")" "note: 1 other session(s) with denials started before the oldest" \
		"$e: the rotated-away session 303 is a note"
	is "$(run --user abt_g1)" 0 "$e: --user abt_g1 (session 301): exit 0"
	is "$(run --session 302)" 1 "$e: session 302, serial 6014 missing in its span: exit 1"
	like "$(cat "$tmp/out")" "1 serial(s) missing inside the spans of 1 selected session(s)" \
		"$e: session 302 says how many, inside its span"
	like "$(cat "$tmp/out")" "note: 6 serial(s) missing in the range read outside" \
		"$e: the 6 between the sessions are a note"
	is "$(run --session 303)" 1 "$e: session 303, start rotated away: judged on the range, exit 1"
	like "$(cat "$tmp/out")" "7 serial(s) missing inside the range read" \
		"$e: session 303: every gap counts"
	is "$(run)" 1 "$e: no selection: every gap and the rotated-away start count"
	like "$(cat "$tmp/out")" "1 session(s) with denials started before the oldest record read" \
		"$e: no selection: the rotated-away start is a problem"
	is "$(run --session 301 --json)" 0 "$e: --json --session 301: exit 0"
	like "$(cat "$tmp/out")" '"serials_missing":7,' "$e: --json: the range's count stays"
	like "$(cat "$tmp/out")" '"serials_missing_in_sessions":0,' "$e: --json: none in the span"
	is "$(run --json)" 1 "$e: --json, no selection: exit 1"
	like "$(cat "$tmp/out")" '"serials_missing_in_sessions":null,' \
		"$e: --json, no selection: no span verdict"
done
# The two engines' reports, word for word.
for sel in "--session 301" "--session 302" "--user abt_g2" ""; do
	# shellcheck disable=SC2086
	"$AA" --input "$F" $sel > "$tmp/fast" 2>&1
	# shellcheck disable=SC2086
	"$AA" --engine auparse --input "$F" $sel > "$tmp/aup" 2>&1
	is "$(cat "$tmp/aup")" "$(cat "$tmp/fast")" "engines agree: ${sel:-no selection}"
done
finish
