#!/bin/bash
# agentbox-audit reads agentbox-maskd's live-mask records (docs/audit-records.md, "Live
# masks"): op=agentbox-mask as a dac EPERM denial with its pattern, standing for 1 +
# repeats denials in every count; the opener's own kernel event of the same denial
# (FANOTIFY resp=2 + SYSCALL) joined to it, not listed twice; a kernel event no record
# stands for (fan_info 10001, or an older daemon) listed with its rule number;
# op=agentbox-mask-lost and malformed, hostile and cut records in the completeness
# report.  Both engines, the enriched and the raw node= formats.  No root needed.
. "$(dirname "$0")/../lib.sh"
export TZ=UTC
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
[ -x "$AA" ] || skip_all "$AA not built (make $AA)"
command -v python3 >/dev/null || skip_all "python3 needed to write the logs and read JSON"
python3 -c 'import ctypes; ctypes.CDLL("libaudit.so.1")' 2>/dev/null ||
	skip_all "libaudit.so.1 needed to write the logs"
FX=$TOP/tests/fixtures
tmp=$(mktemp -d "$BUILD/tests/mask.XXXXXX"); defer "rm -rf '$tmp'"

# The fixtures are the generator's output (a change to one is a change to the other).
python3 "$FX/gen/mask-session.py" "$tmp"
for f in mask-session.log mask-node-raw.log mask-hostile.log; do
	if cmp -s "$FX/$f" "$tmp/$f"; then ok "$f is gen/mask-session.py's output"
	else not_ok "$f is gen/mask-session.py's output"; fi
done

# The JSON denials of mask-session.log, checked in Python.
jcheck() {	# NODE < json
	python3 -c '
import json, sys
node = sys.argv[1] or None
ds = [json.loads(l) for l in sys.stdin]
assert all("pattern" in d and "repeats" in d for d in ds), "every denial has pattern, repeats"
assert all(d["node"] == node and d["kind"] == "dac" and d["access"] == "EPERM" for d in ds), ds
s1 = [d for d in ds if d["session"] == 501]
rec = [d for d in s1 if d["pattern"] is not None]
assert [(d["path"], d["pattern"], d["repeats"]) for d in rec] == [
    ("/srv/abt-msk/proj/.env", ".env", 0), ("/srv/abt-msk/proj/.env", ".env", 41),
    ("/srv/abt-msk/proj/notes.txt", "history", 0),
    ("/srv/abt-msk/proj/secrets/run.sh", "secrets/", 0)], rec
for d in rec:
    assert d["uid"] == 1501 and d["user"] == "abt_msk1" and d["auid"] is None, d
    assert d["exit"] == -1 and d["syscall"] is None and "malformed" not in d, d
assert rec[0]["pid"] == 6001 and rec[0]["comm"] == "cat" and rec[0]["exe"] == "/usr/bin/cat"
assert rec[0]["rule"] == "mask (agentbox-maskd, open)", rec[0]
assert rec[3]["rule"] == "mask (agentbox-maskd, exec)" and rec[3]["exe"] == "/usr/bin/bash"
# The kernel events of those denials are joined: only the undecidable one is listed.
k = [d for d in s1 if d["pattern"] is None]
assert [(d["path"], d["rule"], d["syscall"]) for d in k] == [
    ("/srv/abt-msk/proj/odd", "mask (agentbox-maskd, fan_info 10001)", "openat")], k
# A session with no record of maskd: its kernel event is listed, with the rule number.
s2 = [d for d in ds if d["session"] == 502]
assert [(d["path"], d["rule"], d["pattern"], d["repeats"]) for d in s2] == [
    ("/srv/abt-msk/proj/.env", "mask (agentbox-maskd, fan_info 1)", None, 0)], s2
assert len(ds) == 6, len(ds)
print("ok")' "$1"
}
for f in mask-session.log mask-node-raw.log; do
	node=; [ "$f" = mask-node-raw.log ] && node=msk-3.example
	for eng in fast auparse; do
		"$AA" --quiet --json --engine "$eng" --input "$FX/$f" > "$tmp/$eng.json" 2> "$tmp/$eng.err"
		rc=$?
		is "$(jcheck "$node" < "$tmp/$eng.json" 2>&1 | tail -1)" ok \
			"$f, $eng: each denial listed once, with its pattern and repeats"
		is "$rc" 1 "$f, $eng: denials maskd could not write: exit 1"
		like "$(cat "$tmp/$eng.err")" "session 501: 3 live-mask denial(s) not on the record" \
			"$f, $eng: the report names the session and the lost count"
		like "$(cat "$tmp/$eng.err")" '"denials":47,' \
			"$f, $eng: repeats count: 1 + 42 + 1 + 1 + 1 in 501, 1 in 502"
		grep -o '"mask_records":[0-9]*,"mask_repeats":[0-9]*,"mask_malformed":[0-9]*,"mask_joined":[0-9]*,"mask_lost":[0-9]*' "$tmp/$eng.err" > "$tmp/rj"
		is "$(cat "$tmp/rj")" '"mask_records":4,"mask_repeats":41,"mask_malformed":0,"mask_joined":44,"mask_lost":3' \
			"$f, $eng: the JSON report counts records, repeats and the joined kernel events"
	done
	if cmp -s <(sort "$tmp/fast.json") <(sort "$tmp/auparse.json"); then
		ok "$f: both engines, the same denials"
	else not_ok "$f: both engines, the same denials"; fi
done

L=$FX/mask-session.log
# The sessions view counts what the records stand for.
out=$("$AA" sessions --input "$L" 2>/dev/null)
like "$(grep '^501' <<<"$out")" "46 (landlock 0, seccomp 0, dac 46)" \
	"sessions: 501's denials are 1 + 42 + 1 + 1 + 1 (repeats counted)"
like "$(grep '^502' <<<"$out")" "1 (landlock 0, seccomp 0, dac 1)" "sessions: 502's one"
out=$("$AA" summary --input "$L" 2>/dev/null)
like "$out" "43"*"/srv/abt-msk/proj/.env" "summary: the path counts its repeats"
# --kind dac keeps them; --kind landlock does not.
is "$("$AA" --quiet --json --kind dac --input "$L" 2>/dev/null | wc -l)" 6 "--kind dac: all 6"
is "$("$AA" --quiet --json --kind landlock --input "$L" 2>/dev/null | wc -l)" 0 "--kind landlock: none"
is "$("$AA" --quiet --json --path '*.env' --input "$L" 2>/dev/null | wc -l)" 3 "--path '*.env': 3 rows"
# Text: the pattern and the repeats after the object.
out=$("$AA" --input "$L" 2>/dev/null)
like "$out" $'\t501\tabt_msk1\tdac\tEPERM\t-\tcat\t/srv/abt-msk/proj/.env  (mask .env, 41 repeats)\n' \
	"text: pattern and repeats after the object"
like "$out" $'\tdac\tEPERM\t-\tcat\t/srv/abt-msk/proj/notes.txt  (mask history)' \
	"text: the history says so"

# Reading the events in the reverse order (the kernel's before maskd's): nothing is lost;
# the join needs maskd's first record of the session first (it is, in a real log: maskd
# writes before it answers), so a kernel event met before it is listed too: at most the
# one of run.sh (the fast engine closes one-record events first and still joins it).
reverse_events "$L" > "$tmp/rev.log"
for eng in fast auparse; do
	rows=$("$AA" --quiet --json --engine "$eng" --input "$tmp/rev.log" 2>/dev/null | wc -l)
	case $rows in
	6|7) ok "reversed log ($eng): every denial listed, at most one twice ($rows rows)" ;;
	*) not_ok "reversed log ($eng): every denial listed, at most one twice ($rows rows)" ;;
	esac
done

# Hostile and cut records: counted malformed, listed, never attributed through the header.
H=$FX/mask-hostile.log
for eng in fast auparse; do
	"$AA" --quiet --json --engine "$eng" --input "$H" > "$tmp/h.json" 2> "$tmp/h.err"; rc=$?
	is "$rc" 1 "hostile ($eng): exit 1"
	out=$(python3 -c '
import json, sys
ds = [json.loads(l) for l in open(sys.argv[1])]
assert not [d for d in ds if d["session"] == 5 or d["uid"] == 1000 or d["auid"] == 1000], ds
bad = sorted(d["path"] for d in ds if d.get("malformed"))
assert bad == ["/srv/abt-msk-hostile-cut/secret-dir/.e", "/srv/abt-msk-hostile/badaccess",
               "/srv/abt-msk-hostile/badrepeats", "/srv/abt-msk-hostile/nopattern",
               "/srv/abt-msk-hostile/noses", "/srv/abt-msk-hostile/nouid",
               "relative/.env"], bad
assert [d["session"] for d in ds if d["path"].endswith("/noses")] == [None]
assert [d["repeats"] for d in ds if d["path"].endswith("/badrepeats")] == [0]
good = [d for d in ds if not d.get("malformed")]
assert len(good) == 1 and good[0]["pattern"] == "*.e\x1b[2Jnv", good
print("ok")' "$tmp/h.json" 2>&1 | tail -1)
	is "$out" ok "hostile ($eng): 7 malformed records listed, none through the header"
	like "$(cat "$tmp/h.err")" "9 live-mask record(s) of agentbox-maskd malformed" \
		"hostile ($eng): counted (the two bad mask-lost records too)"
	like "$(cat "$tmp/h.err")" "1 agentbox-mask-lost record(s) name no session" \
		"hostile ($eng): a mask-lost of no session is said"
done
out=$("$AA" --input "$H" 2>/dev/null)
if LC_ALL=C grep -q $'[\x07\x1b]' <<<"$out"; then not_ok "hostile: no control byte in the text"
else ok "hostile: no control byte in the text"; fi
like "$out" '(mask \*.e\\x1b\[2Jnv)' "hostile: the pattern's control bytes are escaped"

finish
