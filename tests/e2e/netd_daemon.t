#!/bin/bash
# agentbox-netd end to end, without the PAM module (tests/netd-box plays its part):
# a box namespace with only lo reaches a fake upstream in another namespace of ours
# (veth, 10.77.N.0/30) through the daemon; denials get 403/REFUSED and audit records;
# the privilege drop, the bounds (head deadline, rate), the lifeline and the restart
# sweep.  Runs in a private world (/etc, /run, /home private) with E2E_NO_INSTALL.
. "$(dirname "$0")/../lib.sh"
E2E_NO_INSTALL=1
. "$(dirname "$0")/lib-e2e.sh"
e2e_enter_private_world "$@"

# The sanitized build by default: a memory error kills the daemon, and the tests after
# it fail.  LeakSanitizer cannot ptrace a process that changed its uid: off.
NETD=${AB_NETD:-$BUILD/san/agentbox-netd}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
BOX=$BUILD/tests/netd-box
HERE=$TOP/tests/e2e/netd
for t in "$NETD" "$BOX"; do [ -x "$t" ] || skip_all "$t not built (make)"; done
for c in ip nsenter curl openssl; do command -v $c >/dev/null || skip_all "$c missing"; done
PY=/usr/bin/python3
[ -x $PY ] || skip_all "python3 missing"

T=$E2E_DIR/netd
mkdir -p "$T" && chmod 0755 "$T"
# A refused hand-off leaves its box's pid 1 (netd-box's fork, pausing, root's even when
# netd-box itself dropped to nobody): none may outlive the test.
defer "pkill -KILL -f -- '$BOX $T/control' 2>/dev/null"
N=$(( $$ % 250 + 1 ))
NS=abnetup$$
VH=abn${$}h
VU=abn${$}u
UP=10.77.$N.2
# Session ids are this run's markers in the host's audit log.
SES1=$(( 3500000000 + ($$ % 100000) * 10 ))
SES2=$((SES1 + 1))
SES3=$((SES1 + 2))

# --- the world: a daemon user, a policy, a name for the upstream ---
# (A host where make install ran already has it: this world's /etc is a copy of its.)
getent passwd agentbox-netd >/dev/null ||
    useradd --system --no-create-home --shell /usr/sbin/nologin agentbox-netd ||
    e2e_die "useradd agentbox-netd"
NETD_UID=$(id -u agentbox-netd)
# The project in a 0700 home the daemon's user cannot search (Debian 12's default).
mkdir -p /home/abnet/proj /etc/agentbox && chmod 0755 /etc/agentbox &&
    chown 4242:4242 /home/abnet && chmod 0700 /home/abnet
# The session's rules come from the real policy, as the daemon's loader compiles it.
# One credential: the gateway on the box's 127.0.0.1:3129 adds the key for up.test.
KEY=sk-test-$$-0123456789abcdef
printf '%s\n' "$KEY" > /etc/agentbox/up.key && chown root:agentbox-netd /etc/agentbox/up.key &&
    chmod 0640 /etc/agentbox/up.key || e2e_die "credential file"
cat > /etc/agentbox/agentbox.conf <<POLICY
[user:abnet]
project = /home/abnet/proj
network = proxy
credential = up
allow_host = up.test up.test:80 $UP up.test:8022
deny_host = bad.up.test
allow_private = $UP/32
[credential:up]
host = up.test
header = x-api-key
file = /etc/agentbox/up.key
env = UP_KEY
POLICY
chmod 0644 /etc/agentbox/agentbox.conf
echo "$UP up.test other.test bad.up.test" >> /etc/hosts

# --- the upstream: its own namespace behind a veth pair ---
ip netns add "$NS" || e2e_die "ip netns add"
defer "ip netns del $NS"
ip link add "$VH" type veth peer name "$VU" netns "$NS" || e2e_die "veth"
defer "ip link del $VH"
ip addr add 10.77.$N.1/30 dev "$VH" && ip link set "$VH" up &&
    ip -n "$NS" addr add "$UP/30" dev "$VU" && ip -n "$NS" link set "$VU" up &&
    ip -n "$NS" link set lo up || e2e_die "veth addresses"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=up.test \
    -addext subjectAltName=DNS:up.test -keyout "$T/key.pem" -out "$T/cert.pem" \
    >/dev/null 2>&1 || e2e_die "openssl req"
ip netns exec "$NS" $PY "$HERE/upstream.py" "$T/cert.pem" "$T/key.pem" hello-up "$T/seen" \
    >/dev/null 2>&1 &
UPPID=$!
defer "kill $UPPID"

start_daemon() {
	"$NETD" --foreground --socket "$T/control" --registry "$T/reg" \
	    --gateway-ca "$T/cert.pem" --verbose 2>>"$T/daemon.log" &
	NETD_PID=$!
	defer "kill $NETD_PID"
	for _ in $(seq 50); do [ -S "$T/control" ] && grep -q "^CapEff" /proc/$NETD_PID/status &&
	    [ "$(awk '/^Uid:/ { print $2 }' /proc/$NETD_PID/status)" = "$NETD_UID" ] && return 0
		sleep 0.1; done
	return 1
}

e2e_audit_since
start_daemon || e2e_die "daemon did not start: $(cat "$T/daemon.log")"

# --- the drop ---
is "$(awk '/^CapEff:/ { print $2 }' /proc/$NETD_PID/status)" 0000000020000000 \
    "the daemon keeps CAP_AUDIT_WRITE only"
is "$(awk '/^Uid:/ { print $2 $3 $4 $5 }' /proc/$NETD_PID/status)" \
    "$NETD_UID$NETD_UID$NETD_UID$NETD_UID" "the daemon runs as agentbox-netd (real, effective, saved, fs)"
is "$(awk '/^CapBnd:/ { print $2 }' /proc/$NETD_PID/status)" 0000000000000000 \
    "its bounding set is empty"
LOADER=$(pgrep -P "$NETD_PID" | head -1)
is "$(awk '/^CapEff:/ { print $2 }' /proc/$LOADER/status 2>/dev/null)" 0000000000000004 \
    "its policy loader keeps CAP_DAC_READ_SEARCH only"
is "$(awk '/^Uid:/ { print $2 $3 $4 }' /proc/$LOADER/status 2>/dev/null)" \
    "$NETD_UID$NETD_UID$NETD_UID" "the loader runs as agentbox-netd"
is "$(stat -c %a "$T/control")" 600 "the control socket is 0600"

# --- the open: refusals first ---
# otherns, splitns: listeners outside init's namespace, all or the TCP ones (the daemon
# finds the UDP one in init's /proc/PID/net/udp and the rest by their netns cookie).
for mode in hostns otherns splitns port digest fds; do
	out=$("$BOX" "$T/control" abnet $SES3 $mode 2>/dev/null); rc=$?
	pid=${out%% *}; kill -9 "$pid" 2>/dev/null
	[ $rc = 1 ] && [ "${out#* }" != ok ] && ok "open refused: $mode (${out#* })" ||
	    not_ok "open refused: $mode (rc=$rc: $out)"
done
must_fail "$BOX" "$T/control" abnet $SES3 notroot
# An unsafe credential file: the open is refused and the reply names the credential.
chmod 0644 /etc/agentbox/up.key
out=$("$BOX" "$T/control" abnet $SES3 2>/dev/null); rc=$?
kill -9 "${out%% *}" 2>/dev/null
chmod 0640 /etc/agentbox/up.key
[ $rc = 1 ] && [[ "${out#* }" == "error credential up: /etc/agentbox/up.key: not owned by root"* ]] &&
    ok "open refused: a credential file readable by all (${out#* })" ||
    not_ok "open refused: a credential file readable by all (rc=$rc: $out)"

out=$("$BOX" "$T/control" abnet $SES1 2>"$T/box.err") ||
    e2e_die "open: $out $(cat "$T/box.err") $(tail -5 "$T/daemon.log")"
diag "$(cat "$T/box.err")"
INIT1=${out%% *}
defer "kill -9 $INIT1"
ok "session opened: $out"
[ -f "$T/reg/$SES1" ] && ok "registry file written" || not_ok "registry file written"
in_box() { nsenter -t "$INIT1" -n "$@"; }
found() { e2e_audit_find - "$1" 8 >/dev/null; }
rec() { found "$1" && ok "record: $2" || not_ok "record: $2 ($1)"; }
CURL="curl -sS --max-time 10 -x http://127.0.0.1:3128"

# --- allowed: CONNECT to a name, absolute-form HTTP ---
is "$(in_box $CURL --cacert "$T/cert.pem" https://up.test/ 2>&1)" "hello-up -" \
    "CONNECT to an allowed name reaches the upstream"
is "$(in_box $CURL -H 'Proxy-Connection: keep-alive' http://up.test/ 2>&1)" "hello-up -" \
    "absolute-form HTTP is forwarded without Proxy-* fields"
is "$(in_box $PY "$HERE/boxclient.py" bighead)" "HTTP/1.0 200 OK|hello-up -" \
    "a 16 KiB head of 64 fields without blanks is forwarded whole"
is "$(in_box $CURL -H 'Proxy-Authorization: Basic eDp5' http://up.test/ 2>&1)" "hello-up -" \
    "Proxy-Authorization is dropped, the request forwarded"
is "$(in_box $CURL --proxy-user u:p --cacert "$T/cert.pem" https://up.test/ 2>&1)" "hello-up -" \
    "a CONNECT with Proxy-Authorization (curl --proxy-user) is served"

# --- the credential gateway: the upstream gets the key, the box never sees it ---
out=$(in_box curl -sS --max-time 10 --noproxy '*' -H 'x-api-key: agentbox-up-placeholder' \
    http://127.0.0.1:3129/key 2>&1)
is "$(cat "$T/seen" 2>/dev/null)" "$KEY" "through the gateway the upstream gets the real key"
is "$out" "key=[redacted]" "the box gets the upstream's echo of the key redacted"
unlike "$out" "$KEY" "the box never sees the key"
rec "ses=$SES1 .*proto=gateway event=open host=\"up.test\" port=443 addr=$UP decision=allowed" \
    "gateway open"
rec "ses=$SES1 .*proto=gateway event=close host=\"up.test\" port=443 .*bytes_up=[1-9][0-9]* bytes_down=[1-9]" \
    "gateway close with bytes"

# --- denied by name: 403 and no lookup ---
is "$(in_box $CURL -o /dev/null -w '%{http_connect}' https://other.test/ 2>/dev/null)" 403 \
    "CONNECT to a name no rule allows: 403"
is "$(in_box $CURL -o /dev/null -w '%{http_connect}' https://bad.up.test/ 2>/dev/null)" 403 \
    "CONNECT to a denied name: 403"
is "$(in_box $CURL -o /dev/null -w '%{http_code}' http://other.test/ 2>/dev/null)" 403 \
    "absolute-form to a name no rule allows: 403"
is "$(in_box $CURL -o /dev/null -w '%{http_connect}' https://10.77.$N.1/ 2>/dev/null)" 403 \
    "an IP literal no rule allows: 403"

# --- SNI must be the CONNECT host ---
out=$(echo | in_box timeout 10 openssl s_client -proxy 127.0.0.1:3128 -connect up.test:443 \
    -servername other.test 2>&1)
unlike "$out" "BEGIN CERTIFICATE" "a tunnel whose SNI is another name is cut before the upstream"

# --- another protocol, only on a port its rule names; the server may speak first ---
is "$(in_box $PY "$HERE/boxclient.py" tunnel up.test:8022)" \
    "HTTP/1.1 200 Connection established|SSH-2.0-upstream" \
    "a tunnel to a port its rule names carries a server-first protocol"
is "$(in_box $PY "$HERE/boxclient.py" tunnel up.test:443 SSH-2.0-client 2>&1)" \
    "HTTP/1.1 200 Connection established|" "on the default port a tunnel that is not TLS is cut"

# --- DNS ---
is "$(in_box $PY "$HERE/boxclient.py" dns up.test)" "rcode=0 addrs=$UP" \
    "DNS: an allowed name is answered with its checked address"
is "$(in_box $PY "$HERE/boxclient.py" dns other.test)" "rcode=5 addrs=" \
    "DNS: a name no rule allows is REFUSED"
is "$(in_box $PY "$HERE/boxclient.py" dns bad.up.test)" "rcode=5 addrs=" \
    "DNS: a name a deny rule names is REFUSED"

# Five denials of one name within a second, and nothing else for the loop to do (UDP
# DNS is answered off the loop): the folded four must still be written.
sleep 2	# every earlier window closes: the loop has nothing to wait for
for _ in 1 2 3 4 5; do in_box $PY "$HERE/boxclient.py" dns fold.test >/dev/null; done
found "ses=$SES1 .*proto=dns event=deny host=\"fold.test\" .* count=4 " &&
    ok "folded denials are written when their second ends, even when all is quiet" ||
    not_ok "folded denials are written when their second ends, even when all is quiet"

# --- slowloris: the head within 10 s ---
out=$(in_box $PY "$HERE/boxclient.py" slow)
like "$out" "got=b'HTTP/1.1 408" "a head that never ends gets 408 at the deadline ($out)"

# --- the records ---
rec "ses=$SES1 .*event=open reason=" "session open"
rec "ses=$SES1 .*proto=connect event=open host=\"up.test\" port=443 addr=$UP decision=allowed" \
    "CONNECT open"
rec "ses=$SES1 .*proto=connect event=close host=\"up.test\" port=443 .*bytes_down=[1-9]" \
    "CONNECT close with bytes"
rec "ses=$SES1 .*proto=http event=open host=\"up.test\" port=80" "absolute-form open"
rec "ses=$SES1 .*proto=connect event=deny host=\"other.test\" port=443 addr=\\? decision=denied rule=\"-\" reason=\"no-rule\"" \
    "no-rule denial"
rec "ses=$SES1 .*event=deny host=\"bad.up.test\" .*rule=\"bad.up.test\" reason=\"deny-rule\"" \
    "deny-rule denial names the rule"
rec "ses=$SES1 .*event=deny host=\"10.77.$N.1\" .*reason=\"no-rule\"" "IP literal denial"
rec "ses=$SES1 .*event=deny host=\"up.test\" .*reason=\"sni-mismatch\"" "SNI mismatch"
rec "ses=$SES1 .*proto=dns event=deny host=\"other.test\" .*reason=\"no-rule\"" "DNS denial"
rec "ses=$SES1 .*proto=dns event=deny host=\"bad.up.test\" .*rule=\"bad.up.test\" reason=\"deny-rule\"" \
    "DNS denial by a deny rule names it"
rec "ses=$SES1 .*reason=\"timeout\"" "head deadline"
rec "ses=$SES1 .*proto=connect event=deny host=\"up.test\" port=443 .*reason=\"timeout\"" \
    "the head deadline's record names the request line's host"

# --- rate: 64 new connections per second ---
# 150 in about 0.4 s: 64 at once, then 64/s: about 60 refused, wherever the second ends.
out=$(in_box $PY "$HERE/boxclient.py" flood 150 400)
n_closed=${out#closed=}
[ "${n_closed:-0}" -ge 40 ] && ok "over 64 connections/s are refused ($out)" ||
    not_ok "over 64 connections/s are refused ($out)"
rec "ses=$SES1 .*reason=\"limit\"" "limit"
rec "ses=$SES1 .*reason=\"limit\" count=[1-9]" "repeated limit denials are folded with a count"

# --- at most 256 connections at once (held open in READ_HEAD, under the rate) ---
sleep 1
out=$(in_box $PY "$HERE/boxclient.py" flood 270 50)
is "$out" "closed=14" "the 257th connection and later are refused while 256 are open"

# --- the lifeline: init exits, the session ends, its open tunnel closes ---
in_box $CURL --cacert "$T/cert.pem" https://up.test/slow >/dev/null 2>&1 &
CURLPID=$!
in_box curl -sS --max-time 20 --noproxy '*' http://127.0.0.1:3129/slow >/dev/null 2>&1 &
GWPID=$!
sleep 2	# the gateway's close record below then says dur_ms of 2000 or so, not 30000
kill -0 $GWPID 2>/dev/null && ok "a slow response through the gateway is held open" ||
    not_ok "a slow response through the gateway is held open"
kill -9 "$INIT1"
rec "ses=$SES1 .*event=end reason=\"exit\"" "session end on init exit"
rec "ses=$SES1 .*proto=connect event=close host=\"up.test\" .*dur_ms=" "open tunnel closed at session end"
for _ in $(seq 50); do kill -0 $CURLPID 2>/dev/null || break; sleep 0.1; done
kill -0 $CURLPID 2>/dev/null && not_ok "the tunnel's client saw the close" ||
    ok "the tunnel's client saw the close"
for _ in $(seq 50); do kill -0 $GWPID 2>/dev/null || break; sleep 0.1; done
kill -0 $GWPID 2>/dev/null && not_ok "a gateway connection is cut at the session's end" ||
    ok "a gateway connection is cut at the session's end"
# Its close record at once (within a few seconds, not when the upstream answers at 30 s).
rec "ses=$SES1 .*proto=gateway event=close host=\"up.test\" .*dur_ms=[1-9][0-9][0-9][0-9] " \
    "open gateway connection closed at session end"
[ -f "$T/reg/$SES1" ] && not_ok "registry file removed at the end" ||
    ok "registry file removed at the end"

# --- restart: the daemon goes, a session is cut off; the next daemon ends it ---
out=$("$BOX" "$T/control" abnet $SES2 2>/dev/null) || e2e_die "open 2: $out; the daemon: $(grep -A40 "ERROR: AddressSanitizer" "$T/daemon.log" | head -40)"
INIT2=${out%% *}
defer "kill -9 $INIT2"
nsenter -t "$INIT2" -n $CURL --cacert "$T/cert.pem" https://up.test/slow >/dev/null 2>&1 &
CURLPID=$!
sleep 1
kill "$NETD_PID"; wait "$NETD_PID" 2>/dev/null
for _ in $(seq 50); do kill -0 $CURLPID 2>/dev/null || break; sleep 0.1; done
kill -0 $CURLPID 2>/dev/null && not_ok "a tunnel open when the daemon dies is cut" ||
    ok "a tunnel open when the daemon dies is cut"
out=$(nsenter -t "$INIT2" -n $CURL --cacert "$T/cert.pem" https://up.test/ 2>&1)
unlike "$out" hello-up "with the daemon gone the session has no way out"
[ -f "$T/reg/$SES2" ] && ok "registry file kept across the daemon's exit" ||
    not_ok "registry file kept across the daemon's exit"
start_daemon || e2e_die "daemon did not restart"
for _ in $(seq 50); do kill -0 "$INIT2" 2>/dev/null || break; sleep 0.1; done
kill -0 "$INIT2" 2>/dev/null && not_ok "the restarted daemon ended the cut-off session" ||
    ok "the restarted daemon ended the cut-off session"
rec "ses=$SES2 .*event=end reason=\"daemon-restart\"" "daemon-restart record"
[ -f "$T/reg/$SES2" ] && not_ok "registry file swept" || ok "registry file swept"
kill -0 "$NETD_PID" && ok "the daemon survived all of it" || not_ok "the daemon survived"
[ -n "${VERBOSE:-}" ] && sed 's/^/# /' "$T/daemon.log"
finish
