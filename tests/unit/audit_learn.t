#!/bin/bash
# agentbox-audit reads learning records (docs/audit-records.md, "Learning records"):
# agentbox-maskd's op=agentbox-learn as would-be Landlock denials ("learn": true, the
# session and uid the message's, never the daemon's header), agentbox-netd's reason=learn
# opens as would-be net denials, --kind learn, the sessions view's [learning] mark,
# op=agentbox-learn-lost in the completeness report and in suggest's header, malformed
# and cut records counted and never suggested, and a suggestion from a learning session
# that is exactly the drop-in it needs and that agentbox check accepts.  Both engines,
# the enriched and the raw node= formats.  No root needed.
. "$(dirname "$0")/../lib.sh"
export TZ=UTC
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
AB=$BUILD/agentbox
[ -x "$AA" ] || skip_all "$AA not built (make $AA)"
[ -x "$AB" ] || skip_all "$AB not built (make)"
command -v python3 >/dev/null || skip_all "python3 needed to write the logs and read JSON"
python3 -c 'import ctypes; ctypes.CDLL("libaudit.so.1")' 2>/dev/null ||
	skip_all "libaudit.so.1 needed to write the logs"
FX=$TOP/tests/fixtures
# Not under /tmp: that is session-private in a box, and suggest says so for paths there.
tmp=$(mktemp -d "$BUILD/tests/learn.XXXXXX"); defer "rm -rf '$tmp'"
chmod 0755 "$tmp"

# The fixtures are the generator's output (a change to one is a change to the other).
mkdir "$tmp/fx"
python3 "$FX/gen/learn-session.py" "$tmp/fx"
for f in learn-session.log learn-node-raw.log learn-hostile.log; do
	if cmp -s "$FX/$f" "$tmp/fx/$f"; then ok "$f is gen/learn-session.py's output"
	else not_ok "$f is gen/learn-session.py's output"; fi
done

# JSON fields of every denial, checked in Python: one line of verdicts per log.
jcheck() {	# NODE < json
	python3 -c '
import json, sys
node = sys.argv[1] or None
ds = [json.loads(l) for l in sys.stdin]
learn = [d for d in ds if d["learn"]]
files = [d for d in learn if d["kind"] == "landlock"]
nets = [d for d in learn if d["kind"] == "net"]
assert all("learn" in d for d in ds), "every denial says learn"
assert len(files) == 11 and len(nets) == 1, (len(files), len(nets))
assert sorted(d["session"] for d in files) == [401] * 10 + [402]
for d in files:
    assert d["uid"] == 1401 and d["user"] == "abt_lrn1" and d["auid"] is None, d
    assert d["node"] == node and d["domain"] is None and d["exe"] is None, d
    assert d["rule"] == "learn (agentbox-maskd)" and "malformed" not in d, d
acc = {d["path"]: d["access"] for d in files}
assert acc["/srv/abt-lrn/data/a.txt"] == "fs.read_file"
assert acc["/srv/abt-lrn/data"] == "fs.read_dir"
assert acc["/srv/abt-lrn-tool/bin/run"] == "fs.execute"
a = [d for d in files if d["path"] == "/srv/abt-lrn/data/a.txt"][0]
assert a["pid"] == 5001 and a["comm"] == "abttool", a
w = [d for d in files if d["path"] == "/var/lib/abt-lrn/state.db"]
assert sorted(d["access"] for d in w) == ["fs.read_file", "fs.write_file"], w
assert [d["comm"] for d in files if d["path"].startswith("/srv/ev")] == ["ev\"il\x1b"]
n = nets[0]
assert (n["host"], n["event"], n["decision"], n["reason"], n["session"]) == \
    ("api.example.com", "open", "allowed", "learn", 401), n
other = sorted((d["kind"], d["session"]) for d in ds if not d["learn"])
assert other == [("dac", 401), ("landlock", 403), ("net", 401)], other
print("ok")' "$1"
}
for f in learn-session.log learn-node-raw.log; do
	node=; [ "$f" = learn-node-raw.log ] && node=lrn-3.example
	for eng in fast auparse; do
		"$AA" --quiet --json --engine "$eng" --input "$FX/$f" > "$tmp/$eng.json" 2> "$tmp/$eng.err"
		rc=$?
		is "$(jcheck "$node" < "$tmp/$eng.json" 2>&1 | tail -1)" ok \
			"$f, $eng: would-be denials with learn true, fields from the message, every other learn false"
		is "$rc" 1 "$f, $eng: a session's learning record cut short: exit 1"
		like "$(cat "$tmp/$eng.err")" "session 402: its learning record is incomplete (overflow" \
			"$f, $eng: the report names the session and the reason"
		like "$(cat "$tmp/$eng.err")" '"learn_records":11,"learn_malformed":0' \
			"$f, $eng: the report counts the learning records"
	done
	sort "$tmp/fast.json" > "$tmp/a"; sort "$tmp/auparse.json" > "$tmp/b"
	if cmp -s "$tmp/a" "$tmp/b"; then ok "$f: both engines, the same denials"
	else not_ok "$f: both engines, the same denials"; fi
done

# --kind learn: the would-be denials, file and net; with other kinds, either.
L=$FX/learn-session.log
kinds() { "$AA" --quiet --json --input "$L" "$@" 2>/dev/null | python3 -c '
import json, sys
print(" ".join(sorted("%s%s:%s" % (d["kind"], "+learn" if d["learn"] else "", d.get("event") or
      d["access"]) for d in map(json.loads, sys.stdin))))'; }
out=$(kinds --kind learn)
is "$(wc -w <<<"$out")" 12 "--kind learn: 12 would-be denials"
unlike "$out" "dac" "--kind learn: no denial of enforcing mode"
like "$out" "net+learn:open" "--kind learn: the net open with reason=learn"
unlike "$out" "close" "--kind learn: not its close (an allowed decision)"
is "$(kinds --kind learn,dac | wc -w)" 13 "--kind learn,dac: either"
out=$(kinds --kind landlock)
is "$(wc -w <<<"$out")" 12 "--kind landlock: 11 learning records and the enforcing session's denial"
out=$(kinds --kind net)
is "$out" "net+learn:open net:close net:deny" \
	"--kind net unchanged: every decision, the learn open marked, its close not"
must_fail "$AA" --input "$L" --kind learnt
out=$("$AA" --input "$L" --kind learn 2>&1)
like "$out" "filters: kind learn;" "the report names the filter"
# Text: the kind column reads learn (tab-separated when piped).
out=$("$AA" --input "$L" 2>/dev/null)
like "$out" $'\t401\tabt_lrn1\tlearn\tfs.execute\t-\trun\t/srv/abt-lrn-tool/bin/run\n' \
	"text: a file would-be denial's kind column reads learn"
like "$out" $'\tlearn\tconnect open\t-\t-\tapi.example.com:443 reason=learn' \
	"text: so does a net one"
like "$out" $'\tdac\tEACCES\topenat' "text: the masked file is still a dac denial"
like "$out" '/srv/ev\\x1b\[2Jil\\x0a/x' "text: a hostile path is escaped"
if LC_ALL=C grep -q $'\x1b' <<<"$out"; then not_ok "text: no ESC byte reaches the terminal"
else ok "text: no ESC byte reaches the terminal"; fi

# sessions: the [learning] mark, and whether its record is whole.
out=$("$AA" sessions --input "$L" 2>/dev/null)
like "$(grep '^401' <<<"$out")" "[learning]" "sessions: a learning session is marked"
like "$(grep '^402' <<<"$out")" "[learning] [learning record incomplete: overflow]" \
	"sessions: and one whose learning record is cut short says so"
unlike "$(grep '^403' <<<"$out")" "learning" "sessions: an enforcing session is not"
like "$(grep '^401' <<<"$out")" "connections 1 allowed, 1 denied" \
	"sessions: the learn open is a connection let through, not a refusal"
for eng in fast auparse; do
	out=$("$AA" sessions --json --engine "$eng" --input "$L" 2>/dev/null | python3 -c '
import json, sys
print(" ".join("%d:%s:%s" % (s["session"], s["learn"], s["learn_lost"])
      for s in map(json.loads, sys.stdin)))')
	is "$out" "401:True:None 402:True:overflow 403:False:None" \
		"sessions --json ($eng): learn true|false, learn_lost"
done

out=$("$AA" net --input "$L" 2>/dev/null)
like "$out" "api.example.com:443"*"up 812 down 20480 (learn: no allow_host)" \
	"net view: the connection let through in learning mode says so"

# The learn-lost record concerns its own session: the selection decides the exit status.
"$AA" --quiet --input "$L" --session 401 > "$tmp/out" 2>&1; rc=$?
is "$rc" 0 "--session 401 (whole learning record): exit 0"
like "$(cat "$tmp/out")" "1 session(s) not selected have an incomplete learning record" \
	"...and the other one is a note"
"$AA" --quiet --input "$L" --session 402 > /dev/null 2>&1; is "$?" 1 "--session 402: exit 1"
"$AA" --quiet --input "$L" --user abt_lrn2 > /dev/null 2>&1; is "$?" 0 "--user abt_lrn2: exit 0"

# Hostile and cut records: counted malformed, listed, never attributed through the header.
H=$FX/learn-hostile.log
for eng in fast auparse; do
	"$AA" --quiet --json --engine "$eng" --input "$H" > "$tmp/h.json" 2> "$tmp/h.err"; rc=$?
	is "$rc" 1 "hostile ($eng): exit 1"
	out=$(python3 -c '
import json, sys
ds = [json.loads(l) for l in open(sys.argv[1])]
assert not [d for d in ds if d["session"] == 5 or d["uid"] == 1000 or d["auid"] == 1000], ds
bad = sorted(d["path"] or "-" for d in ds if d.get("malformed") and d["kind"] == "landlock")
assert bad == ["-", "/srv/abt-hostile-cut/secret-dir/f", "/srv/abt-hostile/badaccess",
               "/srv/abt-hostile/baduid", "/srv/abt-hostile/noses", "/srv/abt-hostile/nouid",
               "etc/relative"], bad
assert [d["session"] for d in ds if d["path"] == "/srv/abt-hostile/noses"] == [None]
assert [d["access"] for d in ds if d["path"] == "/srv/abt-hostile/badaccess"] == ["delete"]
n = [d for d in ds if d["kind"] == "net"]
assert len(n) == 1 and n[0]["malformed"] and not n[0]["learn"], n
ok = [d for d in ds if d["learn"] and not d.get("malformed")]
assert len(ok) == 1 and ok[0]["path"] == "/srv/abt-hostile/\x1b]0;pwned\x07/x", ok
print("ok")' "$tmp/h.json" 2>&1 | tail -1)
	is "$out" ok "hostile ($eng): 7 malformed learning records listed, none through the header"
	like "$(cat "$tmp/h.err")" "8 learning record(s) of agentbox-maskd malformed" \
		"hostile ($eng): counted (the learn-lost without a session too)"
	like "$(cat "$tmp/h.err")" "1 agentbox-learn-lost record(s) name no session" \
		"hostile ($eng): a learn-lost of no session makes every selection incomplete"
	like "$(cat "$tmp/h.err")" "1 agentbox-netd record(s) malformed" \
		"hostile ($eng): reason=learn on a denied decision is malformed"
done
out=$("$AA" --input "$H" 2>/dev/null)
if LC_ALL=C grep -q $'[\x07\x1b]' <<<"$out"; then not_ok "hostile: no control byte in the text"
else ok "hostile: no control byte in the text"; fi

# suggest: a learning session's would-be denials, judged as Landlock and proxy denials are.
root=$tmp/root
mkdir -p "$tmp/home" "$tmp/proj" "$root/etc/agentbox/policy.d"
chmod -R go-w "$tmp"
cp "$TOP/policy/agentbox.conf" "$root/etc/agentbox/agentbox.conf"
cat > "$root/etc/agentbox/policy.d/abt_lrn1.conf" <<EOF
[user:abt_lrn1]
project = $tmp/proj
network = proxy
learn = yes
deny_host = *.pastebin.com
EOF
chmod 0644 "$root"/etc/agentbox/agentbox.conf "$root"/etc/agentbox/policy.d/*.conf
python3 "$FX/gen/learn-session.py" "$tmp" "$tmp"
sug() { "$AA" suggest --policy-root "$root" --home "$tmp/home" "$@"; }
sug --input "$tmp/learn-session.log" --session 401 > "$tmp/s401" 2> "$tmp/s401.err"; rc=$?
is "$rc" 0 "suggest --session 401: complete, exit 0"
is "$(grep -v '^#' "$tmp/s401" | grep -v '^$')" '[user:abt_lrn1]
read = /srv/abt-lrn
read = /srv/abt-lrn-tool
write = /var/lib/abt-lrn
allow_host = api.example.com' "exactly the lines the learning session needs"
out=$(cat "$tmp/s401")
like "$out" "# 11 of them would-be denials of learning sessions (learn = yes)" \
	"the header says how many were would-be denials"
like "$out" $'# 3 denial(s), e.g. fs.read_dir /srv/abt-lrn/data\nread = /srv/abt-lrn' \
	"reads and a listing collapse into the tool's directory, with the count and an example"
like "$out" $'# 1 denial(s), e.g. fs.execute /srv/abt-lrn-tool/bin/run\nread = /srv/abt-lrn-tool' \
	"an exec is a read line"
like "$out" $'# 1 denial(s), e.g. fs.write_file /var/lib/abt-lrn/state.db\nwrite = /var/lib/abt-lrn' \
	"a write is a write line"
like "$out" $'# 1 denial(s), e.g. connect api.example.com port 443\nallow_host = api.example.com' \
	"a host let through for want of a rule is an allow_host line"
for r in "/ is too wide to grant" "another user's home (/home/...)" \
    "2 denial(s): masked: abt_lrn1's mask patterns hide it" \
    "the directory's name has bytes this tool does not write" "a deny_host rule refuses it"; do
	like "$out" "# Not suggested:"*"$r" "not suggested: $r"
done
unlike "$out" "INCOMPLETE" "no INCOMPLETE in the header of a whole learning record"
if LC_ALL=C grep -q '[^[:print:]]' "$tmp/s401"; then not_ok "only printable ASCII in the file"
else ok "only printable ASCII in the file"; fi
sug --input "$tmp/learn-session.log" --session 401 > "$tmp/s401.again" 2>/dev/null
if cmp -s "$tmp/s401" "$tmp/s401.again"; then ok "a second run: the same file, byte for byte"
else not_ok "a second run: the same file"; fi
sug --input "$tmp/learn-session.log" --session 401 --engine auparse > "$tmp/s401.aup" 2>/dev/null
if cmp -s "$tmp/s401" "$tmp/s401.aup"; then ok "auparse engine: the same file"
else not_ok "auparse engine: the same file"; fi
sug --input "$tmp/learn-node-raw.log" --session 401 > "$tmp/s401.raw" 2>/dev/null
if cmp -s "$tmp/s401" "$tmp/s401.raw"; then ok "raw node= records: the same file"
else not_ok "raw node= records: the same file"; diff "$tmp/s401" "$tmp/s401.raw" | sed 's/^/# /'; fi
reverse_events "$tmp/learn-session.log" > "$tmp/rev.log"
sug --input "$tmp/rev.log" --session 401 > "$tmp/s401.rev" 2>/dev/null
if cmp -s "$tmp/s401" "$tmp/s401.rev"; then ok "events in reverse order: the same file"
else not_ok "events in reverse order: the same file"; fi

# The learn-lost session: said in the drop-in's header, and the exit status says it.
sug --input "$tmp/learn-session.log" --user abt_lrn1 > "$tmp/u" 2> "$tmp/u.err"; rc=$?
is "$rc" 1 "suggest --user with a learning record cut short: exit 1"
like "$(cat "$tmp/u")" "# INCOMPLETE: the learning record of session 402 is incomplete (overflow)" \
	"the drop-in's header says which session's learning record is incomplete"
like "$(cat "$tmp/u")" "read = /srv/abt-lrn2" "what it recorded before is still suggested"
like "$(cat "$tmp/u.err")" "session 402: its learning record is incomplete" "and so does the report"

# Hostile records: nothing malformed becomes a line.
sug --input "$tmp/learn-hostile.log" --user abt_lrn1 > "$tmp/h" 2>/dev/null
is "$(grep -v '^#' "$tmp/h" | grep -v '^$')" "[user:abt_lrn1]
read = /srv/abt-hostile" "hostile records: one line, from the one well-formed record"
like "$(cat "$tmp/h")" "# 1 denial(s), e.g. fs.read_file /srv/abt-hostile/\\\\x1b]0;pwned\\\\x07/x
read = /srv/abt-hostile" \
	"...its control bytes escaped in the comment, the malformed ones under it not counted"
like "$(cat "$tmp/h")" "6 denial(s): a malformed learning record" \
	"a malformed learning record of the user is never a line"
unlike "$(cat "$tmp/h")" "abt-hostile-cut" "...not even its cut path in a line"
if LC_ALL=C grep -q '[^[:print:]]' "$tmp/h"; then not_ok "hostile: only printable ASCII"
else ok "hostile: only printable ASCII"; fi

# The file as it is passes the policy parser; installed, a second run suggests nothing more.
cp "$tmp/s401" "$root/etc/agentbox/policy.d/abt_lrn1-suggest.conf"
chmod 0644 "$root/etc/agentbox/policy.d/abt_lrn1-suggest.conf"
chk=$("$AB" check --root "$root" --user abt_lrn1 2>&1); rc=$?
is "$rc" 0 "agentbox check accepts the drop-in as it is"
like "$chk" "api.example.com" "and reads its allow_host"
out=$(sug --input "$tmp/learn-session.log" --session 401 2>/dev/null)
is "$(grep -v '^#' <<<"$out" | grep -v '^$')" "[user:abt_lrn1]" \
	"with the lines installed, a second run suggests nothing more"
like "$out" "already allowed by read = /srv/abt-lrn" "and says the policy allows them now"
like "$out" "allowed now by the rule api.example.com" "the host too"

# --json: the lines of the learning session, with counts.
rm -f "$root/etc/agentbox/policy.d/abt_lrn1-suggest.conf"
out=$(sug --input "$tmp/learn-session.log" --session 401 --json 2>/dev/null | python3 -c '
import json, sys
print(" ".join("%s=%s:%d" % (o["key"], o["value"], o["count"])
      for o in map(json.loads, sys.stdin) if o["suggested"]))')
is "$out" "read=/srv/abt-lrn:3 read=/srv/abt-lrn-tool:1 write=/var/lib/abt-lrn:1 allow_host=api.example.com:1" \
	"--json: the same lines and counts"
finish
