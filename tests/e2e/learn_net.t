#!/bin/bash
# The developer's loop over the network (issue 16 item 4, its network part), through
# real proxy-mode logins (real enroll --network proxy, su, agentbox-netd, agentbox run):
# a command that connects to a host no allow_host names is refused, with its record, and
# `agentbox run` shows the refusal; `agentbox-audit suggest` over that session proposes
# exactly "allow_host = newtool.example.test"; with it installed the same command
# reaches the host.  Then, without that line but learn = yes, the command gets through,
# the connection is recorded reason=learn, `--kind learn` lists it, suggest proposes the
# same line, and a deny_host host stays refused.
# Harness: tests/e2e/lib-netd.sh (the upstream lives in a namespace this test makes;
# newtool.example.test is one more name for it, in this world's /etc/hosts).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-netd.sh"
e2e_enter_private_world "$@"
netd_setup
echo "$NETD_UP4 newtool.example.test" >> /etc/hosts

U=abt_ln1
PROJ=/home/abt_ln1-proj
NETD_CRED=0 netd_enroll "$U" "$PROJ" || e2e_die "enroll $U with network = proxy"
AA=/usr/local/sbin/agentbox-audit
CONF=/etc/agentbox/policy.d/$U.conf
CMD='curl -sk --max-time 10 -o /dev/null -w "%{http_code}\n" https://newtool.example.test/x'
# run LABEL: CMD in a new confined session; its records in $NETD_DIR/LABEL.log, its
# output in $out, its session id in $ses.
run() {
	e2e_audit_since
	out=$(netd_box "$U" "cat /proc/self/sessionid; echo; $CMD" 2>&1)
	ses=${out%%$'\n'*}
	sleep 1	# auditd's flush
	e2e_audit_records > "$NETD_DIR/$1.log"
}

# 1. Enforcing: refused, on the record, and in agentbox run's summary.
run denied
unlike "$out" $'\n200' "enforcing: the connection to newtool.example.test is refused"
netd_rec "ses=$ses .*event=deny .*host=\"newtool.example.test\" port=443 .*decision=denied .*reason=\"?no-rule" >/dev/null &&
	ok "its record: denied, no-rule" || not_ok "no deny record for newtool.example.test"
runout=$("$E2E_AGENTBOX" run -u "$U" -C "$PROJ" -- sh -c "$CMD" 2>&1)
sed 's/^/# run: /' <<<"$runout"
like "$runout" "network 1" "agentbox run counts the network denial"
like "$runout" "newtool.example.test" "and names the host"

# 2. suggest: exactly that host.
"$AA" suggest --session "$ses" --input "$NETD_DIR/denied.log" > "$NETD_DIR/s.conf" 2>/dev/null
sed 's/^/# | /' "$NETD_DIR/s.conf"
is "$(grep -v '^#' "$NETD_DIR/s.conf" | grep -v '^$')" "[user:$U]
allow_host = newtool.example.test" "suggest proposes exactly allow_host = newtool.example.test"

# 3. Installed: the same command reaches the host.
install -m 0644 -o root -g root "$NETD_DIR/s.conf" /etc/agentbox/policy.d/$U-suggest.conf
defer "rm -f /etc/agentbox/policy.d/$U-suggest.conf"
run allowed
like "$out" $'\n404' "with the line: the connection goes through (the upstream's 404 for /x)"
netd_upstream_saw '"sni": "newtool.example.test"' &&
	ok "the upstream got it" || not_ok "the upstream saw no newtool.example.test"
rm -f /etc/agentbox/policy.d/$U-suggest.conf

# 4. Learning instead: through, recorded reason=learn, the same line suggested; a
# deny_host host stays refused.
printf 'learn = yes\n' >> "$CONF"
run learn
like "$out" $'\n404' "learning: the connection goes through (the upstream's 404)"
netd_rec "ses=$ses .*event=open .*host=\"newtool.example.test\" port=443 .*decision=allowed .*reason=\"?learn" >/dev/null &&
	ok "its record: allowed, reason learn" || not_ok "no learn record for newtool.example.test"
"$AA" --json --kind learn --session "$ses" --input "$NETD_DIR/learn.log" > "$NETD_DIR/learn.json" 2>/dev/null
like "$(cat "$NETD_DIR/learn.json")" '"host":"newtool.example.test"' "--kind learn lists it"
"$AA" suggest --session "$ses" --input "$NETD_DIR/learn.log" > "$NETD_DIR/sl.conf" 2>/dev/null
is "$(grep -v '^#' "$NETD_DIR/sl.conf" | grep -v '^$')" "[user:$U]
allow_host = newtool.example.test" "suggest over the learning session: the same line"
CMD='curl -sk --max-time 10 -o /dev/null -w "%{http_code}\n" https://blocked.example.test/x'
run blocked
unlike "$out" $'\n200' "learning: a deny_host host is still refused"
netd_rec "ses=$ses .*host=\"blocked.example.test\".*decision=denied" >/dev/null &&
	ok "its record: denied" || not_ok "no deny record for blocked.example.test"
finish
