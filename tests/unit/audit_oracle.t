#!/bin/bash
# Correctness oracle: on logs recorded from real kernel activity
# (tests/fixtures/real-*.log: recorded by tests/fixtures/gen/record), the set of denial
# serials agentbox-audit reports for a uid equals what ausearch finds for the same uid:
#   ausearch -k agentbox -ui UID   (DAC and read-only denials caught by the exit rules)
#   ausearch -m SECCOMP -ui UID    (seccomp actions: the fixtures log ERRNO ones only)
#   ausearch -m 1423 -ui UID       (Landlock access records, UNKNOWN[1423] on Debian 12)
. "$(dirname "$0")/../lib.sh"
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
[ -x "$AA" ] || skip_all "$AA not built"
command -v ausearch >/dev/null || skip_all "ausearch (package auditd) not installed"
command -v python3 >/dev/null || skip_all "python3 needed"
set -- "$TOP"/tests/fixtures/real-*.log
[ -e "$1" ] || skip_all "no recorded fixtures"

serials_of() { sed -n 's/.*msg=audit([0-9.]*:\([0-9]*\)).*/\1/p' | sort -un; }
for f in "$@"; do
	b=$(basename "$f")
	uids=$("$AA" --quiet --json --input "$f" 2>/dev/null | python3 -c '
import json, sys; print(" ".join(sorted({str(json.loads(l)["uid"]) for l in sys.stdin})))')
	[ -n "$uids" ] || { not_ok "$b: no denials at all"; continue; }
	for uid in $uids; do
		ours=$("$AA" --quiet --json --user "$uid" --input "$f" 2>/dev/null |
			python3 -c 'import json, sys; [print(json.loads(l)["serial"]) for l in sys.stdin]' | sort -un)
		theirs=$({ ausearch -if "$f" -k agentbox -ui "$uid" --raw
			   ausearch -if "$f" -m SECCOMP -ui "$uid" --raw
			   ausearch -if "$f" -m 1423 -ui "$uid" --raw; } 2>/dev/null | serials_of)
		is "$(echo $ours)" "$(echo $theirs)" "$b uid $uid: $(echo "$ours" | wc -l) denial serials, same as ausearch"
	done
done
finish
