#!/bin/bash
# agentbox sessions --json stays valid JSON whatever a session's plan holds: PAM_TTY,
# PAM_RHOST and PAM_SERVICE come from whoever starts the session.  As root, without
# the private world (nothing is installed or enrolled): one fake session, a root
# "agentbox-init" that is pid 1 of its own pid namespace, with a plan in a /run
# private to its mount namespace whose tty, rhost and service hold hostile bytes.
. "$(dirname "$0")/../lib.sh"

AB=$BUILD/agentbox
need_root
[ -x "$AB" ] || skip_all "$AB not built (make)"
command -v unshare >/dev/null || skip_all "unshare missing"
command -v python3 >/dev/null || skip_all "python3 missing"

T=$(mktemp -d /tmp/ab-sessions.XXXXXX) || skip_all "mktemp failed"
defer "rm -rf '$T'"
chmod 0755 "$T"

# A uid no real session has, so the row is ours whatever else runs on the host.
fake_uid=3999999
# The plan as ab_plan_serialize writes it (\xNN for bytes <= 0x20 or >= 0x7f): invalid
# UTF-8, an overlong '/', a surrogate, a cut sequence, beyond U+10FFFF; ESC, quote and
# backslash; C1 (U+009B), RLO (U+202E), U+2028, DEL, ^A.
cat > "$T/session.plan" <<PLAN
agentbox-plan 1
user abt_json
uid $fake_uid
gid $fake_uid
home /home/abt_json
service su\\xe2\\x80\\xa8\\x7f\\x01
tty \\xff\\xfe"\\\\\\x1b[2J\\xc0\\xaf\\xed\\xa0\\x80\\xc2\\x9b
rhost host\\xe2\\x80\\xaeexe.\\xf4\\x90\\x80\\x80\\xe2\\x82
audit_session 1
ns_mnt 1
ns_pid 1
ns_net 1
ns_ipc 1
ns_uts 1
started 1
masks 0
protects 0
digest $(printf '%064d' 0)
network none
shell /bin/sh
landlock_min_abi 1
audit required
persist no
linger 86400
learn no
project /tmp
end
PLAN
mkdir "$T/bin"
cp "$(command -v sleep)" "$T/bin/agentbox-init"	# comm is what sessions looks for
unshare --pid --fork --kill-child --mount --propagation private sh -c \
    'mount -t tmpfs tmpfs /run && mkdir /run/agentbox && cp "$1" /run/agentbox/session.plan &&
     exec "$2" 60' sh "$T/session.plan" "$T/bin/agentbox-init" >/dev/null 2>&1 &
fakepid=$!
defer "kill -KILL $fakepid"	# unshare --fork ignores SIGTERM; --kill-child takes the child

row=""
for _ in $(seq 50); do
	row=$("$AB" sessions --json 2>/dev/null | grep -a "\"uid\":$fake_uid,")
	[ -n "$row" ] && break
	sleep 0.1
done
like "$row" "\"plan\":true" "sessions --json lists the fake session, read from its plan"

"$AB" sessions --json > "$T/sessions.json" 2>/dev/null
is "$?" 0 "sessions --json: exit 0"
# Strict: bytes that are not UTF-8, or a line that is not JSON, raise.
got=$(python3 -c '
import json, sys
for line in open(sys.argv[1], "rb"):
    s = json.loads(line.decode("utf-8"))
    if s["uid"] == int(sys.argv[2]):
        print(ascii([s["tty"], s["rhost"], s["service"]]))
' "$T/sessions.json" "$fake_uid" 2>&1)
is "$got" "['\\ufffd\\ufffd\"\\\\\\x1b[2J\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\x9b', 'host\\u202eexe.\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd', 'su\\u2028\\x7f\\x01']" \
    "every line is UTF-8 JSON: invalid bytes are U+FFFD, everything else exactly kept"

# The table goes to a terminal: no ESC, C1 (U+009B CSI), bidi override or raw invalid
# byte of the plan's tty, rhost and service may reach it.
"$AB" sessions > "$T/sessions.txt" 2>/dev/null
is "$?" 0 "sessions (table): exit 0"
bad=$(python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
try:
    t = b.decode("utf-8")
except UnicodeDecodeError as e:
    print("invalid UTF-8 at", e.start); sys.exit()
for ch in t:
    o = ord(ch)
    if (o < 32 and ch != "\n") or 0x7f <= o <= 0x9f or 0x202a <= o <= 0x202e or 0x2066 <= o <= 0x2069 or o in (0x200e, 0x200f):
        print("unsafe U+%04X" % o); sys.exit()
' "$T/sessions.txt" 2>&1)
is "$bad" "" "sessions (table): the hostile tty, rhost and service are escaped, not written raw"
like "$(cat "$T/sessions.txt")" 'x1b\[2J' "sessions (table): the ESC shows as an escape"

finish
