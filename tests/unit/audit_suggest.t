#!/bin/bash
# agentbox-audit suggest on a generated log (tests/fixtures/gen/suggest.py): exactly the
# lines the denials need, nothing that would unmask, unprotect, widen or read another
# user's home, hostile names kept out of the file and escaped in its comments, the same
# file from the same records in any order and from either engine, and a file the policy
# parser (agentbox check) accepts as it is.  No root needed.
. "$(dirname "$0")/../lib.sh"
export TZ=UTC
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
AB=$BUILD/agentbox
[ -x "$AA" ] || skip_all "$AA not built (make $AA)"
[ -x "$AB" ] || skip_all "$AB not built (make)"
command -v python3 >/dev/null || skip_all "python3 needed to write the log and read JSON"
# Not under /tmp: that is session-private in a box, and suggest says so for paths there.
tmp=$(mktemp -d "$BUILD/tests/suggest.XXXXXX"); defer "rm -rf '$tmp'"
chmod 0755 "$tmp"
root=$tmp/root
mkdir -p "$tmp/home" "$tmp/proj" "$tmp/proj2" "$root/etc/agentbox/policy.d"
chmod -R go-w "$tmp"
cp "$TOP/policy/agentbox.conf" "$root/etc/agentbox/agentbox.conf"
cat > "$root/etc/agentbox/policy.d/abt_sug1.conf" <<EOF
[user:abt_sug1]
project = $tmp/proj
network = proxy
allow_host = @npm
deny_host = evil.example.net
EOF
printf '[user:abt_sug2]\nproject = %s/proj2\n' "$tmp" > "$root/etc/agentbox/policy.d/abt_sug2.conf"
chmod 0644 "$root"/etc/agentbox/agentbox.conf "$root"/etc/agentbox/policy.d/*.conf
python3 "$TOP/tests/fixtures/gen/suggest.py" "$tmp" > "$tmp/log"
sug() { "$AA" suggest --input "$tmp/log" --policy-root "$root" --home "$tmp/home" "$@"; }

sug --user abt_sug1 > "$tmp/out" 2> "$tmp/err"; rc=$?
is "$rc" 0 "suggest: complete record, exit 0"
is "$(grep -v '^#' "$tmp/out" | grep -v '^$')" '[user:abt_sug1]
read = /srv/abt-sug
read = /srv/with\ space
write = /var/lib/abt-sug
allow_host = api.example.com
allow_host = pkg.example.org:8443' "exactly the lines the denials need, sorted (a space written '\\ ')"
out=$(cat "$tmp/out")
like "$out" "# 5 denial(s), e.g. fs.read_file /srv/abt-sug/b.txt
read = /srv/abt-sug" "each line: its count and one example (the least, by path)"
like "$out" "# 2 denial(s), e.g. fs.write_file /var/lib/abt-sug/state.db" \
	"fs.make_reg of a new file: the directory Landlock names is what is granted"
like "$out" "# 3 denial(s), e.g. connect api.example.com port 443" "folded proxy denials counted (count=3)"
like "$(cat "$tmp/err")" "COMPLETE" "the completeness report goes to stderr"
unlike "$out" "COMPLETE" "and not into the drop-in"

# What must never be a line, each with its reason.
reasons=(
	"/ is too wide to grant"
	"/srv is too wide to grant"
	"/var/lib is too wide to grant: name the tool's own directory below it
#   e.g. fs.make_reg /var/lib/abt.db"
	"/tmp is the session's own"
	"masked: abt_sug1's mask patterns hide it
#   e.g. fs.read_file $tmp/home/.aws/credentials"
	"protected: abt_sug1's protect patterns keep it read-only
#   e.g. dac EROFS $tmp/proj/.git/hooks/pre-commit"
	"another user's home (/root)"
	"another user's home (/home/...)"
	"seccomp denies the call in every session"
	"not an absolute, canonical path"
	"a deny_host rule refuses it"
	"refused by the proxy for metadata"
	"not a host name (an address, or bytes a name cannot hold)"
	"allowed now by the rule registry.npmjs.org"
	"already allowed by read = /opt"
	"device access (fs.make_char, fs.make_block, fs.ioctl_dev) is never granted"
	"TCP ports are network = tcp:PORT"
	"denied by file permissions or a read-only mount (EACCES)"
)
for r in "${reasons[@]}"; do like "$out" "# Not suggested:"*"$r" "not suggested: ${r%%$'\n'*}"; done
like "$out" "# 2 denial(s): masked" "a masked name is never a line (DAC and Landlock alike)"
unlike "$(grep -v '^#' "$tmp/out")" "$tmp" "no line under the home or a project"
unlike "$(grep -v '^#' "$tmp/out")" "/root" "no line in another user's home"

# Hostile names: never a line; in comments, printable ASCII only and within a line's length.
like "$out" "3 denial(s): the directory's name has bytes this tool does not write" \
	"ESC, ';' and a 300-byte name: not written into a line"
if LC_ALL=C grep -q '[^[:print:]]' "$tmp/out"; then not_ok "only printable ASCII in the file"
else ok "only printable ASCII in the file"; fi
is "$(awk 'length > 198' "$tmp/out" | wc -l)" 0 "every line fits a policy line (198 bytes)"
out=$(sug --user abt_sug1 --path '/srv/abt-sug/data/evil*' 2>/dev/null)
like "$out" 'e.g. fs.read_file /srv/abt-sug/data/evil\\x0aname\\x1b\[31m' \
	"a newline and ESC in an example are escaped"
like "$out" $'# 1 denial(s), e.g. fs.read_file /srv/abt-sug/data/evil\\\\x0aname\\\\x1b\\[31m\nread = /srv/abt-sug' \
	"and the name still collapses into its tool's directory"

# Deterministic: the same records give the same file, in any order, from either engine.
reverse_events "$tmp/log" > "$tmp/log.rev"
"$AA" suggest --input "$tmp/log.rev" --user abt_sug1 --policy-root "$root" --home "$tmp/home" \
	> "$tmp/out.rev" 2>/dev/null
if cmp -s "$tmp/out" "$tmp/out.rev"; then ok "events in reverse order: the same file, byte for byte"
else not_ok "events in reverse order: the same file"; diff "$tmp/out" "$tmp/out.rev" | sed 's/^/# /'; fi
sug --user abt_sug1 --engine auparse > "$tmp/out.aup" 2>/dev/null
if cmp -s "$tmp/out" "$tmp/out.aup"; then ok "auparse engine: the same file"
else not_ok "auparse engine: the same file"; fi
sug --user 1301 > "$tmp/out.uid" 2>/dev/null
if getent passwd 1301 >/dev/null; then ok "# uid 1301 exists here: --user UID not checked"
else unlike "$(cat "$tmp/out.uid")" "[user:" "--user UID with no passwd entry: refused, nothing written"; fi

# The file as it is passes the policy parser, installed beside the user's own.
cp "$tmp/out" "$root/etc/agentbox/policy.d/abt_sug1-suggest.conf"
chmod 0644 "$root/etc/agentbox/policy.d/abt_sug1-suggest.conf"
chk=$("$AB" check --root "$root" --user abt_sug1 2>&1); rc=$?
is "$rc" 0 "agentbox check accepts the drop-in as it is"
like "$chk" "/srv/with space" "and reads the escaped space back as a space"
like "$chk" "pkg.example.org:8443  ($root/etc/agentbox/policy.d/abt_sug1-suggest.conf:" \
	"allow_host read from the drop-in"
out=$(sug --user abt_sug1 2>/dev/null)
is "$(grep -v '^#' <<<"$out" | grep -v '^$')" "[user:abt_sug1]" \
	"with the lines installed, a second run suggests nothing more"
like "$out" "already allowed by read = /srv/abt-sug" "and says the policy allows them now"
rm -f "$root/etc/agentbox/policy.d/abt_sug1-suggest.conf"

# --session picks its user; denials of two users need --user.
out=$(sug --session 302 2>/dev/null)
like "$out" $'\\[user:abt_sug2]\n\n# 1 denial(s), e.g. fs.read_file /srv/abt-sug2/x\nread = /srv/abt-sug2' \
	"--session: that session's user"
err=$(sug 2>&1 >/dev/null); rc=$?
is "$rc" 3 "two users, no --user: refused (exit 3)"
like "$err" "the denials selected are of 2 users: name one with --user" "and says why"
err=$(sug --user abt_nobody 2>&1 >/dev/null); rc=$?
is "$rc" 3 "a user not enrolled: refused"
like "$err" "cannot load abt_nobody's policy: not enrolled" "and says why"
out=$(sug --user abt_sug1 --since 1796090000 2>/dev/null); rc=$?
is "$rc" 0 "no denial selected for a named user: exit 0"
like "$out" $'\\[user:abt_sug1]\n\n# nothing to suggest' "an empty drop-in that says so"
must_fail "$AA" suggest --input "$tmp/log" --home relative/dir --user abt_sug1
must_fail "$AA" denials --input "$tmp/log" --policy-root "$root"

# Bounded: past 65,536 distinct denials the rest are counted, said in the file and in the
# report, and the exit status says the suggestion may be missing lines.  (The program
# without sanitizers: 66,000 events.)
python3 - > "$tmp/big.log" <<'PY'
import sys
w = sys.stdout.write
w("type=TRUSTED_APP msg=audit(1796079999.000:999): pid=4000 uid=0 auid=1301 ses=301 "
  "msg='op=agentbox-session-start ses=301 user=\"abt_sug1\" uid=1301 service=\"su\" "
  "tty=\"\" rhost=\"\" digest=ab network=proxy masks=1 protects=1 init_pid=4001 "
  "new_ses=yes lost=0 exe=\"?\" hostname=? addr=? terminal=? res=success'\n")
for i in range(66000):
    s = 1000 + i
    w('type=UNKNOWN[1423] msg=audit(1796080000.000:%d): domain=1d5e00009 blockers=fs.read_file '
      'path="/srv/abt-big/%d" dev="vda" ino=7\n' % (s, i))
    w('type=SYSCALL msg=audit(1796080000.000:%d): arch=c000003e syscall=257 success=no '
      'exit=-13 a0=0 a1=0 a2=0 a3=0 items=0 ppid=1 pid=2 auid=1301 uid=1301 gid=1301 '
      'euid=1301 suid=1301 fsuid=1301 egid=1301 sgid=1301 fsgid=1301 tty=(none) ses=301 '
      'comm="t" exe="/t" key="agentbox"\n' % s)
PY
"$BUILD/agentbox-audit" suggest --input "$tmp/big.log" --user abt_sug1 --policy-root "$root" \
	--home "$tmp/home" > "$tmp/big.out" 2> "$tmp/big.err"; rc=$?
is "$rc" 1 "66,000 distinct denials: exit 1 (not known complete)"
like "$(cat "$tmp/big.out")" "# INCOMPLETE: 464 denial(s) were not judged" "the drop-in says how many were not judged"
like "$(cat "$tmp/big.err")" "464 denial(s) not judged by suggest" "and so does the report"
like "$(cat "$tmp/big.out")" "read = /srv/abt-big" "what was judged is still suggested"

# --json: one object per line and per reason.
sug --user abt_sug1 --json > "$tmp/json" 2>/dev/null
python3 - "$tmp/json" <<'PY' > "$tmp/jcheck" 2>&1
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
lines = [(o["key"], o["value"], o["count"]) for o in objs if o["suggested"]]
assert lines == [("read", "/srv/abt-sug", 5), ("read", "/srv/with space", 1),
                 ("write", "/var/lib/abt-sug", 2), ("allow_host", "api.example.com", 3),
                 ("allow_host", "pkg.example.org:8443", 1)], lines
for o in objs:
    assert o["v"] == 1 and o["user"] == "abt_sug1"
    assert (o["reason"] is None) == o["suggested"], o
    assert set(o["example"]) >= {"kind", "access", "object"}, o
print("ok %d" % len(objs))
PY
like "$(cat "$tmp/jcheck")" "ok " "--json: the lines, their counts, a reason for every other denial"

# Learning mode: the same session recorded by a learning box (docs/audit-records.md,
# "Learning records") -- each Landlock denial of a plain right an op=agentbox-learn record
# of agentbox-maskd, each proxy refusal for want of a rule a reason=learn open -- gives
# the same lines, counts and examples.
python3 - "$tmp/log" > "$tmp/learn.log" <<'PY'
import re, sys
acc = {"fs.read_file": "read", "fs.read_dir": "list", "fs.execute": "execute",
       "fs.write_file": "write"}
d = "pid=888 uid=0 auid=1000 ses=5"
tail = ' exe="/usr/sbin/agentbox-maskd" hostname=? addr=? terminal=? res=success\''
for l in open(sys.argv[1], "rb").read().decode("utf-8", "surrogateescape").splitlines():
    h = re.match(r"type=(\S+) (msg=audit\([^)]*\)): ", l)
    t, m = h.group(1), h.group(2)
    body = l[h.end():]
    if t == "TRUSTED_APP" and "op=agentbox-session-start" in body:
        print(l.replace(" lost=0", " lost=0 learn=yes"))
    elif t == "TRUSTED_APP" and "op=agentbox-net " in body and "reason=no-rule" in body:
        n = int(re.search(r" count=(\d+)", body).group(1))
        b = (body.replace("event=deny", "event=open").replace("decision=denied", "decision=allowed")
             .replace("reason=no-rule", "reason=learn").replace("res=failed", "res=success"))
        b = re.sub(r" count=\d+", " count=1", b)
        for i in range(n):	# one record per attempt, each its own event
            print("type=TRUSTED_APP %s: %s" % (re.sub(r":(\d+)\)", lambda g: ":%d)" % (
                int(g.group(1)) + 100000 * i), m), b))
    elif t == "TRUSTED_APP":
        print(l)
    elif t == "UNKNOWN[1423]":
        g = re.search(r"blockers=(\S+) path=(\S+)", body)
        if g and g.group(1) in acc:
            ses, uid = (301, 1301) if "1d5e00001" in body else (302, 1302)
            print("type=TRUSTED_APP %s: %s msg='op=agentbox-learn ses=%d uid=%d pid=4002 "
                  "access=%s path=%s comm=\"abttool\"%s" % (m, d, ses, uid, acc[g.group(1)],
                  g.group(2), tail))
PY
sug --user abt_sug1 --kind landlock,net > "$tmp/out.enf" 2>/dev/null
"$AA" suggest --input "$tmp/learn.log" --policy-root "$root" --home "$tmp/home" --user abt_sug1 \
	> "$tmp/out.learn" 2> "$tmp/err.learn"; rc=$?
is "$rc" 1 "learning log: exit 1 (the kernel's events it replaces are serials missing)"
like "$(cat "$tmp/err.learn")" "serial(s) missing inside the spans" "...and the report says so"
is "$(grep -v '^#' "$tmp/out.learn")" "$(grep -v '^#' "$tmp/out.enf")" \
	"learning records: the same lines as the denials they stand for"
for l in "# 5 denial(s), e.g. fs.read_file /srv/abt-sug/b.txt" \
    "# 3 denial(s), e.g. connect api.example.com port 443" \
    "# 1 denial(s), e.g. connect pkg.example.org port 8443"; do
	like "$(cat "$tmp/out.learn")" "$l" "learning records: $l"
done
like "$(cat "$tmp/out.learn")" "of them would-be denials of learning sessions" \
	"learning records: the header says so"
for r in "/ is too wide to grant" "/srv is too wide to grant" "another user's home (/root)" \
    "/tmp is the session's own" "masked: abt_sug1's mask patterns hide it" \
    "not an absolute, canonical path" "allowed now by the rule registry.npmjs.org" \
    "already allowed by read = /opt" "3 denial(s): the directory's name has bytes"; do
	like "$(cat "$tmp/out.learn")" "# Not suggested:"*"$r" "learning records, not suggested: $r"
done

finish
