#!/bin/bash
# `network = proxy` with real tools: inside a proxy-mode login (real enroll --network
# proxy, real su, the real agentbox-netd), curl, git clone over https, npm install and
# pip install from a fake registry, Python urllib and requests reach the fake upstream by
# name through 127.0.0.1:3128, each connection on the record (open with the address
# dialled, close with bytes) and in agentbox-audit; the box's DNS answers an allowed
# name; the credential gateway on 127.0.0.1:3129 puts the real key on the wire to its
# host only, the box holds a placeholder, and the key never shows inside (environment,
# files, /proc, responses); SSE comes through unbuffered.
# Harness: tests/e2e/lib-netd.sh (the upstream lives in a namespace this test makes).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-netd.sh"
e2e_enter_private_world "$@"
netd_setup

U=abt_nt1
PROJ=/home/abt_nt1-proj
netd_enroll "$U" "$PROJ" || e2e_die "enroll $U with network = proxy"
cp "$NETD_FIX/probe.py" "$PROJ/probe.py" && chmod 0755 "$PROJ/probe.py"
CA=$PROJ/test-ca.crt
box() { netd_box "$U" "cd $PROJ && $1"; }

## The box's environment (agentbox-shell(8): the proxy variables)
env_out=$(box 'env')
like "$env_out" "HTTPS_PROXY=http://127.0.0.1:3128" "HTTPS_PROXY names the box's proxy"
like "$env_out" "http_proxy=http://127.0.0.1:3128" "http_proxy names the box's proxy"
like "$env_out" "NO_PROXY=localhost,127.0.0.1,::1" "NO_PROXY: only the box's own loopback"
like "$env_out" "ABT_BASE_URL=http://127.0.0.1:3129" "base_url_env: the gateway of credential 0"
placeholder=$(sed -n 's/^ABT_API_KEY=//p' <<< "$env_out")
like "$placeholder" "placeholder" "the credential's env holds a placeholder ($placeholder)"
unlike "$env_out" "$NETD_SECRET" "the real key is not in the box's environment"
like "$(box 'cat /etc/resolv.conf')" "nameserver 127.0.0.1" "resolv.conf points at the box's answerer"

## curl over CONNECT, with its records
e2e_audit_since
out=$(box "cat /proc/self/sessionid; echo; curl -sS --max-time 20 --cacert $CA https://api.example.test/echo")
ses=${out%%$'\n'*}
like "$out" '"host": "api.example.test"' "curl https://api.example.test through the proxy"
netd_upstream_saw '"path": "/echo".*"sni": "api.example.test"' &&
    ok "the upstream got the request with SNI api.example.test" || not_ok "upstream saw no /echo"
netd_rec "ses=$ses .*proto=connect .*event=open .*host=\"api.example.test\" port=443 addr=$NETD_UP4 decision=allowed" >/dev/null &&
    ok "record: connect open, session $ses, address dialled" || not_ok "no connect open record for session $ses"
netd_rec "ses=$ses .*proto=connect .*event=close .*host=\"api.example.test\".*bytes_up=[1-9][0-9]* bytes_down=[1-9]" >/dev/null &&
    ok "record: connect close with bytes" || not_ok "no connect close record with bytes"

## The review tool lists the session's connections (kind net, by the body's ses/uid)
AA=/usr/local/sbin/agentbox-audit
sleep 1	# auditd's flush
e2e_audit_records > "$NETD_DIR/slice.log"
out=$("$AA" --json --kind net --session "$ses" --input "$NETD_DIR/slice.log" 2>/dev/null)
like "$out" '"host":"api.example.test"' "agentbox-audit --json --kind net --session $ses: the connection"
like "$out" '"decision":"allowed"' "agentbox-audit: decision allowed"
like "$out" '"kind":"net"' "agentbox-audit: kind net"
out=$("$AA" --json --kind net --user "$U" --input "$NETD_DIR/slice.log" 2>/dev/null)
like "$out" "\"session\":$ses" "agentbox-audit --user $U selects by the record's uid, not the daemon's"
out=$("$AA" net --session "$ses" --input "$NETD_DIR/slice.log" 2>/dev/null)
like "$out" "api.example.test" "agentbox-audit net: a row for api.example.test"

## Plain HTTP, absolute form: forwarded without Proxy-* headers
out=$(box "curl -sS --max-time 20 -H 'Proxy-Connection: keep-alive' http://api.example.test/echo")
like "$out" '"host": "api.example.test"' "curl http://api.example.test (absolute form)"
unlike "$out" "proxy-connection" "the upstream got no Proxy-* header"
# Proxy-* fields are dropped, Proxy-Authorization too (it is the proxy's, and the box
# has no credential for it): the request is served, the upstream never sees the field.
m=$(wc -l < "$NETD_LOG")
out=$(box "curl -sS --max-time 20 -H 'Proxy-Authorization: Basic Zm9vOmJhcg==' http://api.example.test/echo 2>&1")
like "$out" '"host": "api.example.test"' "a request with Proxy-Authorization is served"
is "$(tail -n +$((m + 1)) "$NETD_LOG" | grep -ci 'proxy-authorization\|Zm9vOmJhcg')" 0 \
    "Proxy-Authorization from the box never reaches the upstream"
netd_rec "proto=http .*event=open .*host=\"api.example.test\" port=80" >/dev/null &&
    ok "record: http open" || not_ok "no http open record"

## git, npm, pip, urllib, requests
out=$(box "git -c http.sslCAInfo=$CA clone -q https://git.example.test/repo.git cl 2>&1 && cat cl/README")
is "$out" "netd test repo" "git clone https:// through the proxy"
out=$(box "echo '{}' > package.json && npm install --no-audit --no-fund --cafile $CA \
	--registry https://registry.example.test/npm/ abt-pkg >npm.log 2>&1; node -e 'console.log(require(\"abt-pkg\"))'")
is "$out" "abt-pkg works" "npm install from the fake registry"
[ "$out" = "abt-pkg works" ] || diag "$(tail -5 "$PROJ/npm.log")"
out=$(box "python3 -m pip install -q --no-cache-dir --cert $CA --target pylib \
	--index-url https://registry.example.test/simple/ abtpkg >pip.log 2>&1; \
	PYTHONPATH=pylib python3 -c 'import abtpkg; print(abtpkg.WORKS)'")
is "$out" "abtpkg works" "pip install from the fake simple index"
[ "$out" = "abtpkg works" ] || diag "$(tail -5 "$PROJ/pip.log")"
out=$(box "python3 -c 'import ssl, urllib.request as u; print(u.urlopen(\"https://api.example.test/echo\", context=ssl.create_default_context(cafile=\"$CA\"), timeout=20).status)'")
is "$out" "200" "python urllib through the proxy"
if python3 -c 'import requests' 2>/dev/null || /usr/bin/python3 -c 'import requests' 2>/dev/null; then
	out=$(box "python3 -c 'import requests; print(requests.get(\"https://api.example.test/echo\", verify=\"$CA\", timeout=20).status_code)'")
	is "$out" "200" "python requests through the proxy"
else
	not_ok "python requests: not installed (tools/install-deps: python3-requests)"
fi

## The box's DNS: an allowed name gets its dialable addresses
out=$(box "./probe.py dns api.example.test")
is "$out" "dns NOERROR $NETD_UP4" "DNS in the box: api.example.test answered with its address"
like "$(box 'getent hosts registry.example.test')" "$NETD_UP4" "getent (glibc) resolves an allowed name"

## The credential gateway
e2e_audit_since
mark=$(wc -l < "$NETD_LOG")
out=$(box "curl -sS --max-time 20 -D - -H \"x-api-key: \$ABT_API_KEY\" -H 'Authorization: Bearer stolen' \$ABT_BASE_URL/echo")
like "$out" "200" "gateway: the box reaches api.example.test through 127.0.0.1:3129"
gw=$(tail -n +$((mark + 1)) "$NETD_LOG" | grep '"path": "/echo"' | tail -1)
like "$gw" "\"x-api-key\": \"$NETD_SECRET\"" "gateway: the real key arrives at the credential's host"
unlike "$gw" "placeholder" "gateway: no placeholder reaches the upstream"
unlike "$gw" "stolen" "gateway: the box's own Authorization header is stripped"
like "$gw" '"sni": "api.example.test"' "gateway: TLS to the credential's host with its SNI"
unlike "$out" "$NETD_SECRET" "gateway: the upstream's echo of the key is redacted (headers and body)"
like "$out" "\[redacted]" "gateway: the echo shows [redacted] instead"
netd_rec "proto=gateway .*event=open .*host=\"api.example.test\"" >/dev/null &&
    ok "record: gateway open" || not_ok "no gateway open record"
out=$(box "./probe.py sse \$ABT_BASE_URL/sse")
case "$out" in
"sse 3 "0.[89]*|"sse 3 "1.*) ok "gateway: SSE events arrive as sent, not buffered ($out)" ;;
*) not_ok "gateway: SSE events buffered or lost ($out)" ;;
esac

## The key never enters the box
# The pattern is spelled so that grep's own /proc/PID/cmdline does not match it.
pat=$(sed 's/REAL/REA[L]/' <<< "$NETD_SECRET")
out=$(box "cat /etc/agentbox/abt-$U.key 2>&1; grep -rlsE -- '$pat' \$HOME $PROJ /tmp /proc/[0-9]*/environ /proc/[0-9]*/cmdline /run/agentbox* 2>/dev/null; echo end")
unlike "$out" "$NETD_SECRET" "the key file is not readable in the box"
is "${out##*$'\n'}" "end" "no file the box can read holds the key"
is "$(grep -c '' <<< "$out")" 2 "nothing listed by the search but the refused read"
[ "$(grep -c '' <<< "$out")" = 2 ] || diag "$out"

## The placeholder sent elsewhere stays a placeholder
mark=$(wc -l < "$NETD_LOG")
# Placeholders are per session: this login's own is the one to look for.
ph=$(box "echo \$ABT_API_KEY; curl -sS --max-time 20 --cacert $CA -H \"x-api-key: \$ABT_API_KEY\" https://other.example.test/echo >/dev/null;
	curl -sS --max-time 20 -H \"x-api-key: \$ABT_API_KEY\" http://other.example.test/echo >/dev/null")
other=$(tail -n +$((mark + 1)) "$NETD_LOG" | grep '"host": "other.example.test"')
is "$(grep -c '' <<< "$other")" 2 "the placeholder went to other.example.test over CONNECT and plain HTTP"
unlike "$other" "$NETD_SECRET" "other.example.test never got the real key"
like "$ph" "placeholder" "this session's placeholder: $ph"
like "$other" "\"x-api-key\": \"$ph\"" "other.example.test got the placeholder, unchanged"

e2e_wait_uid_gone "$(id -u "$U")" 10 || not_ok "session processes of $U still running"
finish
