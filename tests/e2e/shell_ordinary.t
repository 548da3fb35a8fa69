#!/bin/bash
# Ordinary commands leave no denial: a review shows what the agent tried, not what ps
# or python read on their own.  A list of commands an agent or a person runs in every
# session (procps, coreutils, git, python, node) runs in one confined session (real
# enroll, real su, the installed default policy), and agentbox-audit --session must list
# no denial for that session.  Each command must also work.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
e2e_enter_private_world "$@"

U=abt_ord1
PROJ=/home/abt_ord1-project
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
[ -x "$AA" ] || skip_all "build first"
for c in ps top free uptime git python3 df; do
	command -v "$c" >/dev/null || skip_all "needs $c"
done

mkdir -p "$PROJ" && chmod 0755 "$PROJ"
# The one denial the session provokes on purpose, last: the review must list it and
# nothing else (it also shows auditd has caught up).  /srv: a private tmpfs, outside
# the read set, world-readable so only Landlock can deny it.
mount -t tmpfs -o mode=0755 abt-ord-srv /srv || e2e_die "tmpfs /srv"
echo outside > /srv/outside.txt && chmod 0644 /srv/outside.txt
e2e_enroll_retry "$U" --project "$PROJ"
uid=$(id -u "$U")
chown -R "$U" "$PROJ"
su "$U" -c "cd $PROJ && git init -q . && echo hi > README && git add README &&
    git -c user.email=a@b -c user.name=a commit -qm init" >/dev/null 2>&1 ||
    e2e_die "git project"

# name | command line.  Output goes to a project file (kept for a failure's diagnosis).
cmds='ps|ps
ps aux|ps aux
ps -ef|ps -ef
top -bn1|top -bn1
free|free
uptime|uptime
w|w
ls -la ~|ls -la ~
git status|cd '"$PROJ"' && git status
git log|cd '"$PROJ"' && git log --oneline
python3 import os|python3 -c "import os, multiprocessing; os.cpu_count(); multiprocessing.cpu_count()"
python3 -m venv-less site|python3 -c "import site, sysconfig, platform; platform.platform()"
id|id
df|df
env|env
nproc|nproc
uname -a|uname -a
hostname|hostname
os-release|cat /etc/os-release
git diff|cd '"$PROJ"' && git diff HEAD && git branch -a'
command -v node >/dev/null && cmds="$cmds
node -e 1|node -e 1
node os|node -e 'const os=require(\"os\"); os.cpus(); os.totalmem(); os.networkInterfaces(); os.loadavg()'"

script=$(printf '%s\n' "$cmds" | while IFS='|' read -r name line; do
	printf '( %s ) >>%s/out.txt 2>&1; echo "%s: $?" >>%s/rc.txt\n' "$line" "$PROJ" "$name" "$PROJ"
done)

# One session: the commands, then the marker; SES is its audit session id and
# $E2E_DIR/review.json its review.  Returns the review's exit status (0: complete).
run_session() {
	rm -f "$PROJ/out.txt" "$PROJ/rc.txt"
	e2e_audit_since
	su - "$U" -c "$script
cat /srv/outside.txt >/dev/null 2>&1"
	# The marker's record shows auditd has flushed the session's records.
	e2e_audit_find - 'path="/srv/outside\.txt"' 10 >/dev/null
	sleep 1	# the session end record
	e2e_audit_records > "$E2E_DIR/slice.log"
	SES=$(grep -F "user=\"$U\"" "$E2E_DIR/slice.log" |
		sed -n 's/.*op=agentbox-session-start ses=\([0-9]*\) .*/\1/p' | tail -1)
	[ -n "$SES" ] || return 3
	"$AA" --json --session "$SES" --input "$E2E_DIR/slice.log" > "$E2E_DIR/review.json" 2>/dev/null
}

# Other tests on the host can flood the audit log meanwhile (records lost, serials
# missing): a review that is not known complete cannot prove "no denial", so the session
# is run again, up to three times, until one review of it is complete.
for try in 1 2 3; do
	run_session; rc=$?
	[ "$rc" = 0 ] && break
	diag "try $try: the review of session ${SES:-?} is not complete (exit $rc): again"
done
[ -n "$SES" ] && ok "session start record: ses $SES" || e2e_die "no session start record"
while IFS='|' read -r name _; do
	rc_cmd=$(grep -F "$name: " "$PROJ/rc.txt" 2>/dev/null | tail -1)
	is "${rc_cmd#"$name: "}" 0 "works in the box: $name"
done <<< "$cmds"
[ "$failed" = 0 ] || sed 's/^/# /' "$PROJ/out.txt"

is "$rc" 0 "the review of session $SES is complete (exit 0, try $try)"
grep -q '"path":"/srv/outside.txt"' "$E2E_DIR/review.json"
check $? "the review lists the marker denial (cat /srv/outside.txt)"
is "$(grep -vc '"path":"/srv/outside.txt"' "$E2E_DIR/review.json")" 0 \
    "agentbox-audit --session $SES lists no other denial"
[ "$failed" = 0 ] || "$AA" --session "$SES" --input "$E2E_DIR/slice.log" 2>&1 | sed 's/^/# /'

"$E2E_AGENTBOX" unenroll "$U" --remove-user >/dev/null 2>&1
check $? "unenroll $U"
e2e_assert_host_clean "$U" "$uid"
finish
