#!/bin/bash
# pam_agentbox fails closed: every setup failure for an enrolled user refuses the login
# (su exits non-zero, nothing runs) with one line in the auth log saying why, and an
# agentbox-session-refused audit record; unenrolled users and root are untouched.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
E2E_NO_INSTALL=1 e2e_enter_private_world "$@"
pam_setup
pam_user abt_pam1 "$PAM_WORLD_SHELL"
pam_user abt_plain
pam_stack su
P=/home/abt_pam1/proj

good_policy_text() {
	cat <<-EOF
	[user:abt_pam1]
	project = $P
	mask = .env secrets/
	network = none
	EOF
}
good_policy() { good_policy_text | pam_policy; }

# refused WHAT REASON-REGEX: `su abt_pam1` is refused and the auth log says why.
refused() {
	local what=$1 reason=$2 out
	pam_authlog_since
	out=$(su abt_pam1 -c 'echo INSIDE' 2>&1)
	case "$out" in *INSIDE*) not_ok "$what: the session ran"; return ;; esac
	ok "$what: su refused"
	if pam_authlog_find "pam_agentbox\(su:session\): refusing session of abt_pam1: .*$reason" >/dev/null; then
		ok "$what: auth log says why"
	else
		not_ok "$what: no auth log line matching '$reason'"
		diag "$(tail -c +$((PAM_AUTHLOG_OFF + 1)) "$PAM_AUTHLOG" | grep pam_agentbox | tail -3)"
	fi
}

install -d -o abt_pam1 -g abt_pam1 "$P"
echo secret > "$P/.env"; chown abt_pam1: "$P/.env"
good_policy
out=$(su abt_pam1 -c 'echo INSIDE; cat '"$P"'/.env' 2>&1)
like "$out" INSIDE "control: a good policy lets abt_pam1 in"
like "$out" "Permission denied" "control: the masked file is denied"

# 1. Malformed policy: one bad line anywhere refuses every non-root session.
pam_policy <<EOF
[user:abt_pam1]
project = $P
no_such_key = 1
EOF
refused "malformed policy" "policy unusable"
# A user the broken policy does not name, whose shell is not agentbox-shell, could never
# get a confined session: refusing them would lock the whole host out over one typo.
out=$(su abt_plain -c 'echo PLAIN' 2>&1)
like "$out" PLAIN "malformed policy: a user it does not name is not locked out"
pam_user abt_pam3 "$PAM_WORLD_SHELL"
out=$(su abt_pam3 -c 'echo INSIDE' 2>&1)
unlike "$out" INSIDE "malformed policy: a user whose shell is agentbox-shell is refused (enrolment unknown)"
out=$(su root -c 'echo ROOT' 2>&1)
like "$out" ROOT "malformed policy: root's su still works (the admin can repair it)"

# 2. Missing project.
pam_policy <<EOF
[user:abt_pam1]
project = $P/does-not-exist
EOF
refused "missing project" ".*does-not-exist"

# 3. Masking errors: a masked file hardlinked from outside the walked trees ...
good_policy
install -d -m 0755 /home/abt-outside
ln "$P/.env" /home/abt-outside/env-link
refused "hardlink outside the trees" "masked file $P/.env has 1 hardlink"
rm -f /home/abt-outside/env-link
# ... a hardlink inside the trees is masked through both names instead.
ln "$P/.env" "$P/innocent-name"
out=$(su abt_pam1 -c "cat $P/innocent-name" 2>&1)
like "$out" "Permission denied" "hardlink inside the project: masked through its other name too"
rm -f "$P/innocent-name"
# ... a tree deeper than the walk's bound, with something to mask at its bottom (the
# walk must reach it; with agentbox-maskd's walk index a login enters only directories
# that hold something to mask or protect, so a deep tree holding nothing is not walked).
d="$P/deep"; for i in $(seq 1 130); do d="$d/d"; done
mkdir -p "$d"; echo deep-secret > "$d/.env"; chown -R abt_pam1: "$P/deep"
refused "tree deeper than the bound" "deeper than 128 levels"
rm -rf "$P/deep"
# ... a project path through a symlink (the agent may own a directory on the way).
ln -s "$P" /home/abt_pam1/proj-link
pam_policy <<EOF
[user:abt_pam1]
project = /home/abt_pam1/proj-link
EOF
refused "project through a symlink" "proj-link.*(symlink|symbolic link)"
rm -f /home/abt_pam1/proj-link
good_policy

# 4. Namespace failure.  The max_*_namespaces sysctls are host-wide (init user
# namespace) and other tests run beside us, so the test exhausts what is local instead:
# pid namespaces nest at most 32 deep, and su run 32 levels down cannot unshare one more.
nest() { if [ "$1" -gt 0 ]; then unshare --pid --fork -- "$BASH" -c "$(declare -f nest); nest $(( $1 - 1 )) \"\$@\"" nest "${@:2}"; else "${@:2}"; fi; }
# Down there the module cannot list the kernel's audit rules either (only the initial
# pid namespace may) to check agentbox's audit scope rule: with audit = required (the
# default) that refuses first.
pam_authlog_since
out=$(nest 32 su abt_pam1 -c 'echo INSIDE' 2>&1)
unlike "$out" INSIDE "outside the initial pid namespace, audit = required: su refused"
pam_authlog_find "refusing session of abt_pam1: audit is required and the audit rules cannot be listed" >/dev/null
check $? "... the auth log says the audit rules cannot be listed"
# With audit = best-effort it goes on, and cannot unshare one more pid namespace.
{ good_policy_text; echo "audit = best-effort"; } | pam_policy
pam_authlog_since
out=$(nest 32 su abt_pam1 -c 'echo INSIDE' 2>&1)
unlike "$out" INSIDE "pid namespaces exhausted: su refused"
if pam_authlog_find "refusing session of abt_pam1: unshare\(mnt,ipc,uts,pid\)" >/dev/null; then
	ok "pid namespaces exhausted: auth log says unshare failed"
else
	not_ok "pid namespaces exhausted: no unshare line in the auth log"
	diag "$out"
fi
good_policy

# 5. The session's pid 1 cannot start.
sed -i "s|init=$PAM_INIT|init=/nonexistent/agentbox-init|" /etc/pam.d/su
refused "agentbox-init missing" "session pid 1: .*/nonexistent/agentbox-init"
sed -i "s|init=/nonexistent/agentbox-init|init=$PAM_INIT|" /etc/pam.d/su

# 6. A user set up for the box (login shell agentbox-shell) but without a section.
pam_user abt_pam2 /usr/local/sbin/agentbox-shell
pam_authlog_since
out=$(su abt_pam2 -c 'echo INSIDE' 2>&1)
unlike "$out" INSIDE "agentbox-shell user without a policy section: refused"
pam_authlog_find "refusing session of abt_pam2: login shell is agentbox-shell" >/dev/null
check $? "agentbox-shell user without a policy section: auth log says why"

# 7. Unenrolled users are untouched: no namespace of ours.
host_mnt=$(readlink /proc/self/ns/mnt)
out=$(su abt_plain -c 'readlink /proc/self/ns/mnt' 2>&1)
is "$out" "$host_mnt" "unenrolled user: su runs in the caller's mount namespace"

# 8. Refusals are on the audit record.
e2e_audit_since
pam_policy <<EOF
[user:abt_pam1]
project = $P/gone
EOF
su abt_pam1 -c true >/dev/null 2>&1
e2e_audit_find - 'op=agentbox-session-refused user="abt_pam1" service="su" reason=' >/dev/null
check $? "refusal audit record (op=agentbox-session-refused) written"

# Nothing of abt_pam1 is left running.
procs=$(ps -e -o uid=,pid=,args= | awk -v u="$(id -u abt_pam1)" '$1 == u')
is "$procs" "" "no process of abt_pam1 left"
finish
