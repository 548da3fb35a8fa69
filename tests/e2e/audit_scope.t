#!/bin/bash
# agentbox's audit scope rule (issue 14 items 3-5; pam_module/auditscope.c): the real
# `agentbox enroll` loads `-a never,task -F auid!=A -F uid!=A ... -F key=agentbox`, so
# tasks outside every agent session get no audit context and the rest of the host pays
# nothing for the agents' exit rules, while every session's denials stay on the record.
# And the catch, tried here: a host rule of its own would be silenced by it, so the
# rebuild (enroll, unenroll, `agentbox audit-scope`) takes the scope away while the host
# has one (a probe rule, then Debian's STIG example rule set), doctor fails while a stale
# scope silences one, and a login the loaded scope does not exempt is refused, as is
# one that a never,task rule of the host's own may take the audit context from.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
e2e_enter_private_world "$@"

AB=$E2E_AGENTBOX
U=h14sc1; V=h14sc2
PROJ=/home/h14sc-project
X=4242997		# a loginuid outside every agent session (no account needed)
PROBE=(-F arch=b64 -S openat -F exit=-ENOENT -F auid=$X -k abt-scope-probe)
STIG=/usr/share/doc/auditd/examples/rules/30-stig.rules
command -v auditctl >/dev/null || skip_all "auditctl missing"
auditctl -s 2>/dev/null | grep -q '^pid [1-9]' || skip_all "auditd is not running (tools/start-services)"
# The scope can only be loaded where every syscall rule is agentbox's.
[ -z "$(auditctl -l | grep -E '^-[aw] ' | grep -v 'key=agentbox')" ] ||
    skip_all "the host has audit rules of its own: no scope rule can be loaded here"
scopes() { auditctl -l | grep -- '-a never,task .*key=agentbox'; }
# rlike GOT REGEX NAME: like, with an extended regular expression.
rlike() { if [[ $1 =~ $2 ]]; then ok "$3"; else not_ok "$3"; diag "got: '$1'" "want it to match: '$2'"; fi; }
cost() { $AB doctor 2>&1 | grep 'audit cost'; }
# refused_login WHY NAME: U's login is refused, the auth log says WHY (a regex) in one
# line, and the refusal is on the audit record.
refused_login() {
	pam_authlog_since
	e2e_audit_since
	unlike "$(su "$U" -c 'echo IN' 2>&1)" "IN" "$2"
	pam_authlog_find "pam_agentbox.*$U.*$1" >/dev/null
	check $? "the auth log says why, in one line"
	e2e_audit_find - "op=agentbox-session-refused .*acct=\"?$U\"?|op=agentbox-session-refused .*user=\"?$U" >/dev/null
	check $? "... and the refusal is on the audit record"
}
# The scope the live rules ask for: one auid/uid pair for each uid with agentbox exit rules
# (this host's other agents too, the demo's or other worlds'), in uid order.
want_scope() {
	local u out="-a never,task"
	for u in $(auditctl -l | grep -- '-a always,exit .*key=agentbox' |
	    grep -oE -- '-F uid=[0-9]+' | cut -d= -f2 | sort -un); do
		out="$out -F auid!=$u -F uid!=$u"
	done
	echo "$out -F key=agentbox"
}
mkdir -p "$PROJ" && chmod 0755 "$PROJ"
defer "rm -rf '$PROJ'"

## 1. Enroll loads the scope, exempting the agent
e2e_enroll_retry "$U" --project "$PROJ"
uid=$(id -u "$U"); gid=$(id -g "$U"); home=$(getent passwd "$U" | cut -d: -f6)
is "$(scopes | grep -c .)" 1 "enroll leaves one audit scope rule"
rlike "$(scopes)" "-F auid!=$uid -F uid!=$uid( |$)" "it exempts $U (uid $uid) by loginuid and uid"
rlike "$(cost)" "^ok .*scope rule gives no audit context to tasks outside" \
    "doctor: the rest of the host pays nothing"

## 2. The agent's session keeps its context: a denial and its exit record, by ses
install -d -m 0700 -o "$U" -g "$gid" "$home/.ssh"
echo "SECRET-KEY-h14sc" > "$home/.ssh/id_ed25519"
chown "$U:$gid" "$home/.ssh/id_ed25519" && chmod 0600 "$home/.ssh/id_ed25519"
e2e_audit_since
out=$(su "$U" -c 'cat ~/.ssh/id_ed25519; echo "ses=$(cat /proc/self/sessionid)"' 2>&1)
like "$out" "Permission denied" "the masked key is denied in $U's session"
unlike "$out" "SECRET-KEY" "... and not read"
ses=$(printf '%s\n' "$out" | sed -n 's/^ses=//p')
e2e_audit_find agentbox "type=SYSCALL .*exit=-13 .* ses=$ses " >/dev/null
check $? "the denial's exit record (key agentbox, ses=$ses) is on the record with the scope loaded"

# A task forked with loginuid X and a host rule for X: recorded or not.
probe() {
	local n=$1-$RANDOM
	sh -c "echo $X > /proc/self/loginuid && cat /nonexistent-$n 2>/dev/null; exit 0"
	e2e_audit_find abt-scope-probe "nonexistent-$n" "${2:-3}" >/dev/null
}

## 3. A host rule of its own: the scope would silence it, so it yields
e2e_audit_since
defer "auditctl -d always,exit ${PROBE[*]} 2>/dev/null; '$AB' audit-scope >/dev/null"
auditctl -a always,exit "${PROBE[@]}" >/dev/null || e2e_die "probe rule"
probe stale 2
check "$([ $? -ne 0 ]; echo $?)" \
    "while the scope is loaded, a task outside every session has no context: the host's rule is silent"
rlike "$(cost)" "^fail .*scope rule is loaded but must not be.*silences the host's own rules" \
    "doctor fails while the scope silences a host rule"
out=$($AB audit-scope)
like "$out" "audit scope: none: the host has syscall rules of its own" "audit-scope yields to the host's rule"
is "$(scopes | grep -c .)" 0 "no scope rule while the host has one of its own"
probe yielded
check $? "the host's rule records again once the scope is gone"
# Enroll while the host has its rule: no scope either.
e2e_enroll_retry "$V" --project "$PROJ"
vuid=$(id -u "$V")
is "$(scopes | grep -c .)" 0 "enroll loads no scope while the host has a rule of its own"
rlike "$(cost)" "^ok .*the host has 1 syscall rules of its own" \
    "doctor: the host's rule, and no scope"
auditctl -d always,exit "${PROBE[@]}" >/dev/null || e2e_die "probe rule removal"
out=$($AB audit-scope)
like "$out" "agents exempted: $(want_scope)" "the host's rule gone, the scope is back, exempting both agents"
like "$(scopes)" "-F auid!=$vuid -F uid!=$vuid " "... $V among them"
out=$($AB audit-scope)
unlike "$out" "load the audit scope rule" "a second rebuild changes nothing"

## 4. A login the loaded scope does not exempt is refused, with its reason
e2e_audit_rules_remove "$uid" >/dev/null	# U's exit rules gone; the rebuild drops U
like "$(scopes)" "-F auid!=$vuid " "the scope now exempts $V only"
unlike "$(scopes)" "auid!=$uid " "... not $U"
refused_login "audit scope rule does not exempt this user" \
    "$U's login is refused: its tasks would have no audit context"
auditctl -R "/etc/audit/rules.d/agentbox-$U.rules" >/dev/null || e2e_die "reload $U's rules"
$AB audit-scope >/dev/null
like "$(su "$U" -c 'echo IN' 2>&1)" "IN" "with $U's rules and the scope rebuilt, $U logs in"

## 5. A CIS-style rule set (Debian's STIG example): no scope while it is loaded
if [ -r "$STIG" ]; then
	grep -E '^-[aw] ' "$STIG" > "$E2E_DIR/stig.rules"
else	# the docs were left out of this install: a few of the same rules
	diag "no $STIG: a CIS-style subset of it"
	cat > "$E2E_DIR/stig.rules" <<'EOF'
-a always,exit -F arch=b64 -S adjtimex,settimeofday -F key=time-change
-a always,exit -F arch=b64 -S clock_settime -F a0=0x0 -F key=time-change
-a always,exit -F arch=b64 -S sethostname,setdomainname -F key=system-locale
-w /etc/group -p wa -k identity
-w /etc/passwd -p wa -k identity
-w /etc/shadow -p wa -k identity
-w /etc/sudoers -p wa -k actions
-a always,exit -F arch=b64 -S open,openat,openat2,truncate,ftruncate,creat -F exit=-EACCES -F auid>=1000 -F auid!=unset -F key=access
-a always,exit -F arch=b64 -S open,openat,openat2,truncate,ftruncate,creat -F exit=-EPERM -F auid>=1000 -F auid!=unset -F key=access
-a always,exit -F arch=b64 -S chmod,fchmod,fchmodat -F auid>=1000 -F auid!=unset -F key=perm_mod
-a always,exit -F arch=b64 -S chown,fchown,fchownat,lchown -F auid>=1000 -F auid!=unset -F key=perm_mod
-a always,exit -F arch=b64 -S unlink,unlinkat,rename,renameat -F auid>=1000 -F auid!=unset -F key=delete
EOF
fi
if :; then
	sed -e 's/^-a /-d /' -e 's/^-w /-W /' "$E2E_DIR/stig.rules" > "$E2E_DIR/stig.del"
	defer "auditctl -R '$E2E_DIR/stig.del' >/dev/null 2>&1; '$AB' audit-scope >/dev/null"
	auditctl -R "$E2E_DIR/stig.rules" >/dev/null 2>&1
	nrules=$(auditctl -l | grep -E '^-[aw] ' | grep -vc 'key=agentbox')
	check "$([ "$nrules" -gt 10 ]; echo $?)" "the STIG example rules are loaded ($nrules rules)"
	like "$($AB audit-scope)" "none: the host has syscall rules of its own" "no scope beside the STIG rules"
	rlike "$(cost)" "^ok .*the host has [0-9]+ syscall rules of its own.*no scope rule" \
	    "doctor: the host's own rules, agentbox adds only their filter walk"
	e2e_audit_since
	out=$(su "$U" -c 'cat ~/.ssh/id_ed25519; echo "ses=$(cat /proc/self/sessionid)"' 2>&1)
	ses=$(printf '%s\n' "$out" | sed -n 's/^ses=//p')
	e2e_audit_find agentbox "type=SYSCALL .*exit=-13 .* ses=$ses " >/dev/null
	check $? "beside the STIG rules, the agent's denial is still on the record"
	auditctl -R "$E2E_DIR/stig.del" >/dev/null 2>&1
	is "$(auditctl -l | grep -E '^-[aw] ' | grep -vc 'key=agentbox')" 0 "the STIG rules are gone again"
	like "$($AB audit-scope)" "exempted: $(want_scope)" "and the scope is back"
fi

## 5b. A never,task rule of the host's own silences whom it matches: doctor says so
NEVER=(-F auid=$X)
defer "auditctl -d never,task ${NEVER[*]} 2>/dev/null; '$AB' audit-scope >/dev/null"
auditctl -a never,task "${NEVER[@]}" >/dev/null || e2e_die "never,task probe"
rlike "$($AB doctor 2>&1 | grep -- '-a never,task rule')" "^warn .*1 -a never,task rule\(s\) of its own" \
    "doctor warns about the host's own never,task rule"
like "$($AB audit-scope)" "none: the host has syscall rules of its own" "no scope beside it"
# It names another loginuid: the login proves it cannot match U's tasks, and goes on.
e2e_audit_since
out=$(su "$U" -c 'cat ~/.ssh/id_ed25519; echo "ses=$(cat /proc/self/sessionid)"' 2>&1)
ses=$(printf '%s\n' "$out" | sed -n 's/^ses=//p')
[ -n "$ses" ]; check $? "a host never,task rule for another loginuid: $U logs in"
e2e_audit_find agentbox "type=SYSCALL .*exit=-13 .* ses=$ses " >/dev/null
check $? "... and its denial is on the record"
auditctl -d never,task "${NEVER[@]}" >/dev/null || e2e_die "never,task probe removal"
# One that may match U's tasks (their loginuid) refuses the login with audit = required.
MINE=(-F auid=$uid)
defer "auditctl -d never,task ${MINE[*]} 2>/dev/null; '$AB' audit-scope >/dev/null"
auditctl -a never,task "${MINE[@]}" >/dev/null || e2e_die "never,task rule for $U"
refused_login "audit is required and a -a never,task rule of the host's own may match" \
    "a host never,task rule matching $U's loginuid: the login is refused"
# With audit = best-effort the session runs without those records, and the log says so.
POL=/etc/agentbox/policy.d/$U.conf
cp "$POL" "$E2E_DIR/pol.keep" || e2e_die "keep $U's policy"
defer "cp '$E2E_DIR/pol.keep' '$POL'"
echo "audit = best-effort" >> "$POL"
pam_authlog_since
like "$(su "$U" -c 'echo IN' 2>&1)" "IN" "with audit = best-effort, $U logs in beside it"
pam_authlog_find "pam_agentbox.*session of $U: a -a never,task rule of the host's own may match" >/dev/null
check $? "... and the auth log warns that its tasks have no audit context"
cp "$E2E_DIR/pol.keep" "$POL" || e2e_die "restore $U's policy"
auditctl -d never,task "${MINE[@]}" >/dev/null || e2e_die "never,task rule removal"
like "$($AB audit-scope)" "exempted: $(want_scope)" "gone again: the scope is back"

## 6. --off, and doctor after a reboot-like loss of the scope
like "$($AB audit-scope --off)" "unload the audit scope rule" "audit-scope --off unloads it"
is "$(scopes | grep -c .)" 0 "no scope rule"
rlike "$(cost)" "^warn .*scope rule is not loaded" \
    "doctor warns that every process pays, and names the fix"
like "$($AB audit-scope)" "exempted: $(want_scope)" "audit-scope loads it again"

## 7. Unenroll rebuilds it without the agent
$AB unenroll "$V" --remove-user >/dev/null
check $? "unenroll $V"
is "$(scopes)" "$(want_scope)" "the scope is rebuilt from the live rules ..."
unlike "$(scopes)" "auid!=$vuid " "... without $V"
like "$(scopes)" "-F auid!=$uid -F uid!=$uid " "... with $U"
finish
