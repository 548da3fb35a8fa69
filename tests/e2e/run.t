#!/bin/bash
# agentbox run (issue 16 item 1), end to end through the real installer, enroll, the
# agentbox-run PAM stack, pam_agentbox and agentbox-shell: a command that reads
# /srv/h16tool/x and writes /var/lib/h16tool is denied both, the summary on stderr
# lists both (files, the Landlock rule) with the session id and the agentbox-audit
# command, and the audit log holds both records in that session; stdin, stdout and
# stderr pass through and the exit status is the command's; a user who is not enrolled
# and a directory that is not a project are refused before anything runs; --ephemeral
# leaves the project and the home byte-for-byte as they were after an edit, a delete
# and a create, which the summary counts; SIGINT to agentbox run ends a command that
# never exits and leaves no process of the user.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
e2e_enter_private_world "$@"

U=h16run_a
PROJ=/home/h16run_a-project
AB=$E2E_AGENTBOX
command -v python3 >/dev/null || skip_all "python3 needed"

mkdir -p "$PROJ/sub" && chmod 0755 "$PROJ" || e2e_die "mkdir $PROJ"
echo keep > "$PROJ/keep.txt"
echo edit-me > "$PROJ/edit.txt"
echo delete-me > "$PROJ/sub/gone.txt"
# A masked secret and a protected hook (the default policy's mask and protect).
echo 'API_KEY=h16secret' > "$PROJ/.env"
mkdir -p "$PROJ/.git/hooks" && printf '#!/bin/sh\n' > "$PROJ/.git/hooks/pre-commit"
# /srv is this world's; /var/lib/h16tool is made on the host (its name is ours) and
# removed at the end: the write into it must be denied, so it stays empty.
mount -t tmpfs -o mode=0755 h16run-srv /srv || e2e_die "tmpfs /srv"
mkdir /srv/h16tool && echo tool-data > /srv/h16tool/x && chmod 0644 /srv/h16tool/x
if [ ! -e /var/lib/h16tool ]; then
	mkdir /var/lib/h16tool || e2e_die "mkdir /var/lib/h16tool"
	defer "rmdir /var/lib/h16tool"
fi
e2e_enroll "$U" --project "$PROJ" || e2e_die "enroll $U"
chown -R "$U:" "$PROJ"
home=$(getent passwd "$U" | cut -d: -f6)
[ -d "$home" ] || e2e_die "no home $home"
uid=$(id -u "$U")

# --- 1. denials in the summary and in the log --------------------------------------------
e2e_audit_since
echo from-stdin | "$AB" run -u "$U" -C "$PROJ" -- sh -c \
    'cat; echo to-stdout; echo to-stderr >&2; pwd; cat /srv/h16tool/x; echo y > /var/lib/h16tool/out; exit 3' \
    > "$E2E_DIR/out" 2> "$E2E_DIR/err"
rc=$?
is "$rc" 3 "exit status is the command's (3)"
is "$(cat "$E2E_DIR/out")" "from-stdin
to-stdout
$PROJ" "stdin and stdout pass through; the command starts in -C DIR"
err=$(cat "$E2E_DIR/err")
like "$err" "to-stderr" "stderr passes through"
ses=$(sed -n 's/^agentbox run: session \([0-9]*\) of .*/\1/p' "$E2E_DIR/err")
[ -n "$ses" ] && ok "summary names the session ($ses)" || not_ok "no session id in the summary"
like "$err" "exit status 3" "summary: the exit status"
like "$err" "denied: 2 (files 2, network 0, syscalls 0)" "summary: two file denials, grouped"
like "$err" "fs.read_file     /srv/h16tool/x  Landlock: outside the policy's read/write/project paths" \
    "summary: the read of /srv/h16tool/x and the Landlock rule that stopped it"
like "$err" "fs.make_reg      /var/lib/h16tool  Landlock: outside" \
    "summary: the write into /var/lib/h16tool and its rule"
like "$err" "all of it: agentbox-audit --session $ses --since @" "summary: the agentbox-audit command"
[ -z "$(ls -A /var/lib/h16tool)" ] && ok "nothing was written to /var/lib/h16tool" ||
    not_ok "/var/lib/h16tool was written"
ev=$(e2e_audit_find - "blockers=fs.read_file path=\"/srv/h16tool/x\"")
like "$ev" " ses=$ses " "audit: the read denial, in session $ses"
ev=$(e2e_audit_find - "blockers=fs.make_reg path=\"/var/lib/h16tool\"")
like "$ev" " ses=$ses " "audit: the write denial, in session $ses"
ev=$(e2e_audit_find - "op=agentbox-session-start ses=$ses ")
like "$ev" "service=\"agentbox-run\"" "audit: the session's start record names the agentbox-run service"
# The command the summary names shows the same two denials.
e2e_audit_records > "$E2E_DIR/slice.log"
aud=$(/usr/local/sbin/agentbox-audit --json --session "$ses" --input "$E2E_DIR/slice.log" 2>/dev/null |
    python3 -c 'import json,sys; print(sorted(d["access"]+" "+d["path"] for d in map(json.loads, sys.stdin)))')
is "$aud" "['fs.make_reg /var/lib/h16tool', 'fs.read_file /srv/h16tool/x']" \
    "agentbox-audit --session $ses lists exactly those two"

# --- 2. exit status, --json -----------------------------------------------------------------
"$AB" run -u "$U" -C "$PROJ" -- true 2>/dev/null
is "$?" 0 "exit status 0 passes through"
"$AB" run -u "$U" -C "$PROJ/sub" -- sh -c 'kill -TERM $$' 2>/dev/null
is "$?" 143 "a command killed by SIGTERM: 128 + 15"
"$AB" run --json -u "$U" -C "$PROJ" -- sh -c 'exit 5' 2> "$E2E_DIR/json"
is "$?" 5 "--json: exit status 5"
got=$(tail -1 "$E2E_DIR/json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["user"], d["exit"], d["denials"], d["ephemeral"], d["audit"].startswith("agentbox-audit --session %d " % d["session"]))' 2>&1)
is "$got" "$U 5 {'files': 0, 'network': 0, 'syscalls': 0} None True" "--json: the summary is one JSON object"

# The terminal is the command's (su without --pty shares it the same way).
out=$(script -qec "$AB run -u $U -C $PROJ -- sh -c '[ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo tty-yes'" /dev/null 2>&1)
like "$out" "tty-yes" "the terminal passes through: stdin, stdout and stderr are a tty"

# Figures (diagnostics only): the whole of `agentbox run -- true`, summary included, and
# the session itself as the summary times it; su for comparison.
t0=$(date +%s%N); "$AB" run -u "$U" -C "$PROJ" -- true 2> "$E2E_DIR/err"; t1=$(date +%s%N)
t2=$(date +%s%N); su "$U" -c true; t3=$(date +%s%N)
"$AB" run --ephemeral -u "$U" -C "$PROJ" -- true 2> "$E2E_DIR/err2"
diag "agentbox run -- true: $(( (t1 - t0) / 1000000 )) ms in all, session $(sed -n 's/.*ended after \([0-9.]*\) s.*/\1/p' "$E2E_DIR/err") s (--ephemeral: $(sed -n 's/.*ended after \([0-9.]*\) s.*/\1/p' "$E2E_DIR/err2") s); su $U -c true: $(( (t3 - t2) / 1000000 )) ms; audit logs: $(du -sh /var/log/audit | cut -f1)"

# --- 3. refusals ----------------------------------------------------------------------------
out=$("$AB" run -u nobody -- sh -c 'echo ran' 2>&1)
rc=$?
[ $rc -ne 0 ] && ok "refused: a user who is not enrolled (exit $rc)" || not_ok "ran for nobody"
like "$out" "nobody is not enrolled" "the refusal says why"
unlike "$out" "ran" "the command did not run"
out=$("$AB" run -u "$U" -C /srv -- sh -c 'echo ran' 2>&1)
rc=$?
[ $rc -ne 0 ] && ok "refused: -C /srv, not a project (exit $rc)" || not_ok "ran in /srv"
like "$out" "/srv is not one of $U's projects: $PROJ" "the refusal names the projects"
unlike "$out" "ran" "the command did not run"
out=$("$AB" run -u "$U" -C "$PROJ/../" -- true 2>&1)
[ $? -ne 0 ] && ok "refused: a DIR that only spells a project (PROJ/..)" ||
    not_ok "ran in $PROJ/.."

# --- 4. --ephemeral -------------------------------------------------------------------------
snapshot() { (cd "$1" && find . -printf '%p %y %m %U %s\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(snapshot "$PROJ"); hbefore=$(snapshot "$home")
"$AB" run --ephemeral -u "$U" -C "$PROJ" -- sh -c \
    'echo more >> edit.txt && rm sub/gone.txt && echo new > new.txt && echo h > ~/h16home.txt &&
     cat edit.txt new.txt ~/h16home.txt && ls sub' > "$E2E_DIR/out" 2> "$E2E_DIR/err"
rc=$?
is "$rc" 0 "--ephemeral: the command ran (exit 0)"
is "$(cat "$E2E_DIR/out")" "edit-me
more
new
h" "--ephemeral: the session saw its own edits, deletion and new files"
is "$(snapshot "$PROJ")" "$before" "--ephemeral: the project is byte-for-byte unchanged"
is "$(snapshot "$home")" "$hbefore" "--ephemeral: the home is unchanged"
like "$(cat "$E2E_DIR/err")" "ephemeral: 4 files would have changed (2 created, 1 modified, 1 deleted); all thrown away" \
    "--ephemeral: the summary counts them"
# Masks and protects sit on top of the overlays.
"$AB" run --ephemeral -u "$U" -C "$PROJ" -- sh -c \
    'cat .env; echo x >> .git/hooks/pre-commit; echo done' > "$E2E_DIR/out" 2> "$E2E_DIR/err"
is "$(cat "$E2E_DIR/out")" "done" "--ephemeral: the masked .env is not read"
err=$(cat "$E2E_DIR/err")
like "$err" "EACCES           $PROJ/.env  mask or file permissions" \
    "--ephemeral: the summary shows the mask's denial"
like "$err" "EROFS            $PROJ/.git/hooks/pre-commit  protect: read-only" \
    "--ephemeral: the summary shows the protect's denial"
is "$(snapshot "$PROJ")" "$before" "--ephemeral: the project is still unchanged"
# The agent cannot ask for it: the module reads the request only in the agentbox-run
# stack, and there only from the PAM environment, which no module of it sets.
grep -v '^#' /etc/pam.d/agentbox-run | grep -q 'pam_env' && not_ok "agentbox-run stack has pam_env" ||
    ok "the agentbox-run stack has no pam_env"
like "$(grep pam_agentbox /etc/pam.d/agentbox-run)" "pam_agentbox.so run" \
    "enroll wrote the agentbox-run service with the run argument"

# The module's `run` argument anywhere but the agentbox-run service refuses the session,
# with the reason (pamtester opens a session of a service of this world's /etc).
if command -v pamtester >/dev/null; then
	printf 'session required pam_agentbox.so run\n' > /etc/pam.d/h16run-bad
	e2e_audit_since
	pamtester h16run-bad "$U" open_session >/dev/null 2>&1 &&
	    not_ok "pam_agentbox run in service h16run-bad opened a session" ||
	    ok "refused: pam_agentbox's run argument in another service's stack"
	e2e_audit_find - "op=agentbox-session-refused.*h16run-bad" >/dev/null
	e2e_audit_records > "$E2E_DIR/slice.log"
	ev=$(/usr/local/sbin/agentbox-audit sessions --json --user "$U" --input "$E2E_DIR/slice.log" 2>/dev/null |
	    grep '"refused":true')
	like "$ev" "module argument 'run' in the stack of service h16run-bad" \
	    "the refusal record says why"
	rm -f /etc/pam.d/h16run-bad
else
	not_ok "pamtester missing (tools/install-deps)"
fi

# --- 5. SIGINT ends the whole session ---------------------------------------------------
"$AB" run -u "$U" -C "$PROJ" -- sh -c 'sleep 1000 & setsid sleep 1002 & exec sleep 1001' \
    >/dev/null 2> "$E2E_DIR/err" &
runpid=$!
for _ in $(seq 50); do
	[ "$(ps -u "$uid" -o comm= | grep -c '^sleep$')" = 3 ] && break
	sleep 0.1
done
is "$(ps -u "$uid" -o comm= | grep -c '^sleep$')" 3 "three never-ending processes run (one in its own session)"
kill -INT "$runpid"
wait "$runpid"
is "$?" 130 "SIGINT: agentbox run exits 130"
e2e_wait_uid_gone "$uid" 3 && ok "SIGINT: no process of $U is left" ||
    not_ok "SIGINT: processes of $U left: $(ps -u "$uid" -o pid=,args= | tr '\n' ';')"
like "$(cat "$E2E_DIR/err")" "ended by signal 2" "SIGINT: the summary says the session was ended"

# This world's /etc is a copy of the host's: a user enrolled there (a `make demo` running
# on the host) is enrolled here too, and its policy may not load here: unenroll then
# says it cannot tell who else is enrolled and exits 1, which is not run's to judge.
others=$(ls /etc/agentbox/enrolled 2>/dev/null | grep -vx "$U")
out=$("$AB" unenroll "$U" --remove-user 2>&1)
rc=$?
if [ -z "$others" ]; then
	check $rc "unenroll $U"
	[ $rc = 0 ] || diag "$out"
else
	diag "also enrolled in this world (from the host's /etc): $others; unenroll exit $rc"
fi
if [ -z "$others" ]; then
	[ ! -e /etc/pam.d/agentbox-run ] && ok "the last unenroll removed the agentbox-run service" ||
	    not_ok "/etc/pam.d/agentbox-run left behind"
else
	[ -e /etc/pam.d/agentbox-run ] && ok "the agentbox-run service stays for $others" ||
	    not_ok "unenroll of $U removed the service $others still needs"
fi
e2e_assert_host_clean "$U" "$uid"
finish
