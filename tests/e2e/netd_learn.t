#!/bin/bash
# `network = proxy` with `learn = yes` (agentbox.conf(5) learn, docs/audit-records.md
# "Learning records"): the same user, the same unlisted host, before and after learning.
#   learn = no:  CONNECT to a host no allow_host names: 403, deny record reason=no-rule;
#                the box's DNS refuses it
#   learn = yes: the same CONNECT reaches the fake upstream (TLS, SNI checked), its open
#                and close records say decision=allowed rule=- reason=learn; the box's DNS
#                answers it with its real address; plain HTTP to it is forwarded with the
#                credential's placeholder untouched (learning never injects a secret);
#                a deny_host host is still 403 (deny-rule, on its rule's port and on any
#                other), an unlisted name that resolves to a private address or the
#                metadata address is still cut (private-address, metadata), an SNI that
#                is not the CONNECT host is cut (sni-mismatch)
# Harness: tests/e2e/lib-netd.sh; only this test's namespaces are ever dialled.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-netd.sh"
e2e_enter_private_world "$@"
netd_setup
# Names no allow_host of netd_enroll's names: one on the upstream, one on a private
# address allow_private does not name (nothing listens there: it must never be dialled).
cat >> /etc/hosts <<EOF
$NETD_UP4 learn.example.test
192.168.77.7 priv.example.test
EOF

U=abt_nle1
PROJ=/home/abt_nle1-proj
netd_enroll "$U" "$PROJ" || e2e_die "enroll $U with network = proxy"
cp "$NETD_FIX/probe.py" "$PROJ/probe.py" && chmod 0755 "$PROJ/probe.py"
POL=/etc/agentbox/policy.d/$U-netd.conf
box() { netd_box "$U" "cd $PROJ && $1"; }
probe() { box "./probe.py $*"; }
upstream_lines() { wc -l < "$NETD_LOG"; }

## learn = no: an unlisted host is refused
e2e_audit_since
m=$(upstream_lines)
is "$(probe connect learn.example.test:443 learn.example.test test-ca.crt)" "status 403" \
    "learn = no: CONNECT to an unlisted host: 403"
netd_rec "proto=connect .*event=deny .*host=\"learn.example.test\" port=443 .*decision=denied rule=\"-\" reason=\"no-rule\"" >/dev/null &&
    ok "learn = no: record deny, reason no-rule" || not_ok "learn = no: no no-rule record"
is "$(probe dns learn.example.test)" "dns REFUSED " "learn = no: the box's DNS refuses the name"
sleep 0.5
is "$(tail -n +$((m + 1)) "$NETD_LOG" | grep -c 'learn.example.test')" 0 \
    "learn = no: the upstream saw nothing for the name"

## learn = yes
sed -i "/^\[user:$U\]\$/a learn = yes" "$POL"
grep -qx 'learn = yes' "$POL" || e2e_die "learn = yes not in $POL"
"$E2E_AGENTBOX" check >"$NETD_DIR/check.log" 2>&1; check $? "agentbox check accepts learn = yes"
e2e_audit_since
m=$(upstream_lines)
out=$(box "cat /proc/self/sessionid; echo; ./probe.py connect learn.example.test:443 learn.example.test test-ca.crt")
ses=${out%%$'\n'*}
like "${out#*$'\n'}" "tls-ok HTTP/1.1 200" "learn = yes: the same CONNECT reaches the upstream"
tail -n +$((m + 1)) "$NETD_LOG" | grep -q '"path": "/echo".*"sni": "learn.example.test"' &&
    ok "the upstream got the request, SNI learn.example.test" || not_ok "the upstream saw no /echo for learn.example.test"
netd_rec "ses=$ses .*proto=connect .*event=open .*host=\"learn.example.test\" port=443 addr=$NETD_UP4 decision=allowed rule=\"-\" reason=\"learn\"" >/dev/null &&
    ok "record: open, decision=allowed rule=- reason=learn, session $ses" || not_ok "no learn open record for session $ses"
netd_rec "ses=$ses .*proto=connect .*event=close .*host=\"learn.example.test\" .*decision=allowed rule=\"-\" reason=\"learn\" .*bytes_up=[1-9][0-9]* bytes_down=[1-9]" >/dev/null &&
    ok "record: close with bytes, reason=learn" || not_ok "no learn close record with bytes"
# A listed host in the same learning session is allowed by its rule, not by learning.
like "$(probe connect api.example.test:443 api.example.test test-ca.crt)" "tls-ok HTTP/1.1 200" \
    "learn = yes: a listed host still works"
netd_rec "proto=connect .*event=open .*host=\"api.example.test\" .*decision=allowed rule=\"api.example.test\" reason=\"-\"" >/dev/null &&
    ok "record: a listed host's open names its rule, reason -" || not_ok "no rule-allowed open record"

## DNS: answered with the real address, no record of its own (as every allowed answer)
is "$(probe dns learn.example.test)" "dns NOERROR $NETD_UP4" "learn = yes: the box's DNS answers the name with its address"
sleep 0.5
if found=$(netd_rec "proto=dns .*host=\"learn.example.test\"" 1); then
	not_ok "an allowed DNS answer made a record"
	diag "$found"	# which one (ci7 met one, once, under load)
else
	ok "an allowed DNS answer makes no record"
fi

## Plain HTTP to a learnt host: forwarded, the placeholder stays a placeholder
m=$(upstream_lines)
ph=$(box "echo \$ABT_API_KEY; curl -sS --max-time 20 -H \"x-api-key: \$ABT_API_KEY\" http://learn.example.test/echo >/dev/null")
got=$(tail -n +$((m + 1)) "$NETD_LOG" | grep '"host": "learn.example.test"')
like "$ph" "placeholder" "this session's placeholder: $ph"
is "$(grep -c '' <<< "$got")" 1 "learn = yes: absolute-form HTTP to the unlisted host is forwarded"
like "$got" "\"x-api-key\": \"$ph\"" "it carries the placeholder, unchanged"
unlike "$got" "$NETD_SECRET" "the real key never goes to a host learning let through"
netd_rec "proto=http .*event=open .*host=\"learn.example.test\" port=80 .*decision=allowed rule=\"-\" reason=\"learn\"" >/dev/null &&
    ok "record: http open, reason=learn" || not_ok "no http learn open record"

## A tunnel to another port carries what the rule learning stands for ("HOST:80") would
m=$(upstream_lines)
box "curl -sS --max-time 20 --proxytunnel http://learn.example.test/echo >/dev/null"
tail -n +$((m + 1)) "$NETD_LOG" | grep -q '"host": "learn.example.test".*"scheme": "http"' &&
    ok "learn = yes: CONNECT learn.example.test:80 carries plain HTTP, as a rule naming the port would" ||
    not_ok "the plain-HTTP tunnel to port 80 did not reach the upstream"
netd_rec "proto=connect .*event=open .*host=\"learn.example.test\" port=80 .*reason=\"learn\"" >/dev/null &&
    ok "record: connect open on port 80, reason=learn" || not_ok "no learn open record on port 80"

## What learning does not open
is "$(probe connect blocked.example.test:443)" "status 403" "learn = yes: CONNECT to a deny_host host: 403"
netd_rec "proto=connect .*event=deny .*host=\"blocked.example.test\" port=443 .*rule=\"blocked.example.test\" reason=\"deny-rule\"" >/dev/null &&
    ok "record: deny-rule with its rule" || not_ok "no deny-rule record on 443"
is "$(probe connect blocked.example.test:80)" "status 403" \
    "learn = yes: the deny_host host on a port its rule does not name: 403 too"
netd_rec "proto=connect .*event=deny .*host=\"blocked.example.test\" port=80 .*rule=\"blocked.example.test\" reason=\"deny-rule\"" >/dev/null &&
    ok "record: deny-rule on port 80, naming the rule" || not_ok "no deny-rule record on 80"
is "$(probe dns blocked.example.test)" "dns REFUSED " "learn = yes: the box's DNS still refuses a deny_host name"
netd_rec "proto=dns .*event=deny .*host=\"blocked.example.test\" .*reason=\"deny-rule\"" >/dev/null &&
    ok "record: DNS refusal, deny-rule" || not_ok "no DNS deny-rule record"
like "$(probe connect priv.example.test:443 priv.example.test test-ca.crt)" "tls-cut" \
    "learn = yes: an unlisted name on a private address: cut"
netd_rec "proto=connect .*event=deny .*host=\"priv.example.test\" .*addr=192.168.77.7 .*reason=\"private-address\"" >/dev/null &&
    ok "record: private-address" || not_ok "no private-address record"
# An IP literal: Python sends no SNI for one, so the hello passes and the address decides.
like "$(probe connect 169.254.169.254:443 169.254.169.254 test-ca.crt)" "tls-cut" \
    "learn = yes: CONNECT to the metadata address: cut"
netd_rec "proto=connect .*event=deny .*host=\"?169.254.169.254\"? .*reason=\"metadata\"" >/dev/null &&
    ok "record: metadata" || not_ok "no metadata record"
out=$(probe connect learn.example.test:443 api.example.test test-ca.crt)
like "$out" "tls-cut" "learn = yes: SNI that is not the CONNECT host: cut ($out)"
netd_rec "proto=connect .*event=deny .*host=\"learn.example.test\" .*reason=\"sni-mismatch\"" >/dev/null &&
    ok "record: sni-mismatch" || not_ok "no sni-mismatch record"

## Back to learn = no: refused again
sed -i '/^learn = yes$/d' "$POL"
is "$(probe connect learn.example.test:443 learn.example.test test-ca.crt)" "status 403" \
    "learn removed: the unlisted host is refused again"

e2e_wait_uid_gone "$(id -u "$U")" 10 || not_ok "session processes of $U still running"
finish
