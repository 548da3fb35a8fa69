#!/bin/bash
# agentbox-audit sessions and summary: --session, --user, --since and --until select the
# sessions shown (a session is in range when its span overlaps [since, until]); every
# filter narrows the per-session counts, shown as "N of M"; an empty selection says so in
# words and is not an error; the completeness report stays about everything read and
# says that filters are active.  No root needed.
#
# tests/fixtures/multi-session.log (tests/fixtures/gen/multi-session.py): a real confined
# session three times over, 7 denials each (landlock 2, seccomp 3, dac 2):
#   ses 111 abt_aud1 uid 1001  1796034188 (every record in that second), ended
#   ses 112 abt_aud2 uid 1002  start 1796037792, denials 1796037795..802 one a second
#                              (seccomp at 800..802, dac at 798..799), end 1796037803
#   refused login of abt_aud2  1796037820
#   ses 113 abt_aud1 uid 1001  start 1796041392, denials 1796041395..402, no end (open)
. "$(dirname "$0")/../lib.sh"
export TZ=UTC
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
FX=$TOP/tests/fixtures
MS=$FX/multi-session.log
[ -x "$AA" ] || skip_all "$AA not built (make $AA)"
command -v python3 >/dev/null || skip_all "python3 needed to read JSON"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"
has() { if printf '%s' "$1" | grep -qF -- "$2"; then ok "$3"; else not_ok "$3"; diag "missing: $2" "in: $(printf '%s' "$1" | head -20)"; fi; }
hasnt() { if printf '%s' "$1" | grep -qF -- "$2"; then not_ok "$3"; diag "present: $2"; else ok "$3"; fi; }

# Session ids the table (piped: tab-separated) shows, in order.
table_ids() { "$AA" sessions --input "$MS" "$@" 2>/dev/null | sed -n 's/^\([0-9][0-9]*\)\t.*/\1/p' | xargs; }
# Session ids summary shows.
summary_ids() { "$AA" summary --input "$MS" "$@" 2>/dev/null | sed -n 's/^session \([0-9]*\).*/\1/p' | xargs; }
# "ses:denials/before_filters" of each --json object of COMMAND (sed: a python start-up
# per call would double the time of this test).
json_ids() { local c=$1; shift; "$AA" "$c" --json --input "$MS" "$@" 2>/dev/null |
	sed -n 's/^{"v":1,"session":\([0-9]*\),.*"denials":\([0-9]*\),.*"denials_before_filters":\([0-9]*\).*/\1:\2\/\3/p' | xargs; }

# 1. No filter: all three sessions, counts are totals, said plainly.
out=$("$AA" sessions --input "$MS"); rc=$?
is "$rc" 0 "multi-session fixture: complete record, exit 0"
is "$(table_ids)" "111 112 113" "sessions: all three without filters"
has "$out" $'113\tabt_aud1\tsu\t-\t2026-11-30 12:23:12\t(no end seen)' "sessions: open session has no end"
has "$out" "7 (landlock 2, seccomp 3, dac 2)" "sessions: unfiltered counts are plain totals"
hasnt "$out" "filters:" "no filter line without filters"
is "$(summary_ids)" "111 112 113" "summary: all three without filters"
is "$(json_ids sessions)" "111:7/7 112:7/7 113:7/7" "sessions --json: counts and denials_before_filters"

# 2. Each session-selecting filter, in sessions and summary, table and JSON.
check_sel() {	# check_sel WANT_IDS WANT_JSON WHAT ARGS...
	local want=$1 wjson=$2 what=$3; shift 3
	is "$(table_ids "$@")" "$want" "sessions $what"
	is "$(summary_ids "$@")" "$want" "summary $what"
	is "$(json_ids sessions "$@")" "$wjson" "sessions --json $what"
	is "$(json_ids summary "$@")" "$wjson" "summary --json $what"
}
check_sel "112" "112:7/7" "--session 112" --session 112
check_sel "113" "113:7/7" "--session 113 (open session)" --session 113
check_sel "112" "112:7/7" "--user abt_aud2 (name)" --user abt_aud2
check_sel "111 113" "111:7/7 113:7/7" "--user 1001 (uid)" --user 1001
check_sel "112" "112:7/7" "--user 1002 (uid)" --user 1002
check_sel "" "" "--user 4294968297 (2^32 + 1001: no uid, not 1001)" --user 4294968297
is "$("$AA" --json --input "$MS" --user 4294968297 2>/dev/null | wc -l)" 0 "denials --user 2^32 + 1001: none"
check_sel "112" "112:0/7" "--since/--until = 112's start second (inclusive; no denial in it)" \
	--since 1796037792 --until 1796037792
check_sel "112 113" "112:0/7 113:7/7" "--since = 112's end second: 112 (inclusive) and the open 113" \
	--since 1796037803
check_sel "113" "113:7/7" "--since after 112 ended: only the open session 113" --since 1796037804
check_sel "111" "111:7/7" "--until = 111's second" --until 1796034188
check_sel "111 112" "111:7/7 112:7/7" "--until before 113 starts" --until 1796041391
check_sel "112" "112:2/7" "--since/--until inside 112: selected, counts only its denials in range" \
	--since 1796037799 --until 1796037800
check_sel "111 113" "111:2/7 113:0/7" "--user 1001 --kind dac --until 1796041397 (113 started)" \
	--user 1001 --kind dac --until 1796041397

# 3. --kind and --path select no session: they narrow the counts, said as "N of M".
check_sel "111 112 113" "111:3/7 112:3/7 113:3/7" "--kind seccomp: all sessions, seccomp counts" --kind seccomp
check_sel "111 112 113" "111:1/7 112:1/7 113:1/7" "--path /etc: all sessions, /etc counts" --path /etc
check_sel "113" "113:2/7" "--session 113 --kind dac" --session 113 --kind dac
out=$("$AA" sessions --input "$MS" --kind seccomp)
has "$out" $'\t3 of 7 match the filters (landlock 0, seccomp 3, dac 0)' "sessions: filtered count says N of M"
out=$("$AA" summary --input "$MS" --path /etc --session 112)
has "$out" "session 112 user abt_aud2: 1 of 7 denials match the filters (landlock 1, seccomp 0, dac 0)" \
	"summary: filtered count says N of M"
has "$out" "top paths (of the matching denials):" "summary: top lists say they are of the matching denials"
hasnt "$out" "/home/abt_aud2-project/.env" "summary --path /etc: top paths only of matching denials"
out=$("$AA" summary --json --input "$MS" --kind seccomp --session 111 2>/dev/null)
has "$out" '"denials":3,"kinds":{"landlock":0,"seccomp":3,"dac":0,"net":0},"denials_before_filters":7' \
	"summary --json: filtered kinds and the total"

# 4. Empty selections: header (sessions), "no session matches the filters", the report.
for sel in "--session 999999" "--user nobodyx" "--since 1796041392 --session 112"; do
	# shellcheck disable=SC2086
	out=$("$AA" sessions --input "$MS" $sel); rc=$?
	is "$rc" 0 "sessions $sel: nothing selected is not an error (record complete: exit 0)"
	is "$(printf '%s\n' "$out" | sed -n '1,2p')" $'#SES\tUSER\tSERVICE\tFROM\tSTART\tEND\tDIGEST\tDENIALS\nno session matches the filters' \
		"sessions $sel: only the header and 'no session matches the filters'"
	is "$(printf '%s\n' "$out" | sed -n '3p;4s/:.*//p')" $'\ncompleteness' \
		"sessions $sel: then the completeness report"
	hasnt "$out" "abt_aud" "sessions $sel: no session, no refused login shown"
	# shellcheck disable=SC2086
	out=$("$AA" summary --input "$MS" $sel); rc=$?
	is "$rc" 0 "summary $sel: exit 0"
	is "$(printf '%s\n' "$out" | sed -n '1p')" "no session matches the filters" "summary $sel: said in words"
	hasnt "$out" "denials (landlock" "summary $sel: no session's counts"
	# shellcheck disable=SC2086
	is "$("$AA" sessions --json --input "$MS" $sel 2>/dev/null | wc -c)" 0 "sessions --json $sel: nothing on stdout"
	# shellcheck disable=SC2086
	is "$("$AA" summary --json --input "$MS" $sel 2>/dev/null | wc -c)" 0 "summary --json $sel: nothing on stdout"
done
"$AA" summary --json --input "$MS" --session 999999 2>"$tmp/err" >/dev/null
has "$(cat "$tmp/err")" '"complete":true' "empty selection --json: the report on stderr"
has "$(cat "$tmp/err")" '"denials":0,"denials_before_filters":21,"filtered":true,"sessions":0,"sessions_before_filters":3' \
	"empty selection --json: report counts what was read and what was selected"
# Without filters, no session at all is a different sentence.
head -3 "$FX/real-confined.log" > "$tmp/nosession.log"
out=$("$AA" sessions --input "$tmp/nosession.log")
has "$out" "no agentbox session in the records read" "no session in the log: said so, without 'filters'"
# An empty selection on an incomplete record keeps exit 1 and every problem.
out=$("$AA" sessions --session 999999 --input "$FX/hostile.log" 2>/dev/null); rc=$?
is "$rc" 1 "empty selection on an incomplete record: exit 1"
has "$out" "no session matches the filters" "incomplete record: empty selection said"
has "$out" "1 serial(s) missing inside the range read" "incomplete record: problems still reported"

# 5. The completeness report is about the input, whatever the filters, in every command.
for c in denials sessions summary; do
	out=$("$AA" $c --input "$FX/hostile.log" --kind landlock 2>/dev/null)
	has "$out" "1 session(s) with denials started before the oldest record read" \
		"$c --kind landlock: rotated-away session counted though its denial is filtered out"
	out=$("$AA" $c --input "$MS" --session 112 --kind dac)
	has "$out" "  filters: session 112 kind dac; they select 1 of 3 session(s) and 2 of 21 denial(s); the checks here are about every record read" \
		"$c: filter line names the filters and what they kept"
	has "$out" "COMPLETE: every serial in the range is present; 2 denial(s) match the filters" \
		"$c: completeness line unchanged"
	out=$("$AA" $c --input "$MS" --since 1796037799 --until 1796037800 --user abt_aud2 --path /home)
	has "$out" "  filters: user abt_aud2 since 2026-11-30 11:23:19 until 2026-11-30 11:23:20 path /home; they select 1 of 3 session(s) and 1 of 21 denial(s)" \
		"$c: filter line with times and path"
done
out=$("$AA" denials --input "$MS" --session 999999)
has "$out" "no denials in the records read match the filters" "denials: empty selection says filters matched nothing"

# 6. Refused logins: by user and time; none under --session (they have no session).
has "$("$AA" sessions --input "$MS" --user abt_aud2)" "refused 2026-11-30 11:23:40  user abt_aud2" \
	"refused login shown for its user"
hasnt "$("$AA" sessions --input "$MS" --user abt_aud1)" "refused 2026" "refused login of another user hidden"
hasnt "$("$AA" sessions --input "$MS" --session 112)" "refused 2026" "refused login hidden under --session"
hasnt "$("$AA" sessions --input "$MS" --until 1796037819)" "refused 2026" "refused login after --until hidden"
has "$("$AA" sessions --input "$MS" --since 1796037820)" "refused 2026-11-30 11:23:40" "refused login at --since shown"
has "$("$AA" sessions --input "$MS" --session 112)" "note: 1 login(s) refused by pam_agentbox" \
	"report still notes every refusal read"
# More than AB_REFUSALS_MAX (1024) refusals of another user before it: the selected one is
# still listed (refusals are filtered as they are read), and a cut list says so.
python3 - "$MS" "$tmp/crowd.log" <<'PY'
import sys
line = ("type=TRUSTED_APP msg=audit(1796000000.000:%d): pid=1 uid=0 auid=4294967295 "
        "ses=4294967295 msg='op=agentbox-session-refused user=\"abt_crowd\" service=\"su\" "
        "reason=\"policy: bad key\" exe=\"/usr/bin/su\" hostname=? addr=? terminal=? res=failed'")
crowd = [line % (2000 + i) for i in range(1100)]
open(sys.argv[2], "w").write("\n".join(crowd) + "\n" + open(sys.argv[1]).read())
PY
has "$("$AA" sessions --input "$tmp/crowd.log" --user abt_aud2 2>/dev/null)" "refused 2026-11-30 11:23:40  user abt_aud2" \
	"1100 other refusals first: the selected user's refusal still listed"
has "$("$AA" sessions --input "$tmp/crowd.log" --user abt_crowd 2>/dev/null)" "refused: 76 more not listed (only the first 1024 are kept)" \
	"a cut list of refusals says how many are not listed"

# 7. A session whose start was rotated away: its denials name its user, so --user selects
# it; it began at an unknown earlier time, so --until before its denials still selects it.
# (112's end record goes too: it names the user as well.)
grep -v -e 'op=agentbox-session-start' -e 'op=agentbox-session-end ses=112' "$MS" > "$tmp/nostart.log"
out=$("$AA" sessions --input "$tmp/nostart.log" --user abt_aud2 2>/dev/null)
has "$out" $'112\tabt_aud2\t?\t-\t(before the logs)\t(no end seen)\t-\t7 of 7 match the filters' \
	"no session record read: user from its denials, --user selects it"
hasnt "$out" $'111\t' "no session record read: other users' sessions not selected"
is "$("$AA" sessions --input "$tmp/nostart.log" --until 1796037700 2>/dev/null |
	sed -n 's/^\([0-9][0-9]*\)\t.*/\1/p' | xargs)" "111 112 113" \
	"start not read: the session may have begun before --until"
has "$("$AA" summary --input "$tmp/nostart.log" --session 113 2>/dev/null)" \
	"session 113 user abt_aud1 (started before the records read): 7 of 7 denials match" \
	"summary: a session whose start was not read says so"

# 8. --utc: the report's times (range read, filters) in UTC like the table's.
out=$(TZ=JST-9 "$AA" sessions --utc --input "$MS" --since 1796037799)
has "$out" "2026-11-30 10:23:08 .. 2026-11-30 12:23:29" "--utc: range read in UTC"
has "$out" "filters: since 2026-11-30 11:23:19;" "--utc: filter times in UTC"
has "$(TZ=JST-9 "$AA" sessions --input "$MS" --since 1796037799)" "filters: since 2026-11-30 20:23:19;" \
	"without --utc: local time"

# 9. The per-session counts agree with the denials command under the same filters.
for sel in "" "--kind seccomp" "--path /home" "--since 1796037796 --until 1796041398" "--user 1001 --kind landlock,dac"; do
	# shellcheck disable=SC2086
	"$AA" --json --input "$MS" $sel 2>/dev/null | python3 -c '
import collections, json, sys
c = collections.Counter(json.loads(l)["session"] for l in sys.stdin)
print(" ".join("%d:%d" % kv for kv in sorted(c.items())))' > "$tmp/d"
	# shellcheck disable=SC2086
	"$AA" sessions --json --input "$MS" $sel 2>/dev/null | python3 -c '
import json, sys
print(" ".join("%d:%d" % (o["session"], o["denials"]) for o in map(json.loads, sys.stdin)
               if "session" in o and o["denials"]))' > "$tmp/s"
	is "$(cat "$tmp/s")" "$(cat "$tmp/d")" "sessions counts = denials rows per session [${sel:-no filter}]"
done
finish
