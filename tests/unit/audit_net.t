#!/bin/bash
# agentbox-audit and agentbox-netd's network records (issue 11 item 5, netd-spec.md §5):
# kind net, attributed by the body's ses/uid/user and never by the header's (the
# daemon's); denied decisions are denials, --kind net lists the allowed ones too; the net
# view; connection counts in sessions; completeness over these records; hostile and
# malformed values never crash and never make the report COMPLETE; both engines agree.
#
# tests/fixtures/net-session.log and net-node-raw.log (tests/fixtures/gen/net-session.py):
#   ses 201 abt_net1 uid 1101: connect open/close api.anthropic.com:443, gateway open/close,
#     dns deny, metadata deny (twice, 27 s apart), a hostile host (hex), pastebin deny-rule
#     count=1 then count=37, one seccomp denial; net session end reason logout
#   ses 202 abt_net2 uid 1102: npm open (no close), pastebin deny; net-session-end
#     daemon-restart
#   The daemon's header: pid=777 uid=999 auid=1000 ses=5.
. "$(dirname "$0")/../lib.sh"
export TZ=UTC
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
FX=$TOP/tests/fixtures
NS=$FX/net-session.log
NR=$FX/net-node-raw.log
[ -x "$AA" ] || skip_all "$AA not built"
command -v python3 >/dev/null || skip_all "python3 needed to read JSON"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"

# The values of KEY over the JSON objects on stdin, space-separated.
vals() { python3 -c '
import json, sys
print(" ".join(str(json.loads(l).get(sys.argv[1])) for l in sys.stdin if l.strip()))' "$1"; }
count() { "$AA" --quiet "$@" 2>/dev/null | grep -c '"kind":"net"'; }

# 1. The default view: denied decisions are denials, allowed ones are not listed.
out=$("$AA" --input "$NS"); rc=$?
is "$rc" 0 "fixture: complete record, exit 0"
is "$(printf '%s\n' "$out" | grep -c $'\tnet\t')" 7 "denials: the 7 denied network decisions"
unlike "$out" " open"$'\t' "denials: allowed decisions (open) not listed by default"
like "$out" $'\t201\tabt_net1\tnet\tdns deny\t-\t-\tx7f3a9.exfil.example.net:53 reason=no-rule' \
	"denials: a DNS refusal, session and user from the body"
like "$out" "paste.pastebin.com:443 reason=deny-rule count=37 rule=/etc/agentbox/policy.d/deny.conf:3 (*.pastebin.com)" \
	"denials: folded repeats show their count and the rule (hex-decoded)"
like "$out" 'ev"il\\x1b\[2Jé.example:80' "denials: hostile host hex-decoded, ESC escaped"
like "$out" "network: 12 agentbox-netd decision record(s) read (5 allowed, 7 denied)" \
	"report: network records counted"
like "$out" "COMPLETE: every serial in the range is present; 8 denial(s)" "report: COMPLETE, 8 denials"
"$AA" --json --input "$NS" 2>/dev/null > "$tmp/d.json"
is "$(grep -c '"kind":"net"' "$tmp/d.json")" 7 "--json: 7 net objects by default"
is "$(grep '"kind":"net"' "$tmp/d.json" | vals decision | tr ' ' '\n' | sort -u | xargs)" "denied" \
	"--json: only denied ones by default"

# 2. --json --kind net: every decision, allowed ones too, with the contract's fields.
"$AA" --json --kind net --input "$NS" 2>/dev/null > "$tmp/n.json"
is "$(wc -l < "$tmp/n.json")" 12 "--json --kind net: all 12 decisions"
is "$(vals event < "$tmp/n.json")" "open deny deny deny deny deny open close close open deny deny" \
	"--json --kind net: open, close and deny records, one object each"
python3 - "$tmp/n.json" > "$tmp/check" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
need = "time serial node session user uid pid exe comm kind access path syscall host port addr decision rule bytes_up bytes_down proto count reason event dur_ms".split()
print("fields", all(all(k in o for k in need) for o in objs))
c = [o for o in objs if o["event"] == "close" and o["proto"] == "connect"][0]
print("close", c["session"], c["user"], c["uid"], c["host"], c["port"], c["addr"], c["decision"],
      c["rule"], c["bytes_up"], c["bytes_down"], c["dur_ms"], c["pid"], c["exe"], c["auid"])
h = [o for o in objs if o["proto"] == "http"][0]
print("hostile", repr(h["host"]), h["addr"], h["rule"], h["reason"])
print("sessions", sorted(set(o["session"] for o in objs)), sorted(set(o["uid"] for o in objs)))
PY
is "$(sed -n 1p "$tmp/check")" "fields True" "--json --kind net: every object has every field"
is "$(sed -n 2p "$tmp/check")" "close 201 abt_net1 1101 api.anthropic.com 443 160.79.104.10 allowed /etc/agentbox/agentbox.conf:41 (api.anthropic.com) 1834 52311 9210 None None None" \
	"--json: a close carries bytes and duration; the daemon's pid/exe/auid are not the agent's"
is "$(sed -n 3p "$tmp/check")" "hostile 'ev\"il\\x1b[2Jé.example' None None no-rule" \
	"--json: hostile host decoded exactly; addr=? and rule=- are null"
is "$(sed -n 4p "$tmp/check")" "sessions [201, 202] [1101, 1102]" \
	"--json: sessions and uids are the body's (never the daemon's 5 / 999)"
out=$("$AA" --kind net --input "$NS")
like "$out" $'net\tconnect close\t-\t-\tapi.anthropic.com:443 addr=160.79.104.10 up=1834 down=52311 ms=9210' \
	"--kind net table: allowed decisions too, a close with its bytes"
unlike "$out" $'\tseccomp\t' "--kind net: other kinds not listed"
like "$("$AA" --kind net,seccomp --input "$NS")" $'\tseccomp\t' "--kind net,seccomp: both"

# 3. --session and --user select by the body's session and user, not the daemon's.
is "$(count --json --kind net --session 201 --input "$NS")" 10 "--session 201: its 10 decisions"
is "$(count --json --kind net --session 5 --input "$NS")" 0 "--session 5 (the daemon's header ses): none"
is "$(count --json --kind net --user 1000 --input "$NS")" 0 "--user 1000 (the daemon's auid): none"
is "$(count --json --kind net --user 999 --input "$NS")" 0 "--user 999 (the daemon's uid): none"
is "$(count --json --kind net --user abt_net2 --input "$NS")" 2 "--user abt_net2: its 2 decisions"
is "$(count --json --kind net --user 1102 --input "$NS")" 2 "--user 1102: the same by uid"
is "$(count --json --session 202 --input "$NS")" 1 "--session 202 without --kind: its one denial"
is "$(count --json --kind net --path / --input "$NS")" 0 "--path: network decisions have no path"

# 4. sessions: connection counts (after filters, like the denial counts), the proxy's end.
out=$("$AA" sessions --input "$NS")
like "$out" "7 (landlock 0, seccomp 1, dac 0, net 6); connections 2 allowed, 42 denied (proxy ended: logout)" \
	"sessions: 201's denials by kind, connections opened and attempts denied"
like "$out" "1 (landlock 0, seccomp 0, dac 0, net 1); connections 1 allowed, 1 denied (proxy ended: daemon-restart)" \
	"sessions: 202, ended by the restarted daemon (op=agentbox-net-session-end)"
out=$("$AA" sessions --json --input "$NS" 2>/dev/null | grep '"session":201')
like "$out" '"net":6,' "sessions --json: net denials"
like "$out" '"connections_allowed":2,"connections_denied":42,"net_end":"logout"' "sessions --json: connection counts"
like "$("$AA" sessions --input "$NS" --since 1796050020)" "connections 0 allowed, 1 denied" \
	"sessions --since: connection counts narrowed like denial counts"
unlike "$("$AA" sessions --input "$FX/multi-session.log")" "connections" \
	"sessions without network records: rows as before"

# 5. The net view: one row per session, protocol, host, port, decision (and reason).
out=$("$AA" net --input "$NS"); rc=$?
is "$rc" 0 "net: exit 0"
like "$out" $'#SES\tUSER\tDECISION\tPROTO\tHOST\tCOUNT\tFIRST\tLAST\tREASON/BYTES' "net: header"
like "$out" $'201\tabt_net1\tdenied\tconnect\tpaste.pastebin.com:443\t38\t2026-11-30 14:46:45\t2026-11-30 14:46:46\tdeny-rule' \
	"net: folded denials summed (1 + 37), first and last seen"
like "$out" $'201\tabt_net1\tdenied\tconnect\t169.254.169.254:80\t2\t2026-11-30 14:46:43\t2026-11-30 14:47:10\tmetadata' \
	"net: the same denial twice is one row with count 2"
like "$out" $'201\tabt_net1\tallowed\tconnect\tapi.anthropic.com:443\t1\t2026-11-30 14:46:41\t2026-11-30 14:46:50\tup 1834 down 52311  rule' \
	"net: an allowed connection counted once (open), bytes from its close"
like "$out" $'202\tabt_net2\tallowed\tconnect\tregistry.npmjs.org:443\t1\t2026-11-30 14:47:01\t2026-11-30 14:47:01\tup 0 down 0 (not all closed)' \
	"net: a connection without its close says so"
is "$(printf '%s\n' "$out" | grep -c $'^20[12]\t')" 8 "net: 8 rows"
out=$("$AA" net --by user --input "$NS")
like "$out" $'#UID\tUSER' "net --by user: header"
like "$out" $'1102\tabt_net2\tdenied\tconnect\tpaste.pastebin.com:443\t1' "net --by user: rows per user"
"$AA" net --json --input "$NS" 2>/dev/null > "$tmp/v.json"
is "$(grep '"host":"paste.pastebin.com"' "$tmp/v.json" | vals count)" "38 1" "net --json: counts"
like "$(head -1 "$tmp/v.json")" '"first":"2026-11-30T14:46:41.004Z","last":"2026-11-30T14:46:50.013Z"' \
	"net --json: first and last seen"
is "$("$AA" net --json --user abt_net2 --input "$NS" 2>/dev/null | wc -l)" 2 "net --user: that user's rows"
is "$("$AA" net --json --session 5 --input "$NS" 2>/dev/null | wc -l)" 0 "net --session 5 (the daemon's): none"
like "$("$AA" net --session 999 --input "$NS")" "no network decisions in the records read match the filters" \
	"net: an empty selection said in words"
like "$("$AA" net --input "$FX/multi-session.log")" "no network decisions in the records read" \
	"net: a log without network records says so"
"$AA" net --by host --input "$NS" >/dev/null 2>&1; is "$?" 2 "net --by host: usage error"

# 6. The node= variant (raw format, audisp-remote): the same, with the node.
is "$(count --json --kind net --input "$NR")" 12 "node variant: 12 decisions"
like "$("$AA" --json --kind net --session 201 --input "$NR" 2>/dev/null | head -1)" '"node":"gw-7.example","session":201,"user":"abt_net1"' \
	"node variant: node, session and user (from the body: no enriched names)"
like "$("$AA" sessions --input "$NR")" "connections 2 allowed, 42 denied" "node variant: connection counts"

# 6b. Recorded from this host's auditd (tests/fixtures/gen/net-record: libaudit's
# audit_log_user_message and audit_encode_nv_string, as the daemon sends them).
REC=$FX/net-recorded.log
"$AA" --json --kind net --input "$REC" 2>"$tmp/rec.err" > "$tmp/rec.json"; rc=$?
# No login was made for it: the session's start is not in the records, which the report
# says (the net session's open is the daemon's, not the login's).
is "$rc" 1 "recorded: no session start in it, exit 1"
like "$(cat "$tmp/rec.err")" "1 session(s) with denials started before the oldest record read" \
	"recorded: the missing start is reported"
is "$(python3 -c 'import json, sys; print(len(json.load(sys.stdin)["completeness"]["problems"]))' < "$tmp/rec.err")" 1 \
	"recorded: one problem in all"
is "$(vals event < "$tmp/rec.json")" "open deny deny deny close" "recorded: every decision, in order"
is "$(vals session < "$tmp/rec.json" | tr ' ' '\n' | sort -u)" 3900000001 \
	"recorded: the body's session (the header's is unset)"
is "$(grep '"proto":"http"' "$tmp/rec.json" | vals host)" $'ev"il\x1b[2J\xc3\xa9.example' \
	"recorded: libaudit's hex of a hostile host decoded exactly"
is "$(grep '"count":5' "$tmp/rec.json" | vals rule)" "/etc/agentbox/policy.d/deny.conf:3 (*.pastebin.com)" \
	"recorded: a rule with spaces (hex) decoded"
like "$("$AA" sessions --input "$REC")" "connections 1 allowed, 7 denied (proxy ended: logout)" \
	"recorded: the session's connection counts"

# 7. Completeness covers these records: one missing is a serial gap.
grep -v ':7010)' "$NS" > "$tmp/gap.log"
out=$("$AA" --input "$tmp/gap.log"); rc=$?
is "$rc" 1 "a network record missing: exit 1"
like "$out" "1 serial(s) missing inside the range read (7010..7010)" "a network record missing: the gap named"

# 8. Hostile and malformed records: never a crash, never COMPLETE.  Each line replaces the
# fixture's serial 7011 (the gateway's open), so serials stay contiguous.
base=$(grep ':7011)' "$NS")
hostile() {	# hostile NAME SED-EXPRESSION: the fixture with 7011 rewritten into $tmp/NAME.log
	local line; line=$(printf '%s' "$base" | sed -e "$2")
	awk -v l="$line" '/:7011\): /{print l; next} {print}' "$NS" > "$tmp/$1.log"
}
hostile noses 's/ses=201 uid=1101 user="abt_net1" proto/uid=1101 user="abt_net1" proto/'
hostile nouid 's/ses=201 uid=1101 user/ses=201 user/'
hostile baddecision 's/decision=allowed/decision=maybe/'
hostile denyallowed 's/event=open/event=deny/'
hostile opendenied 's/decision=allowed/decision=denied/'
hostile badcount 's/count=1 /count=1x /'
hostile bigport 's/port=443/port=70000/'
hostile nohost 's/host="api.anthropic.com" //'
hostile hugecount 's/count=1 /count=99999999999999999999999 /'
long=$(python3 -c 'print("41" * 6000)')
hostile longhost "s/host=\"api.anthropic.com\"/host=$long/"
hostile badhex 's/host="api.anthropic.com"/host=4G41/'
hostile noquote "s/res=success'/res=success/"
# host="?" port=0: the daemon decided before it knew a host (timeout, limit, bad-request;
# seen in its real records): an unknown host, not a malformed record, quoted or bare.
for h in '"?"' '?'; do
	hostile unknownhost "s/host=\"api.anthropic.com\" port=443/host=$h port=0/"
	out=$("$AA" --input "$tmp/unknownhost.log" --kind net 2>&1); rc=$?
	is "$rc" 0 "host=$h: complete (exit 0)"
	like "$(printf '%s\n' "$out" | grep $'\t7011\t')" $'gateway open\t-\t-\t?:0' "host=$h: shown as ?:0"
	is "$("$AA" --json --kind net --input "$tmp/unknownhost.log" 2>/dev/null | grep '"serial":7011' | vals host)" None \
		"host=$h: JSON host null"
done
for t in noses nouid baddecision denyallowed opendenied badcount bigport nohost hugecount; do
	out=$("$AA" --input "$tmp/$t.log" 2>&1); rc=$?
	is "$rc" 1 "$t: not COMPLETE (exit 1)"
	like "$out" "1 agentbox-netd record(s) malformed" "$t: the malformed record counted"
	is "$(count --json --kind net --input "$tmp/$t.log")" 12 "$t: still listed (12 decisions)"
done
for t in baddecision denyallowed opendenied; do
	is "$("$AA" --json --input "$tmp/$t.log" 2>/dev/null | grep '"serial":7011' | vals decision)" denied \
		"$t: not plainly allowed, so listed among the denials"
done
is "$("$AA" --json --kind net --input "$tmp/noses.log" 2>/dev/null | grep '"serial":7011' | vals session)" None \
	"noses: no session, not the header's 5"
out=$("$AA" --json --kind net --input "$tmp/longhost.log" 2>/dev/null | grep '"serial":7011')
like "$out" '"host_truncated":true' "12000-byte host: decoded, truncated, and said so"
like "$("$AA" --input "$tmp/longhost.log" --kind net 2>/dev/null | grep $'\t7011\t')" "...(host truncated):443" \
	"12000-byte host: the table says it is truncated"
"$AA" --input "$tmp/longhost.log" >/dev/null 2>&1; is "$?" 0 "12000-byte host: no crash (ASan), record complete"
for t in badhex noquote; do
	"$AA" --kind net --input "$tmp/$t.log" >/dev/null 2>&1; rc=$?
	if [ "$rc" -le 1 ]; then ok "$t: no crash (exit $rc)"; else not_ok "$t: exit $rc"; fi
done
# A net-session record without a session is malformed too.
sed 's/op=agentbox-net-session-end ses=202 /op=agentbox-net-session-end /' "$NS" > "$tmp/nsnoses.log"
like "$("$AA" --input "$tmp/nsnoses.log")" "1 agentbox-netd record(s) malformed" "net-session end without ses: malformed"
# A log of nothing but network records of a session whose start was rotated away.
grep -v 'agentbox-session-start\|type=LOGIN' "$NS" > "$tmp/nostart.log"
out=$("$AA" sessions --input "$tmp/nostart.log" 2>/dev/null)
like "$out" $'202\tabt_net2\t?\t-\t(before the logs)' "start rotated away: the session from its network records"

# A session with only allowed decisions and its start rotated away: its user from them.
grep -v -e 'agentbox-session-start' -e ':7018)' "$NS" > "$tmp/allowedonly.log"
like "$("$AA" sessions --user abt_net2 --input "$tmp/allowedonly.log" 2>/dev/null)" $'202\tabt_net2\t' \
	"allowed decisions alone name the session's user: --user selects it"
# A host holding a NUL byte (hex 610062), three times: one row of the net view, not three.
python3 - "$NS" "$tmp/nul.log" <<'PY'
import sys
src = open(sys.argv[1]).read().split("\n")[:-1]  # not splitlines(): 0x1d is a line break to it
rec = ("type=TRUSTED_APP msg=audit(1796050050.000:%d): pid=777 uid=999 auid=1000 ses=5 "
       "msg='op=agentbox-net ses=201 uid=1101 user=\"abt_net1\" proto=connect event=deny "
       "host=610062 port=443 addr=? decision=denied rule=\"-\" reason=\"bad-request\" count=1 "
       "bytes_up=0 bytes_down=0 dur_ms=0 exe=\"/usr/sbin/agentbox-netd\" hostname=? addr=? "
       "terminal=? res=failed'")
open(sys.argv[2], "w").write("\n".join(src + [rec % (7023 + i) for i in range(3)]) + "\n")
PY
out=$("$AA" net --input "$tmp/nul.log"); rc=$?
is "$rc" 0 "NUL in a host: complete, exit 0"
is "$(printf '%s\n' "$out" | grep -c 'bad-request')" 1 "NUL in a host: one row"
like "$(printf '%s\n' "$out" | grep 'bad-request')" $'\t3\t' "NUL in a host: count 3"
like "$("$AA" --json --input "$tmp/nul.log" 2>/dev/null | grep -m1 '"serial":7023')" '"host":"a\\u0000b"' \
	"NUL in a host: JSON keeps the byte"

# 9. Both engines give the same network decisions and net view, on every variant.
for f in "$NS" "$NR" "$tmp"/{gap,noses,baddecision,longhost,badhex,noquote,nostart}.log; do
	b=$(basename "$f")
	for args in "--json --kind net" "net --json" "net --json --by user" "sessions --json"; do
		# shellcheck disable=SC2086
		"$AA" --quiet $args --input "$f" 2>"$tmp/fast.err" | sort > "$tmp/fast.out"
		# shellcheck disable=SC2086
		"$AA" --quiet $args --engine auparse --input "$f" 2>"$tmp/aup.err" | sort > "$tmp/aup.out"
		cat "$tmp/fast.err" >> "$tmp/fast.out"; cat "$tmp/aup.err" >> "$tmp/aup.out"
		if cmp -s "$tmp/fast.out" "$tmp/aup.out"; then ok "$b: $args: engines agree"
		else not_ok "$b: $args: engines differ"; diff "$tmp/fast.out" "$tmp/aup.out" | head -4 | sed 's/^/# /'; fi
	done
done
finish
