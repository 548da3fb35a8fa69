#!/bin/bash
# Landlock domain counts and unreadable lines judged on the selected sessions' spans
# (issue 13 item 4): with --session/--user, a domain of the session's own that the
# kernel says denied more than the log holds, a domain of no known session that ended
# inside its span, and a line skipped as unreadable inside its span make it incomplete,
# each named for that session; the same things outside every selected span are notes,
# and a session whose span holds none is COMPLETE.  The sessions view marks the session
# they touch.  Both engines must agree (the reference engine refuses the lines the fast
# one refuses: libauparse alone takes many without a word).
#
# tests/fixtures/session-trouble.log, written by hand (serials):
#   7000..7006  session 401 (abt_t1): start; a Landlock denial of domain aaa1 (7002);
#               7003 an unreadable line (seconds out of range) naming its serial;
#               aaa1 ends with denials=3 (2 records missing); bbb2, no record of it
#               read, ends with denials=2 inside the span; end
#   7007..7009  session 402 (abt_t2): start, a seccomp denial, end
#   7010        an unreadable line; 7011 domain ccc3 (no record read) ends, denials=1
. "$(dirname "$0")/../lib.sh"
export TZ=UTC
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
F=$TOP/tests/fixtures/session-trouble.log
[ -x "$AA" ] || skip_all "$AA not built (make $AA)"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"

# What the reference engine sees too: the fixture without its two unreadable lines.
grep -v '^type=SYSCALL msg=audit(99999' "$F" > "$tmp/domains.log"
for e in fast auparse; do
	run() { "$AA" --engine "$e" --input "$tmp/domains.log" "$@" > "$tmp/out" 2>&1; echo $?; }
	out() { cat "$tmp/out"; }
	is "$(run --session 402 summary)" 0 "$e: session 402, no short domain inside its span: exit 0"
	like "$(out)" "note: 3 Landlock domain(s) of other sessions counted more denials" \
		"$e: session 402: the three short domains are a note"
	is "$(run --session 401 summary)" 1 "$e: session 401: exit 1"
	like "$(out)" "INCOMPLETE: session 401: 1 Landlock domain(s) of its own counted more denials than the log holds (2 record(s) missing)" \
		"$e: session 401: its own short domain, with the records missing"
	like "$(out)" "INCOMPLETE: session 401: 1 Landlock domain(s) of no known session ended during it" \
		"$e: session 401: the unknown domain that ended inside its span"
	like "$(out)" "note: 1 Landlock domain(s) of other sessions" \
		"$e: session 401: ccc3, after its end, is a note"
done

# The whole fixture, unreadable lines too.
for e in fast auparse; do
	run() { "$AA" --engine "$e" --input "$F" "$@" > "$tmp/out" 2>&1; echo $?; }
	is "$(run --session 402 summary)" 0 "$e: session 402, nothing inside its span: exit 0"
	like "$(out)" "COMPLETE: every serial in the selected session(s)' spans is present" \
		"$e: session 402 says COMPLETE"
	like "$(out)" "note: 3 Landlock domain(s) of other sessions counted more denials" \
		"$e: session 402: the three short domains are a note"
	like "$(out)" "note: 2 line(s) skipped as unreadable outside the selected session(s)' spans" \
		"$e: session 402: the two unreadable lines are a note"
	unlike "$(out)" "INCOMPLETE" "$e: session 402: no problem at all"

	is "$(run --session 401 summary)" 1 "$e: session 401: exit 1"
	like "$(out)" "INCOMPLETE: session 401: 1 Landlock domain(s) of its own counted more denials than the log holds (2 record(s) missing)" \
		"$e: session 401: its own short domain, with the records missing"
	like "$(out)" "INCOMPLETE: session 401: 1 Landlock domain(s) of no known session ended during it" \
		"$e: session 401: the unknown domain that ended inside its span"
	like "$(out)" "INCOMPLETE: session 401: 1 line(s) skipped as unreadable inside its span" \
		"$e: session 401: the unreadable line inside its span"
	like "$(out)" "note: 1 Landlock domain(s) of other sessions" \
		"$e: session 401: ccc3, after its end, is a note"
	like "$(out)" "note: 1 line(s) skipped as unreadable outside" \
		"$e: session 401: the line after its end is a note"
	is "$(run --user abt_t2 summary)" 0 "$e: --user abt_t2 (session 402): exit 0"

	is "$(run summary)" 1 "$e: no selection: judged on everything read, exit 1"
	like "$(out)" "INCOMPLETE: 2 line(s) skipped as unreadable" "$e: no selection: both lines"
	like "$(out)" "INCOMPLETE: 1 Landlock domain(s) counted more denials" "$e: no selection: aaa1"

	run sessions >/dev/null
	like "$(grep '^401' "$tmp/out")" "[Landlock: 2 record(s) of its own missing, and domains of no known session short during it]" \
		"$e: sessions: 401's row names its short domains"
	like "$(grep '^401' "$tmp/out")" "[1 unreadable line(s) during it]" "$e: sessions: ... and its unreadable line"
	like "$(grep '^401' "$tmp/out")" "[1 serial(s) missing during it]" "$e: sessions: ... and its missing serial"
	unlike "$(grep '^402' "$tmp/out")" "[" "$e: sessions: 402's row has no mark"
	run summary >/dev/null
	like "$(grep '^session 401' "$tmp/out")" "[Landlock: 2 record(s) of its own missing" \
		"$e: summary: session 401's line names its troubles too"
	unlike "$(grep '^session 402' "$tmp/out")" "[" "$e: summary: 402's line has no mark"
	run summary --json >/dev/null
	like "$(grep '"session":401' "$tmp/out")" '"unreadable_lines":1,"ungrouped_events":0}' \
		"$e: summary --json: 401's span object"
	run sessions --json >/dev/null
	like "$(grep '"session":401' "$tmp/out")" '"span":{"serials_missing":1,"landlock_domains_short":1,"landlock_records_missing":2,"landlock_domains_unknown_short":1,"unreadable_lines":1,"ungrouped_events":0}' \
		"$e: sessions --json: 401's span object"
	like "$(grep '"session":402' "$tmp/out")" '"span":{"serials_missing":0,"landlock_domains_short":0,"landlock_records_missing":0,"landlock_domains_unknown_short":0,"unreadable_lines":0,"ungrouped_events":0}' \
		"$e: sessions --json: 402's is clean"
	run --session 401 --json summary >/dev/null
	like "$(out)" '"landlock_short_in_sessions":2,"unreadable_in_sessions":1' \
		"$e: --json report: the span counts"
done
# An unreadable line with no serial counts against every span: never for none.
{ sed -n 1,12p "$F"; echo "garbage without any audit header"; sed -n '13,$p' "$F"; } > "$tmp/noserial.log"
"$AA" --input "$tmp/noserial.log" --session 402 summary > "$tmp/out" 2>&1
is "$?" 1 "a line with no serial makes even session 402 incomplete"
like "$(cat "$tmp/out")" "1 line(s) skipped as unreadable name no serial" "... saying where it lies cannot be told"
# An event the fast engine could not group whole (a Landlock denial's two halves further
# apart than the reading window) inside session 601's span, none in 602's after it:
# 601 is told, 602 is COMPLETE with a note (the storm of audit_storm.t made one in CI).
python3 - "$tmp/cut.log" "$TOP/tests/fixtures/gen/cut-event.py" <<'PY'
import subprocess, sys
out = open(sys.argv[1], "w")
t = "1796400000.100"
def sess(op, serial, ses, uid, user):
    extra = ' tty="" rhost="" digest=' + "0" * 64 + ' network=none masks=1 protects=1 init_pid=7 new_ses=yes' if op == "start" else " init_pid=7 reason=logout"
    out.write("type=TRUSTED_APP msg=audit(%s:%d): pid=7 uid=0 auid=%d ses=%d msg='op=agentbox-session-%s ses=%d user=\"%s\" uid=%d service=\"su\"%s lost=0 backlog=0 backlog_limit=8192 exe=\"?\" hostname=? addr=? terminal=? res=success'\n" % (t, serial, uid, ses, op, ses, user, uid, extra))
sess("start", 99, 601, 1601, "abt_c1")
out.flush()
subprocess.run([sys.executable, sys.argv[2], t, "1601", "601"], stdout=out, check=True)
sess("end", 16501, 601, 1601, "abt_c1")
sess("start", 16502, 602, 1602, "abt_c2")
sess("end", 16503, 602, 1602, "abt_c2")
PY
"$AA" --quiet --input "$tmp/cut.log" --session 602 summary > "$tmp/out" 2>&1
is "$?" 0 "a cut event before session 602's span: 602 is COMPLETE"
like "$(cat "$tmp/out")" "note: 1 event(s) the review could not group whole lie outside" \
	"... and the cut is a note"
"$AA" --quiet --input "$tmp/cut.log" --session 601 summary > "$tmp/out" 2>&1
is "$?" 1 "the cut inside session 601's span: 601 is not known complete"
like "$(cat "$tmp/out")" "INCOMPLETE: session 601: 1 event(s) inside its span the review could not group whole" \
	"... named for it"
like "$("$AA" --quiet --input "$tmp/cut.log" sessions 2>&1 | grep '^601')" \
	"[1 event(s) not grouped whole during it]" "sessions marks 601's row"
"$AA" --quiet --input "$tmp/cut.log" summary > "$tmp/out" 2>&1
like "$(cat "$tmp/out")" "1 Landlock event(s) closed by the reading window" \
	"no selection: the cut is a problem of the range, as before"

# The two engines' reports, word for word.
for sel in "--session 401" "--session 402" ""; do
	# shellcheck disable=SC2086
	"$AA" --quiet --input "$F" $sel summary > "$tmp/fast" 2>&1
	# shellcheck disable=SC2086
	"$AA" --quiet --engine auparse --input "$F" $sel summary > "$tmp/aup" 2>&1
	is "$(cat "$tmp/aup")" "$(cat "$tmp/fast")" "engines agree: ${sel:-no selection}"
done
finish
