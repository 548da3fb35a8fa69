#!/bin/bash
# agentbox-audit against this host's real audit trail (root): record-session provokes
# Landlock, seccomp and DAC denials as the test user abt_aud1 under per-uid exit rules
# (added and removed by tests/fixtures/gen/record), then the review must list each of
# them — from the recorded slice, from the host's own rotated logs, and live (--follow) —
# with the same serials ausearch finds, and a completeness report that consulted the
# kernel's lost counter.
. "$(dirname "$0")/../lib.sh"
need_root
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
REC=$TOP/tests/fixtures/gen/record
[ -x "$AA" ] && [ -x "$BUILD/tests/record-session" ] || skip_all "build first (make check builds them)"
pgrep -x auditd >/dev/null || skip_all "auditd is not running (tools/start-services)"
command -v python3 >/dev/null || skip_all "python3 needed"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"
# Made here, not by the recorder (which removes a user it made when it ends): the
# review below asks for it by name, and records twice.
if ! id abt_aud1 >/dev/null 2>&1; then
	useradd -M -s /usr/sbin/nologin abt_aud1 || skip_all "useradd abt_aud1"
	defer "userdel abt_aud1"
fi

kinds() { python3 -c 'import json, sys; print(" ".join(json.loads(l)["kind"] for l in sys.stdin))'; }
sers() { python3 -c 'import json, sys; print(" ".join(str(json.loads(l)["serial"]) for l in sys.stdin))'; }
want="landlock dac landlock dac dac landlock dac seccomp seccomp seccomp landlock"

# 1. A recorded slice of the live log.
if ! "$REC" "$tmp/live.log" 2> "$tmp/rec.err"; then
	not_ok "record-session ran"; diag "$(cat "$tmp/rec.err")"; finish
fi
ses=$(sed -n 's/^ses=\([0-9]*\) .*/\1/p' "$tmp/rec.err")
[ -n "$ses" ] && ok "a new audit session: $ses" || not_ok "no session id"
"$AA" --json --input "$tmp/live.log" --session "$ses" > "$tmp/slice.json" 2> "$tmp/slice.err"
is "$(kinds < "$tmp/slice.json")" "$want" "slice: every provoked denial, in order, right kind"
like "$(cat "$tmp/slice.err")" '"complete":true' "slice: complete (no serial gaps)"

# 2. The host's own logs (audit.log.N .. audit.log), as an administrator runs it.
"$AA" --json --session "$ses" > "$tmp/host.json" 2> "$tmp/host.err"
is "$(sers < "$tmp/host.json")" "$(sers < "$tmp/slice.json")" "host logs: the same denial serials"
like "$(cat "$tmp/host.err")" '"kernel_lost":' "host logs: the kernel's lost counter was read"
unlike "$(cat "$tmp/host.err")" '"kernel_lost":null' "host logs: lost counter is a number"

# 3. The oracle on the live slice.
uid=$(id -u abt_aud1)
theirs=$({ ausearch -if "$tmp/live.log" -k agentbox -ui "$uid" --raw
	   ausearch -if "$tmp/live.log" -m SECCOMP -ui "$uid" --raw
	   ausearch -if "$tmp/live.log" -m 1423 -ui "$uid" --raw; } 2>/dev/null |
	sed -n 's/.*msg=audit([0-9.]*:\([0-9]*\)).*/\1/p' | sort -un | tr '\n' ' ')
ours=$("$AA" --quiet --json --user "$uid" --input "$tmp/live.log" 2>/dev/null | sers | tr ' ' '\n' | sort -un | tr '\n' ' ')
is "$ours" "$theirs" "live slice: denial serials equal ausearch's"

# 4. --follow: a session that starts after the review started shows up live.
"$AA" --follow --json --user abt_aud1 --since now > "$tmp/follow.json" 2> "$tmp/follow.err" &
fpid=$!
defer '[ -n "$fpid" ] && kill "$fpid"'	# cleared once it is reaped: never a reused pid
sleep 1
"$REC" "$tmp/live2.log" 2> "$tmp/rec2.err" || not_ok "second record-session"
for _ in $(seq 1 40); do
	[ "$(wc -l < "$tmp/follow.json")" -ge 11 ] && break
	sleep 0.25
done
kill -TERM "$fpid" 2>/dev/null; wait "$fpid" 2>/dev/null; fpid=
is "$(kinds < "$tmp/follow.json")" "$want" "--follow: the new session's denials, live"
like "$(cat "$tmp/follow.err")" '"completeness"' "--follow: completeness printed at exit"
finish
