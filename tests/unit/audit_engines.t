#!/bin/bash
# The hand-written fast path against libauparse (the audit project's reference): the same
# events (serial, node, record types), the same denials, and the same sessions and
# summary under the filters, on every fixture and on a generated log of a few MB with host
# noise (bench/review-gen.py, whose expected counts are checked too).
. "$(dirname "$0")/../lib.sh"
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
[ -x "$AA" ] || skip_all "$AA not built"
command -v python3 >/dev/null || skip_all "python3 needed to generate the log"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"

python3 "$TOP/bench/review-gen.py" "$tmp/gen.log" 4 3 > "$tmp/expect"
for f in "$TOP"/tests/fixtures/*.log "$tmp/gen.log"; do
	b=$(basename "$f")
	"$AA" --quiet --dump-events --input "$f" | sort > "$tmp/fast.ev"
	"$AA" --quiet --dump-events --engine auparse --input "$f" | sort > "$tmp/aup.ev"
	# The fast path keeps only the first record of events with nothing to report, so
	# compare those by serial; reportable events record by record.
	cut -d' ' -f1,2 "$tmp/fast.ev" > "$tmp/fast.s"; cut -d' ' -f1,2 "$tmp/aup.ev" > "$tmp/aup.s"
	if cmp -s "$tmp/fast.s" "$tmp/aup.s"; then ok "$b: same events ($(wc -l < "$tmp/fast.s"))"
	else not_ok "$b: events differ"; diff "$tmp/fast.s" "$tmp/aup.s" | head -5 | sed 's/^/# /'; fi
	grep -E 'UNKNOWN\[142|LANDLOCK|SECCOMP|TRUSTED_APP|LOGIN' "$tmp/fast.ev" > "$tmp/fast.r"
	grep -E 'UNKNOWN\[142|LANDLOCK|SECCOMP|TRUSTED_APP|LOGIN' "$tmp/aup.ev" > "$tmp/aup.r"
	if cmp -s "$tmp/fast.r" "$tmp/aup.r"; then ok "$b: reportable events record for record"
	else not_ok "$b: reportable events differ"; diff "$tmp/fast.r" "$tmp/aup.r" | head -5 | sed 's/^/# /'; fi
	"$AA" --quiet --json --input "$f" 2>/dev/null | sort > "$tmp/fast.json"
	"$AA" --quiet --json --engine auparse --input "$f" 2>/dev/null | sort > "$tmp/aup.json"
	if cmp -s "$tmp/fast.json" "$tmp/aup.json"; then ok "$b: same denials ($(wc -l < "$tmp/fast.json"))"
	else not_ok "$b: denials differ"; diff "$tmp/fast.json" "$tmp/aup.json" | head -4 | sed 's/^/# /'; fi
	# sessions and summary under filters: the same rows and counts, and the same account
	# of what the filters kept.  The filters come from the log's middle denial: its second
	# (cuts sessions and their counts), its uid, its session.
	mid=$(python3 -c '
import calendar, json, sys, time
ds = [json.loads(l) for l in sys.stdin]
if ds:
    d = sorted(ds, key=lambda d: d["serial"])[len(ds) // 2]
    t = calendar.timegm(time.strptime(d["time"][:19], "%Y-%m-%dT%H:%M:%S"))
    print(t, d["uid"], d["session"])' < "$tmp/fast.json")
	set -- $mid
	for sel in "" "--since ${1:-0} --kind landlock,dac" \
	    "--until ${1:-0} --user ${2:-0} --session ${3:-0} --path /"; do
		for c in sessions summary; do
			# shellcheck disable=SC2086
			"$AA" $c --quiet --json $sel --input "$f" 2>"$tmp/fast.err" | sort > "$tmp/fast.ses"
			# shellcheck disable=SC2086
			"$AA" $c --quiet --json --engine auparse $sel --input "$f" 2>"$tmp/aup.err" |
				sort > "$tmp/aup.ses"
			for e in fast aup; do
				grep -o '"denials":.*' "$tmp/$e.err" >> "$tmp/$e.ses"
			done
			if cmp -s "$tmp/fast.ses" "$tmp/aup.ses"; then
				ok "$b: $c ${sel:-(no filter)}: same $(grep -c '"session"' "$tmp/fast.ses") session(s)"
			else not_ok "$b: $c ${sel:-(no filter)}: engines differ"
				diff "$tmp/fast.ses" "$tmp/aup.ses" | head -4 | sed 's/^/# /'; fi
		done
	done
done
want=$(sed -n 's/^denials=\([0-9]*\).*/\1/p' "$tmp/expect")
is "$(wc -l < "$tmp/fast.json")" "$want" "generated log: the generator's count of agent denials"
for k in landlock seccomp dac; do
	is "$(grep -c "\"kind\":\"$k\"" "$tmp/fast.json")" "$(sed -n "s/.* $k=\([0-9]*\).*/\1/p" "$tmp/expect")" \
		"generated log: $k denials"
done
# Open events whose serials share a set of the grouping table (serials AB_SETS = 4096
# apart): each Landlock half comes before every SYSCALL half, as under a denial storm.
# Four fit in a set and are joined (the old direct-mapped table split them: a Landlock
# denial with no session plus a dac one, unreported); a fifth closes the oldest for room,
# and the report says so.
split_log() {	# N events -> stdout
	python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1]); base = 100000
ser = [base + i * 4096 for i in range(n)]
for i, s in enumerate(ser):
    print("type=LANDLOCK_ACCESS msg=audit(1796030001.%03d:%d): domain=10000001 blockers=fs.read_file path=\"/home/a/.env\" dev=\"vda\" ino=7" % (i, s))
for i, s in enumerate(ser):
    print("type=SYSCALL msg=audit(1796030001.%03d:%d): arch=c000003e syscall=257 success=no exit=-13 a0=ffffff9c a1=0 a2=0 a3=0 items=1 ppid=1 pid=%d auid=2001 uid=2001 gid=2001 euid=2001 suid=2001 fsuid=2001 egid=2001 sgid=2001 fsgid=2001 tty=pts0 ses=7 comm=\"cat\" exe=\"/usr/bin/cat\" key=\"agentbox\"" % (i, s, 4000 + i))
PY
}
split_log 4 > "$tmp/split4.log"
"$AA" --quiet --json --input "$tmp/split4.log" > "$tmp/split4.json" 2> "$tmp/split4.err"
is "$(grep -c '"kind":"landlock"' "$tmp/split4.json")/$(grep -c '"session":7' "$tmp/split4.json")/$(grep -c '"kind":"dac"' "$tmp/split4.json")" \
	4/4/0 "4 open events in one set: 4 Landlock denials of session 7, no split into dac"
grep -q "closed for room" "$tmp/split4.err"
check $((1 - $?)) "...and no event closed for room"
split_log 5 > "$tmp/split5.log"
"$AA" --quiet --json --input "$tmp/split5.log" > "$tmp/split5.json" 2> "$tmp/split5.err"
grep -q "1 event(s) closed for room" "$tmp/split5.err"
check $? "5 open events in one set: the oldest is closed for room, and the report says so"
is "$(grep -c '"kind":"dac"' "$tmp/split5.json")" 1 "...its SYSCALL half is listed on its own (as dac)"
finish
