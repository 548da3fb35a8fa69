#!/bin/bash
# op=agentbox-mask-end: agentbox-maskd's record of a session it ended (it failed closed,
# its reader died, the daemon died, or the enforcer could not start).  The sessions view
# says so on the session's row and in its --json object; a record with no session, no uid
# or a reason the contract does not have is counted malformed in the completeness report;
# one that names its session still marks it, with "?" for a reason it cannot vouch for
# (never hidden).  Both engines agree.
. "$(dirname "$0")/../lib.sh"
export TZ=UTC
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
[ -x "$AA" ] || skip_all "$AA not built (make $AA)"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"
F=$tmp/mask-end.log
start() {	# start SERIAL SES UID USER
	echo "type=TRUSTED_APP msg=audit(17963000$1.100:$1): pid=3501 uid=0 auid=$3 ses=$2 msg='op=agentbox-session-start ses=$2 user=\"$4\" uid=$3 service=\"su\" tty=\"\" rhost=\"\" digest=79663ff59a39c5979e5757f28ace9a4c3eaa2f8cbcca1460ebf00287314b5072 network=none masks=1 protects=1 init_pid=3507 new_ses=yes lost=0 backlog=0 backlog_limit=8192 exe=\"?\" hostname=? addr=? terminal=? res=success'"
}
end() {		# end SERIAL SES UID USER
	echo "type=TRUSTED_APP msg=audit(17963000$1.100:$1): pid=3501 uid=0 auid=$3 ses=$2 msg='op=agentbox-session-end ses=$2 user=\"$4\" uid=$3 service=\"su\" init_pid=3507 reason=logout lost=0 backlog=0 backlog_limit=8192 exe=\"?\" hostname=? addr=? terminal=? res=success'"
}
maskend() {	# maskend SERIAL BODY
	echo "type=TRUSTED_APP msg=audit(17963000$1.100:$1): pid=3600 uid=0 auid=4294967295 ses=4294967295 msg='$2 exe=\"/usr/local/sbin/agentbox-maskd\" hostname=? addr=? terminal=? res=failed'"
}
{
	start 10 501 1501 abt_me1
	maskend 11 "op=agentbox-mask-end ses=501 uid=1501 reason=failed-closed"
	end 12 501 1501 abt_me1
	start 13 502 1502 abt_me2
	maskend 14 "op=agentbox-mask-end ses=502 uid=1502 reason=bogus"
	end 15 502 1502 abt_me2
	start 16 503 1503 abt_me3
	maskend 17 "op=agentbox-mask-end uid=1503 reason=reader-gone"
	end 18 503 1503 abt_me3
} > "$F"

for e in fast auparse; do
	out=$("$AA" --engine "$e" --quiet --input "$F" sessions 2>&1)
	like "$(grep '^501' <<< "$out")" "[ended by agentbox-maskd: failed-closed]" \
		"$e: session 501's row says agentbox-maskd ended it, and why"
	like "$(grep '^502' <<< "$out")" "[ended by agentbox-maskd: ?]" \
		"$e: an unknown reason still marks its session, as ?"
	unlike "$(grep '^503' <<< "$out")" "ended by" "$e: a record without ses= marks no session"
	like "$out" "2 live-mask record(s) of agentbox-maskd malformed" \
		"$e: both bad records are counted malformed"
	json=$("$AA" --engine "$e" --quiet --input "$F" sessions --json 2>/dev/null)
	like "$(grep '"session":501' <<< "$json")" '"mask_end":"failed-closed"' "$e: --json: mask_end"
	like "$(grep '"session":502' <<< "$json")" '"mask_end":"?"' "$e: --json: ? for an unknown reason"
	like "$(grep '"session":503' <<< "$json")" '"mask_end":null' "$e: --json: null without one"
done
"$AA" --quiet --input "$F" sessions > "$tmp/fast" 2>&1
"$AA" --quiet --engine auparse --input "$F" sessions > "$tmp/aup" 2>&1
is "$(cat "$tmp/aup")" "$(cat "$tmp/fast")" "engines agree"
finish
