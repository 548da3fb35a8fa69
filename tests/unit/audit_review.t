#!/bin/bash
# agentbox-audit on recorded fixtures: denials, merging, kinds, filters, JSON contract,
# sessions, summary, completeness, terminal safety, exit codes.  No root needed.
. "$(dirname "$0")/../lib.sh"
export TZ=UTC
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
FX=$TOP/tests/fixtures
[ -x "$AA" ] || skip_all "$AA not built (make $AA)"
command -v python3 >/dev/null || skip_all "python3 needed to check JSON"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"

# Serial:kind of every denial record-session provoked (tests/fixtures/gen/record-session.c):
# Landlock-denied read, make_dir, connect, read after exec; DAC write, two reads, kill;
# three seccomp ERRNO calls.  The Landlock denials also failed with EACCES under the exit
# rule: one denial each, not two.
want="47:landlock 48:dac 49:landlock 50:dac 51:dac 52:landlock 53:dac 54:seccomp 55:seccomp 56:seccomp 57:landlock"
has() { if printf '%s' "$1" | grep -qF -- "$2"; then ok "$3"; else not_ok "$3"; diag "missing: $2"; fi; }
serials() { python3 -c '
import json, sys
print(" ".join("%d:%s" % (d["serial"], d["kind"]) for d in map(json.loads, sys.stdin)))'; }

"$AA" --input "$FX/real-session.log" --json > "$tmp/real.json" 2> "$tmp/real.err"; rc=$?
is "$rc" 0 "real session: complete record, exit 0"
is "$(serials < "$tmp/real.json")" "$want" "real session: each denial once, right kind"
for f in named-enriched named-node-raw; do
	"$AA" --input "$FX/$f.log" --json 2>/dev/null > "$tmp/$f.json"
	is "$(serials < "$tmp/$f.json")" "$want" "$f: same denials (LANDLOCK_* names, node=, raw format)"
done
is "$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["node"])' < "$tmp/named-node-raw.json")" \
	"build-01" "node= prefix reported"

# The JSON contract (DESIGN.md) plus "v": every field present, types right.
python3 - "$tmp/real.json" <<'PY' > "$tmp/contract" 2>&1
import json, sys
need = {"v": int, "time": str, "serial": int, "node": (str, type(None)), "session": int,
        "user": str, "uid": int, "pid": int, "exe": str, "comm": str, "kind": str,
        "access": str, "path": (str, type(None)), "syscall": str}
for line in open(sys.argv[1]):
    d = json.loads(line)
    for k, t in need.items():
        if k not in d or not isinstance(d[k], t):
            print("bad %s in %s" % (k, line)); sys.exit(1)
    if d["v"] != 1 or d["kind"] not in ("landlock", "seccomp", "dac"): sys.exit(1)
print("ok")
PY
is "$(cat "$tmp/contract")" ok "every JSON object carries the contract's fields"
like "$(cat "$tmp/real.json")" '"access":"fs.read_file","path":"/tmp/abt_aud1.B7nGSw/secret file.txt"' \
	"hex-encoded path with a space decoded"
like "$(cat "$tmp/real.json")" '"user":"abt_aud1","uid":1001' "user and uid"
like "$(cat "$tmp/real.json")" '"kind":"seccomp","access":"ptrace"' "seccomp syscall named by libaudit"
like "$(cat "$tmp/real.json")" '"addr":"127.0.0.1:47613","syscall":"connect"' "Landlock TCP denial: address"
like "$(cat "$tmp/real.json")" '"comm":"cat","kind":"landlock","access":"fs.read_file"' \
	"denial after exec logged (LOG_NEW_EXEC_ON) and attributed to the new program"
like "$(cat "$tmp/real.json")" '"host_path":"/etc/shadow"' "host path equals the path outside private mounts"
like "$(cat "$tmp/real.json")" '"host_path":null,"host_path_note":"session-private /tmp"' \
	"session-private /tmp has no host path"
like "$(cat "$tmp/real.err")" '"complete":true' "--json: completeness as JSON on stderr"

count() { "$AA" --input "$FX/real-session.log" --json "$@" 2>/dev/null | wc -l; }
is "$(count --kind seccomp)" 3 "--kind seccomp"
is "$(count --kind landlock,dac)" 8 "--kind landlock,dac"
is "$(count --path /etc)" 1 "--path /etc (prefix on a directory boundary)"
is "$(count --path /et)" 0 "--path /et does not match /etc/shadow"
is "$(count --path '/tmp/*')" 4 "--path glob"
is "$(count --session 2)" 11 "--session 2"
is "$(count --session 3)" 0 "--session 3: none"
is "$(count --user abt_aud1)" 11 "--user NAME"
is "$(count --user 1001)" 11 "--user UID"
is "$(count --user root)" 0 "--user root: none"
is "$(count --since 1796032879 --until 1796032879)" 11 "--since/--until (epoch) inclusive"
is "$(count --since 1796032880)" 0 "--since after the session"
out=$("$AA" --input "$FX/real-session.log" --session 3)
like "$out" "no denials in the records read" "no denials said in words"
like "$out" "COMPLETE" "and the completeness line says the record is complete"

out=$("$AA" sessions --input "$FX/real-session.log")
like "$out" $'2\tabt_aud1\trecord-session\tpts/9' "sessions: id, user, service, tty"
like "$out" "11 (landlock 4, seccomp 3, dac 4)" "sessions: denial counts by kind"
out=$("$AA" sessions --json --input "$FX/real-session.log" 2>/dev/null)
like "$out" '"digest":"00000000000000000000000000000000000000000000000000000000000000ab"' "sessions --json: policy digest"
out=$("$AA" sessions --input "$FX/hostile.log" 2>/dev/null)
like "$out" "refused 2026-11-30" "sessions: refused logins listed"
like "$out" "user agent2  service su: policy: bad key" "refused: user, service, decoded reason"
like "$out" "1 login(s) refused by pam_agentbox" "refusals noted in the report"
# new_ses=no (immutable loginuid): the session kept its caller's ses; said, not hidden.
sed 's/masks=3 protects=2 init_pid=4001 exe/masks=3 protects=2 init_pid=4001 new_ses=no exe/' \
	"$FX/hostile.log" > "$tmp/shared.log"
has "$("$AA" sessions --input "$tmp/shared.log" 2>/dev/null)" "[ses shared: 1 login(s), loginuid immutable]" \
	"sessions: a shared ses (new_ses=no) is marked"
like "$("$AA" sessions --json --input "$tmp/shared.log" 2>/dev/null)" '"new_ses":false,"logins":1' \
	"sessions --json: new_ses and logins"
out=$("$AA" summary --input "$FX/real-session.log")
like "$out" "session 2 user abt_aud1: 11 denials" "summary per session"
like "$out" "top programs:" "summary: top programs"

# Hostile and incomplete input: the denials that can be read are still there, and the
# report says why the record is not complete.
"$AA" --input "$FX/hostile.log" > "$tmp/h.txt" 2> "$tmp/h.err"; rc=$?
is "$rc" 1 "hostile fixture: exit 1 (not known to be complete)"
h=$(cat "$tmp/h.txt")
like "$h" "1 serial(s) missing inside the range read (509..509)" "serial gap found"
like "$h" "the kernel counted 5 denials, the log holds 2" "Landlock denials=N against the records"
like "$h" "5 line(s) skipped as unreadable" "malformed lines counted"
like "$h" "1 session(s) with denials started before the oldest record read" "session started in rotated-away logs"
has "$h" $'\tlandlock\tnet.connect_tcp\tconnect\tcurl\t[::1]:443' "IPv6 Landlock denial"
like "$h" $'\tdac\tEROFS\topenat\tgit\t/home/agent1/proj/.git/hooks/pre-commit' \
	"EROFS, relative CREATE path made absolute, key among several (hex-encoded keys)"
like "$h" $'\tseccomp\tptrace\tptrace\texploit' "i386 seccomp KILL named with the i386 table"
unlike "$h" "node" "seccomp LOG action is not a denial"
case "$h" in *$'\x1b'*|*$'\x07'*) not_ok "terminal escape bytes reached the output" ;;
	*) ok "no escape byte from a hostile file name reaches the terminal" ;; esac
has "$h" '\x1b[2J\x1b]0;pwned\x07\xff\xfe.env' "hostile name shown escaped"
out=$(script -qc "'$AA' --input '$FX/hostile.log'" /dev/null)
case "$out" in *$'\x1b['*) not_ok "tty table: escape sequence passed through" ;;
	*) ok "tty table: no escape sequence from the log" ;; esac
like "$out" "TIME                SES    USER" "tty: aligned header"
"$AA" --input "$FX/hostile.log" --json 2>/dev/null > "$tmp/h.json"
python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' < "$tmp/h.json"
check $? "hostile fixture: every JSON line parses"
like "$(cat "$tmp/h.json")" '"path_hex":"2f686f6d652f6167656e74312f70726f6a2f1b5b324a1b5d303b70776e6564' \
	"invalid UTF-8 path: exact bytes in path_hex"
like "$(head -1 "$tmp/h.json")" '"session":7,"user":"agent1"' "user from the session record when not enriched"

# Exit codes.
"$AA" --input "$tmp/nonexistent" >/dev/null 2>&1; is "$?" 3 "unreadable input: exit 3"
"$AA" --bogus >/dev/null 2>&1; is "$?" 2 "unknown option: exit 2"
"$AA" frobnicate >/dev/null 2>&1; is "$?" 2 "unknown command: exit 2"
"$AA" --since yesterdayish >/dev/null 2>&1; is "$?" 2 "bad time: exit 2"
: > "$tmp/empty"
out=$("$AA" --input "$tmp/empty"); rc=$?
is "$rc" 1 "empty input: exit 1, never 'complete'"
like "$out" "no audit records in the input" "empty input said"
out=$(cat "$FX/real-session.log" | "$AA" --input - | tail -1)
like "$out" "COMPLETE" "--input - reads stdin"
out=$("$AA" --input "$FX/real-session.log" --input "$FX/hostile.log" --json 2>/dev/null | wc -l)
is "$out" 17 "--input repeatable: 11 + 6 denials"
finish
