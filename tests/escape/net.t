#!/bin/bash
# Escape suite, class "net" (invariant 3, policy network = none): TCP v4/v6, UDP, MPTCP,
# TCP Fast Open, ICMP, raw and packet sockets, netlink, DNS through every resolver path,
# and ssh's own forwarding, against listeners the test starts outside on 127.0.0.1 and
# ::1 (the test sshd on TCP 2207, a UDP listener on 2207).  Entered with su.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"
esc_need_sshd

# UDP listeners: count what arrives.
udp_log="$E2E_DIR/udp.log"; : > "$udp_log"
for a in 127.0.0.1 ::1; do
	python3 -c '
import socket, sys
a = sys.argv[1]
s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_DGRAM)
s.bind((a, 2207)); s.settimeout(200)
while True:
    try: d, f = s.recvfrom(100)
    except socket.timeout: break
    open(sys.argv[2], "a").write("%s %r\n" % (a, d))
' "$a" "$udp_log" & defer "kill $!"
done
"$ESC" HOSTA alisten abt-esc-net-host 200 >/dev/null & defer "kill $!"
sleep 0.3
# Prove the listeners answer from outside, so "refused inside" means something.
must_pass "$ESC" PRE1 net 4 tcp 127.0.0.1 "$ESC_PORT"
must_pass "$ESC" PRE2 net 6 tcp ::1 "$ESC_PORT"

esc_begin net
attempt N01 "TCP connect 127.0.0.1:2207"             EACCES rec net 4 tcp 127.0.0.1 "$ESC_PORT"
attempt N02 "TCP connect [::1]:2207"                  EACCES rec net 6 tcp ::1 "$ESC_PORT"
attempt N03 "UDP send to 127.0.0.1:2207"              '!OK' 'rec?' net 4 udp 127.0.0.1 "$ESC_PORT"
attempt N04 "UDP send to [::1]:2207"                  '!OK' 'rec?' net 6 udp ::1 "$ESC_PORT"
attempt N05 "MPTCP connect 127.0.0.1:2207"            '!OK' 'rec?' net 4 mptcp 127.0.0.1 "$ESC_PORT"
attempt N06 "TCP Fast Open sendto 127.0.0.1:2207"     '!OK' 'rec?' net 4 tfo 127.0.0.1 "$ESC_PORT"
attempt N07 "ICMP echo (ping socket) to 127.0.0.1"    '!OK' 'rec?' ping 127.0.0.1
attempt N08 "raw IP socket"                           'EPERM|EACCES' rec socket 2 3 1
attempt N09 "packet socket"                           'EPERM|EACCES' rec socket 17 3 0
attempt N10 "netlink: bring lo up in the session's namespace" '!OK' - nl-linkup
attempt N11 "netlink: xfrm socket"                    '!OK' 'rec?' socket 16 3 6
attempt N12 "resolve a name (nsswitch, resolv.conf)"  '!OK' - resolve www.example.com
attempt N13 "DNS to the host stub 127.0.0.53:53"      '!OK' 'rec?' net 4 udp 127.0.0.53 53
attempt N14 "nscd socket"                             '!OK' 'rec?' unix /var/run/nscd/socket
attempt N15 "systemd-resolved varlink socket"         '!OK' 'rec?' unix /run/systemd/resolve/io.systemd.Resolve
attempt N16 "host abstract socket"                    '!OK' 'rec?' abstract abt-esc-net-host
attempt N17 "TCP connect after trying to bring lo up" EACCES rec net 4 tcp 127.0.0.1 "$ESC_PORT"
esc_run su
esc_check
esc_assert_confined
is "$(cat "$udp_log")" "" "N03/N04/N13 no datagram reached the listeners outside"

# ssh's own forwarding: a direct-tcpip channel (-W) and a remote forward (-R), both
# network paths that never enter the box.  enroll's Match block disables forwarding.
e2e_ssh_key "$ESC_AGENT" || e2e_die "ssh key"
fw=$(E2E_SSH_OPTS="-W 127.0.0.1:$ESC_PORT" esc_timeout 10 e2e_ssh "$ESC_AGENT" "$ESC_PORT" </dev/null 2>&1)
unlike "$fw" "SSH-2.0" "N18 ssh -W 127.0.0.1:$ESC_PORT (direct-tcpip) is refused"
# With ExitOnForwardFailure, ssh exits 0 only when the server set the forward up.
if E2E_SSH_OPTS="-o ExitOnForwardFailure=yes -R 0:127.0.0.1:$ESC_PORT" esc_timeout 10 e2e_ssh "$ESC_AGENT" "$ESC_PORT" true </dev/null >"$E2E_DIR/n19" 2>&1; then
	not_ok "N19 ssh -R remote forward is refused"
else
	ok "N19 ssh -R remote forward is refused ($(tr '\n' ' ' < "$E2E_DIR/n19" | head -c 120))"
fi

esc_assert_gone "$ESC_AGENT"
finish
