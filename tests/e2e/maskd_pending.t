#!/bin/bash
# agentbox-maskd waits for many logins' messages at once.  A login connects to it before
# building its world (the world hides the socket's path) and sends its hand-off only at
# step 7, after the mask walk, which takes as long as the project is big.  The daemon
# used to take one connection at a time with a 1 s read timeout: one login's walk held
# every other login, and a walk over 1 s had its own login refused.  Now a connection
# waits in a set of 128 (twice the sessions it enforces) for up to 30 s while the daemon
# serves the others.
# The real `agentbox enroll`, the installed module and this world's agentbox-maskd.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
e2e_enter_private_world "$@"

U=h12w1
PROJ=/home/h12w1-project
PY=/usr/bin/python3
SOCK=/run/agentbox-maskd/control
[ -x $PY ] || skip_all "needs $PY"
e2e_enroll_project "$U" "$PROJ"
uid=$(id -u "$U")
login() { su "$U" -c "$1" 2>&1; }
like "$(login 'echo IN')" "IN" "a login with live masks opens"

## 1. An idle connection holds nobody: a login is served while it waits, unanswered
$PY - "$SOCK" "$E2E_DIR/idle" <<'EOF' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.connect(sys.argv[1])
open(sys.argv[2] + ".up", "w").close()
while not os.path.exists(sys.argv[2] + ".done"):
    time.sleep(0.05)
s.setblocking(False)
try:
    got = s.recv(512).decode()
except BlockingIOError:
    got = "(nothing)"
open(sys.argv[2] + ".got", "w").write(got)
EOF
idle=$!
i=0; until [ -e "$E2E_DIR/idle.up" ] || [ $i -gt 50 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.2	# the daemon has accepted it
out=$(login 'echo IN')
touch "$E2E_DIR/idle.done"; wait $idle
like "$out" "IN" "a login opens while another connection waits without a message"
is "$(cat "$E2E_DIR/idle.got")" "(nothing)" \
    "... and the waiting one was neither answered nor dropped meanwhile (the daemon did not block on it)"

## 2. A message that comes late (a long walk) is still served
out=$($PY - "$SOCK" "$uid" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.connect(sys.argv[1])
time.sleep(2.5)
s.send(b"watch " + sys.argv[2].encode())
s.settimeout(5)
print(s.recv(512).decode())
EOF
)
is "$out" "ok" "a message sent 2.5 s after connecting is served (the old 1 s read timeout refused it)"

## 3. At most 128 wait: the 129th is refused with the reason, and logins go on after
# (the daemon takes connections in the order they came: the first 128 fill the set).
out=$($PY - "$SOCK" <<'EOF'
import socket, sys
conns = []
for _ in range(128):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); c.connect(sys.argv[1]); conns.append(c)
extra = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); extra.connect(sys.argv[1])
extra.settimeout(10)
print(extra.recv(512).decode())
for c in conns:
    c.setblocking(False)
    try:
        c.recv(512); print("a waiting connection was answered")
    except BlockingIOError:
        pass
EOF
)
is "$out" "refused 128 logins already waiting" \
    "a 129th waiting connection is refused, saying why, and none of the 128 was answered"
# A short message from a root peer is compared whole, never against an older one's
# leftover bytes ("wat" after "watch UID" was taken for a watch).
out=$($PY - "$SOCK" "$uid" <<'EOF'
import socket, sys
for m in (b"watch " + sys.argv[2].encode(), b"wat"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.connect(sys.argv[1])
    s.send(m); s.settimeout(5); print(s.recv(512).decode()); s.close()
EOF
)
is "$(tail -1 <<<"$out")" "refused malformed hand-off (0 fds)" \
    "a 3-byte message after a watch request is refused as malformed"
like "$(login 'echo IN')" "IN" "... and once they are gone, logins open"

finish
