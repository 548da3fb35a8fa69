#!/bin/bash
# The hand-written fast path against libauparse (the audit project's reference): the same
# events (serial, node, record types) and the same denials, on every fixture and on a
# generated log of a few MB with host noise (bench/review-gen.py, whose expected counts
# are checked too).
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
done
want=$(sed -n 's/^denials=\([0-9]*\).*/\1/p' "$tmp/expect")
is "$(wc -l < "$tmp/fast.json")" "$want" "generated log: the generator's count of agent denials"
for k in landlock seccomp dac; do
	is "$(grep -c "\"kind\":\"$k\"" "$tmp/fast.json")" "$(sed -n "s/.* $k=\([0-9]*\).*/\1/p" "$tmp/expect")" \
		"generated log: $k denials"
done
finish
