#!/bin/bash
# `network = proxy` when the daemon is not there (agentbox-netd(8) on restarts):
#   - a login is refused, with one auth-log line, while agentbox-netd is down;
#   - the daemon killed (SIGKILL) mid-session, mid-download: the download breaks and
#     every later attempt fails at once (the listeners died with the daemon: nothing in
#     the box holds a copy, so connect is refused, not queued); nothing can record this,
#     the recorder is gone, which is why the restart below ends the session;
#   - the daemon restarted: the running session is ended (its pid 1 killed, every
#     process of the box gone), op=agentbox-net-session event=end reason=daemon-restart
#     on the record, its registry file removed; a new login works again.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-netd.sh"
e2e_enter_private_world "$@"
NETD_NO_DAEMON=1 netd_setup

U=abt_nl1
PROJ=/home/abt_nl1-proj
NETD_CRED=0 netd_enroll "$U" "$PROJ" || e2e_die "enroll $U with network = proxy"
uid=$(id -u "$U")
AUTHLOG=/var/log/auth.log
curl_echo="curl -sS --max-time 3 --cacert $PROJ/test-ca.crt -o /dev/null https://api.example.test/echo"

## Daemon down: the login is refused
auth_mark=$(stat -c %s "$AUTHLOG" 2>/dev/null || echo 0)
out=$(netd_box "$U" 'echo inside' 2>&1); rc=$?
[ "$rc" != 0 ] && ok "login refused while agentbox-netd is down (rc $rc)" || not_ok "login allowed without the daemon"
unlike "$out" "inside" "no command ran in a box without its proxy"
sleep 0.5
line=$(tail -c +$((auth_mark + 1)) "$AUTHLOG" 2>/dev/null | grep "pam_agentbox" | grep -i "netd" | grep -- "$U")
[ -n "$line" ] && ok "auth log says why: ${line#*pam_agentbox}" || not_ok "no auth-log line for the refused login"
is "$(grep -c '' <<< "$line")" 1 "one auth-log line for one refused login"
e2e_wait_uid_gone "$uid" 5 || not_ok "a process of $U survived the refused login"

## Daemon up: a session with a download in progress and a retry loop
netd_daemon_start || e2e_die "agentbox-netd did not start"
like "$(netd_box "$U" "$curl_echo -w '%{http_code}'")" "200" "login and proxy work with the daemon up"
LIFE=$PROJ/life.log
: > "$LIFE"; chown "$U:" "$LIFE"
e2e_audit_since
# su itself in the background, so $! is the session's su (the defer kills it).
su "$U" -c "cd $PROJ; echo ses=\$(cat /proc/self/sessionid) >> $LIFE
	(curl -sS --limit-rate 1M --max-time 60 --cacert test-ca.crt -o /dev/null \
	    https://api.example.test/bytes/1073741824 2>/dev/null; echo dl-rc=\$? >> $LIFE) &
	for i in \$(seq 1 150); do $curl_echo 2>/dev/null; echo try-rc=\$? >> $LIFE; sleep 0.2; done" &
sess=$!
defer "kill $sess"
i=0
until grep -q 'try-rc=0' "$LIFE"; do
	i=$((i + 1)); [ $i -lt 100 ] || break
	sleep 0.1
done
grep -q 'try-rc=0' "$LIFE" && ok "the session reaches the upstream" || not_ok "the session never got through"
ses=$(sed -n 's/^ses=//p' "$LIFE")
reg=$(ls /run/agentbox-netd/sessions/ 2>/dev/null)
like "$reg" "$ses" "the daemon registered session $ses (/run/agentbox-netd/sessions)"
sleep 1

## Killed mid-session
netd_daemon_kill
before=$(wc -l < "$LIFE")
sleep 3
# curl drains what the kernel had buffered for it (megabytes at 1 MiB/s) before it sees
# the end of the tunnel: give it 20 s.
i=0
until grep -q '^dl-rc=' "$LIFE"; do
	i=$((i + 1)); [ $i -lt 200 ] || break
	sleep 0.1
done
like "$(cat "$LIFE")" "dl-rc=" "the download in progress broke when the daemon died"
is "$(grep -c '^dl-rc=0' "$LIFE")" 0 "the download in progress did not complete"
after=$(tail -n +$((before + 2)) "$LIFE" | grep 'try-rc=' | sort | uniq -c)
like "$after" " try-rc=7" "with the daemon dead every attempt is refused (curl rc 7)"
unlike "$after" "try-rc=0" "no attempt got through with the daemon dead"
kill -0 "$sess" 2>/dev/null && ok "the session itself still runs (nothing ended it yet)" ||
    not_ok "the session ended by itself"

## Restarted: the running session is ended
netd_daemon_start || e2e_die "agentbox-netd did not restart"
i=0
while kill -0 "$sess" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 50 ] || break
	sleep 0.1
done
kill -0 "$sess" 2>/dev/null && not_ok "the session outlived the daemon's restart" ||
    ok "the restarted daemon ended the running session"
e2e_wait_uid_gone "$uid" 5 && ok "no process of the ended box is left" || not_ok "processes of $U left"
netd_rec "-session ses=$ses .*event=end .*reason=\"?daemon-restart" >/dev/null &&
    ok "record: session $ses ended, reason=daemon-restart" || not_ok "no daemon-restart end record for $ses"
is "$(ls /run/agentbox-netd/sessions/ 2>/dev/null)" "" "the registry holds no session any more"
like "$(netd_box "$U" "$curl_echo -w '%{http_code}'")" "200" "a new login works after the restart"
e2e_wait_uid_gone "$uid" 5
finish
