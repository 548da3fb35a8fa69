#!/bin/bash
# Hostile and damaged logs: truncated lines, a 10 MiB line, invalid UTF-8, NUL
# bytes, absurd numbers, records out of order, garbage.  Each must give a warning and
# the rest of the review (the real session's denials still listed), never a crash:
# the program under test is built with ASan+UBSan.
. "$(dirname "$0")/../lib.sh"
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
FX=$TOP/tests/fixtures
[ -x "$AA" ] || skip_all "$AA not built"
command -v python3 >/dev/null || skip_all "python3 needed to build the inputs"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"
real=$FX/real-session.log

ndenials() { "$AA" --quiet --json --input "$1" 2>/dev/null | wc -l; }
run() {	# run FILE: exit status in $rc, stdout in $out, stderr in $err
	out=$("$AA" --input "$1" 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err")
}
survived() { if [ "$rc" -ge 0 ] && [ "$rc" -le 1 ]; then ok "$1: exit $rc, no crash"; else not_ok "$1: exit $rc"; diag "$err"; fi; }

# 1. A 10 MiB line in the middle of a real session.
python3 - "$real" "$tmp/long.log" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
mid = len(lines) // 2
lines.insert(mid, b"type=PATH msg=audit(1796032879.851:50): name=\"" + b"A" * (10 << 20) + b"\"")
open(sys.argv[2], "wb").write(b"\n".join(lines))
PY
run "$tmp/long.log"; survived "10 MiB line"
like "$err" "longer than 65536 bytes: skipped" "10 MiB line: warning"
like "$out" "1 longer than 65536 bytes" "10 MiB line: counted in the completeness report"
is "$(ndenials "$tmp/long.log")" 11 "10 MiB line: the session's 11 denials still there"
is "$rc" 1 "10 MiB line: record not complete (exit 1)"

# 2. NUL bytes, invalid UTF-8 in a raw (not hex) value, a CR, a lone 0x1d.
python3 - "$real" "$tmp/bytes.log" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
lines.insert(3, b"type=SYSCALL msg=audit(1796032879.851:46): a\x00b=c")
lines.insert(5, b"type=CWD msg=audit(1796032879.851:46): cwd=\"/\xff\xfe\xc0\xaf\r\" \x1d\x1d\x1d")
lines.insert(7, b"\x00\x00\x00\x00")
open(sys.argv[2], "wb").write(b"\n".join(lines))
PY
run "$tmp/bytes.log"; survived "NUL bytes and invalid UTF-8"
like "$err" "NUL byte in line: line skipped" "NUL: warning"
like "$out" "2 with NUL bytes" "NUL: counted"
is "$(ndenials "$tmp/bytes.log")" 11 "NUL/invalid UTF-8: the 11 denials still there"

# 3. Absurd numbers in headers and fields.
python3 - "$real" "$tmp/numbers.log" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
lines[:0] = [
    b"type=SYSCALL msg=audit(99999999999999999999999999.000:1): arch=c000003e",
    b"type=SYSCALL msg=audit(1.000:99999999999999999999999999): arch=c000003e",
    b"type=SECCOMP msg=audit(1796032879.000:18446744073709551615): ses=99999999999999999999999 "
    b"uid=-1 pid=18446744073709551615 arch=ffffffffffffffffff syscall=999999999999 code=0xzz",
    b"type=UNKNOWN[1424] msg=audit(1796032879.000:3): domain=ffffffffffffffffffff status=deallocated denials=99999999999999999999",
    b"type=UNKNOWN[99999999999999999999999] msg=audit(1796032879.000:4): x=y",
]
open(sys.argv[2], "wb").write(b"\n".join(lines))
PY
run "$tmp/numbers.log"; survived "absurd numbers"
like "$err" "number out of range" "absurd numbers: warning"
is "$(ndenials "$tmp/numbers.log")" 12 "absurd numbers: 11 denials, plus the seccomp record reported as unknown"

# 4. Records shuffled: grouping is by serial, not by position.
python3 - "$real" "$tmp/shuffled.log" <<'PY'
import random, sys
lines = [l for l in open(sys.argv[1], "rb").read().split(b"\n") if l]
random.Random(5).shuffle(lines)
open(sys.argv[2], "wb").write(b"\n".join(lines) + b"\n")
PY
run "$tmp/shuffled.log"; survived "records out of order"
is "$("$AA" --json --input "$tmp/shuffled.log" 2>/dev/null | python3 -c '
import json, sys; print(len({json.loads(l)["serial"] for l in sys.stdin}))')" 11 \
	"out of order: every denial serial still reported"
is "$(ndenials "$tmp/shuffled.log")" 11 "out of order: no denial reported twice (window joins them)"

# 5. Every line cut short at a random point; a file without its final newline.
python3 - "$real" "$tmp/cut.log" <<'PY'
import random, sys
r = random.Random(7)
lines = [l for l in open(sys.argv[1], "rb").read().split(b"\n") if l]
open(sys.argv[2], "wb").write(b"\n".join(l[:r.randrange(len(l) + 1)] for l in lines))
PY
run "$tmp/cut.log"; survived "every line truncated"
head -c -1 "$real" > "$tmp/nonl.log"
run "$tmp/nonl.log"; survived "no final newline"
like "$err" "last line has no newline" "no final newline: warning"
is "$(ndenials "$tmp/nonl.log")" 11 "no final newline: last line still read"

# 6. Garbage: random bytes, and random bytes made of audit-looking tokens.
head -c 2000000 /dev/urandom > "$tmp/random.bin"
run "$tmp/random.bin"; survived "2 MB of random bytes"
python3 - "$tmp/tokens.log" <<'PY'
import random, sys
r = random.Random(11)
tok = [b"type=", b"SYSCALL", b"UNKNOWN[1423]", b"LANDLOCK_DOMAIN", b"SECCOMP", b"TRUSTED_APP",
       b" msg=audit(", b"1796032879.851", b":", b"47", b"): ", b"key=", b"\"agentbox\"",
       b"success=no ", b"exit=-13 ", b"path=", b"41", b"\x1d", b"'", b"\"", b"msg='", b"op=",
       b"agentbox-session-start ", b"ses=", b"domain=", b"status=deallocated ", b"denials=",
       b"node=", b"\n", b" ", b"=", b"{", b"nametype=PARENT ", b"name=", b"cwd="]
open(sys.argv[1], "wb").write(b"".join(r.choice(tok) for _ in range(300000)))
PY
run "$tmp/tokens.log"; survived "300000 random audit tokens"
# 7. Node names (node= prefix, audisp-remote): long, many, odd bytes.  A node whose
#    serials the completeness bookkeeping cannot track must make the report INCOMPLETE
#    with its reason; one it does track must show its gap.  Never COMPLETE (exit 0).
#    nodes.py OUT SPEC...: SPEC is HEXNAME:SERIAL,SERIAL,... (one SYSCALL event each).
cat > "$tmp/nodes.py" <<'PY'
import sys
out = open(sys.argv[1], "wb")
for spec in sys.argv[2:]:
    name, serials = spec.split(":")
    for s in serials.split(","):
        out.write(b"node=" + bytes.fromhex(name) + b" type=SYSCALL msg=audit(1796032879.%03d:%d): "
                  b"arch=c000003e syscall=2 success=yes exit=3 pid=1 uid=0\n" % (int(s) % 1000, int(s)))
PY
hexof() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
gapped() {	# gapped WHAT HEXNAME: serials 100,101,105,106 from that node
	python3 "$tmp/nodes.py" "$tmp/node.log" "$2:100,101,105,106"
	run "$tmp/node.log"
	is "$rc" 1 "$1: not complete (exit 1)"
	like "$out" "INCOMPLETE: 3 serial(s) missing" "$1: the gap 102..104 is reported"
	unlike "$out" "COMPLETE: every serial" "$1: never COMPLETE"
	json=$("$AA" --json --input "$tmp/node.log" 2>&1 >/dev/null)
	like "$json" '"complete":false' "$1: JSON says complete false"
	like "$json" '"serials_missing":3' "$1: JSON counts the 3 missing serials"
}
gapped "64-byte node" "$(hexof "$(printf 'n%.0s' $(seq 64))")"
gapped "300-byte node" "$(hexof "$(printf 'n%.0s' $(seq 300))")"
gapped "node with quotes" "$(hexof "h\"o'st")"
gapped "node with =" "$(hexof "host=a=b")"
gapped "node with bytes that are not UTF-8" "ff fe c0 af 68"
gapped "node with an escape sequence" "1b 5b 32 4a 68"
unlike "$out" $'\e' "node with an escape sequence: not sent raw to the terminal"

# Two 300-byte names that differ in their last byte are two hosts: the events of one
# must not fill the holes of the other (a truncated or refused name would).
long=$(hexof "$(printf 'n%.0s' $(seq 299))")
python3 "$tmp/nodes.py" "$tmp/node.log" "${long}61:100,101,105,106" "${long}62:102,103,104"
run "$tmp/node.log"
is "$rc" 1 "two long nodes alike but for the last byte: not complete"
like "$out" "INCOMPLETE: 3 serial(s) missing" "two long nodes: the first one's gap is reported"

# A node with a space in its name cuts its lines short: counted as unreadable.
python3 "$tmp/nodes.py" "$tmp/node.log" "$(hexof 'a b'):100,101,102"
run "$tmp/node.log"
is "$rc" 1 "node with a space: not complete"
like "$out" "3 malformed" "node with a space: its lines are counted as malformed"

# 1,100 nodes without a gap, then one with a gap: past the node table the serials are
# not tracked, and the report says so.
python3 - "$tmp/node.log" <<'PY'
import sys
out = open(sys.argv[1], "wb")
for i in range(1100):
    for s in (100, 101) if i < 1099 else (100, 101, 105, 106):
        out.write(b"node=host-%d type=SYSCALL msg=audit(1796032879.%03d:%d): arch=c000003e "
                  b"syscall=2 success=yes exit=3 pid=1 uid=0\n" % (i, s % 1000, s))
PY
run "$tmp/node.log"
is "$rc" 1 "1,100 nodes: not complete (exit 1)"
like "$out" "event(s) not checked for serial gaps" "1,100 nodes: the untracked nodes are reported"
unlike "$out" "COMPLETE: every serial" "1,100 nodes: never COMPLETE"
json=$("$AA" --json --input "$tmp/node.log" 2>&1 >/dev/null)
like "$json" '"complete":false' "1,100 nodes: JSON says complete false"
like "$json" 'not checked for serial gaps' "1,100 nodes: JSON names the reason"

# A Landlock denial's two halves further apart than the reading window (a denial storm
# can do that): its record alone, 16,400 one-record events, then its SYSCALL and EOE.
# The window closes the first half; the report must say so, not let the second pass as
# a denial of its own with nothing said.
python3 "$TOP/tests/fixtures/gen/cut-event.py" 1796032879.100 1001 9 > "$tmp/cut.log"
run "$tmp/cut.log"
is "$rc" 1 "halves past the window: not complete (exit 1)"
like "$out" "1 Landlock event(s) closed by the reading window before their SYSCALL record" \
	"halves past the window: the report counts the cut"
finish
