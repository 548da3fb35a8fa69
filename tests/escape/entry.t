#!/bin/bash
# Escape suite, class "entry" (invariant 1: every session of an enrolled user is
# confined, or it does not start).  The core set of attempts through every entry path:
# su, su -, sudo -iu, runuser -l, the test sshd (command and pty), a tmux pane, an
# sshd forced command; then the paths that skip the login shell: sudo -u USER cmd,
# runuser -u USER cmd, root's su -s /bin/sh, internal-sftp; and a tmux server the agent
# starts inside the box (new-window -- prog), cron, at, systemd-run --user.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
export E2E_SSHD_SFTP=internal-sftp
esc_world "$@"
esc_need_sshd

# A host-only file in /tmp and a host process the session must not see.
echo ABTSECRET-hosttmp > /tmp/abt-esc-hosttmp.$$; chmod 0644 /tmp/abt-esc-hosttmp.$$
defer "rm -f /tmp/abt-esc-hosttmp.$$"
(esc_victim ABTVICTIM-entry 300) & defer "kill $!"

core() {	# the same attempts, whatever the entry path
	esc_begin "core-$1"
	attempt C01 "read .env"                       EACCES rec read "$P/.env"
	attempt C02 "read .env via /proc/self/root"   EACCES rec read "/proc/self/root$P/.env"
	attempt C03 "read the developer's notes"      EACCES rec read "$DH/notes.txt"
	attempt C04 "TCP connect 127.0.0.1:2207"      EACCES rec net 4 tcp 127.0.0.1 "$ESC_PORT"
	attempt C05 "unshare a user namespace"        EPERM rec unshare user
	attempt C06 "see a host process"              ESRCH - seek-proc ABTVICTIM-entry
	attempt C07 "read a host file in /tmp"        ENOENT - read /tmp/abt-esc-hosttmp.$$
	attempt C08 "inherited fds above 2"           EBADF - fds
	attempt C09 "write .git/hooks/pre-commit"     'EROFS|EACCES' rec write "$P/.git/hooks/pre-commit"
}
for via in su su- sudo runuser ssh tmux; do
	core "$via"
	esc_run "$via"
	esc_check
	esc_assert_confined
done

# ssh with a pty (interactive login shell).
core ssh-tty
E2E_SSH_OPTS=-tt esc_run ssh
esc_check
esc_assert_confined

# E03: an ssh key with a forced command: sshd runs it through the login shell.
core forced
echo 'echo ESC-END' >> "$ESC_SCRIPT"; chmod 0755 "$ESC_SCRIPT"
akeys="$(getent passwd "$ESC_AGENT" | cut -d: -f6)/.ssh/authorized_keys"
sed -i "s|^|command=\"bash $ESC_SCRIPT\" |" "$akeys"
ESC_OUT="$E2E_DIR/out-forced" ESC_VIA=ssh-forced
e2e_audit_since
esc_timeout 60 e2e_ssh "$ESC_AGENT" "$ESC_PORT" "anything" </dev/null >"$ESC_OUT" 2>&1
ESC_SES=$(sed -n 's/^ESC ses 0 OK .*ses=\([0-9]*\).*/\1/p' "$ESC_OUT" | head -n 1)
esc_check
esc_assert_confined
e2e_ssh_key "$ESC_AGENT"

# Paths that never run the login shell: only the PAM module stands between the agent
# and the host.  Invariant 1 wants them confined (or refused), not half-confined.
for via in "sudo -u $ESC_AGENT" "runuser -u $ESC_AGENT --" "su -s /bin/sh $ESC_AGENT -c"; do
	name=$(echo "$via" | cut -d' ' -f1-2 | tr -c 'a-z0-9\n' '_')
	core "skip-$name"
	echo 'echo ESC-END' >> "$ESC_SCRIPT"; chmod 0755 "$ESC_SCRIPT"
	ESC_OUT="$E2E_DIR/out-skip-$name" ESC_VIA="$via"
	e2e_audit_since
	pam_authlog_mark=$(stat -c %s /var/log/auth.log 2>/dev/null || echo 0)
	case "$via" in
	"su -s"*) timeout 60 $via "bash $ESC_SCRIPT" </dev/null >"$ESC_OUT" 2>&1 ;;
	*) timeout 60 $via bash "$ESC_SCRIPT" </dev/null >"$ESC_OUT" 2>&1 ;;
	esac
	ESC_SES=$(sed -n 's/^ESC ses 0 OK .*ses=\([0-9]*\).*/\1/p' "$ESC_OUT" | head -n 1)
	if grep -q '^ESC ses' "$ESC_OUT"; then
		esc_check
		esc_assert_confined
	elif grep -q "pam_open_session\|cannot open session" "$ESC_OUT" ||
	    tail -c +$((pam_authlog_mark + 1)) /var/log/auth.log | grep -q pam_agentbox; then
		ok "E04 $via: refused by pam_agentbox ($(head -c 200 "$ESC_OUT" | tr '\n' ' '))"
	else
		not_ok "E04 $via: did not run and pam_agentbox logged no refusal"
		diag "$(head -c 300 "$ESC_OUT")"
	fi
done

# E01: internal-sftp runs inside sshd: no shell, no Landlock, no seccomp.
# A leading '-' keeps sftp's batch mode going after a failed command.
sftp_out=$(printf '%s\n' "-get $P/.env $E2E_DIR/sftp-env" "-get $DH/notes.txt $E2E_DIR/sftp-notes" \
    "-get $P/secrets/db.txt $E2E_DIR/sftp-db" "-ls $DH/.ssh" "-put /etc/hostname $DH/.bashrc" \
    "-put /etc/hostname $P/.git/hooks/pre-commit" "-get $AH/.ssh/id_ed25519 $E2E_DIR/sftp-agentkey" |
    e2e_sftp "$ESC_AGENT" "$ESC_PORT" - 2>&1)
diag "$(echo "$sftp_out" | sed 's/^/sftp: /' | head -n 20)"
must_fail test -s "$E2E_DIR/sftp-env"
must_fail test -s "$E2E_DIR/sftp-db"
must_fail test -s "$E2E_DIR/sftp-agentkey"
if [ -s "$E2E_DIR/sftp-notes" ]; then
	not_ok "E01 internal-sftp read the developer's world-readable notes (outside the read set: no Landlock on this path)"
else
	ok "E01 internal-sftp cannot read the developer's notes"
fi
unlike "$(cat "$DH/.bashrc")" "$(cat /etc/hostname)" "E01 internal-sftp cannot overwrite the developer's .bashrc"
must_fail grep -q "$(cat /etc/hostname)" "$P/.git/hooks/pre-commit"

# E07: a tmux server the agent starts inside the box, and new-window -- prog args.
esc_begin tmux-inside
raw "tmux -S /tmp/esc-t new-session -d -x 80 -y 20 'sleep 30'"
raw "tmux -S /tmp/esc-t new-window -- $ESC E07 read $P/.env"
raw "tmux -S /tmp/esc-t new-window -- sh -c '$ESC E07B status > $P/.esc-e07.out 2>&1'"
raw "sleep 1; cat $P/.esc-e07.out; tmux -S /tmp/esc-t kill-server"
expect E07B "tmux new-window -- prog inside the box is still confined" OK -
esc_run su
esc_check
like "$(esc_result E07B)" "seccomp=2" "E07 a window made by new-window -- prog runs under seccomp"
st=$(grep -c 'comm="e-E07"' "$ESC_SLICE")
[ "$st" -gt 0 ] && ok "E07 new-window -- esc read .env was denied and recorded" ||
    not_ok "E07 new-window -- esc read .env: no denial record"
rm -f "$P/.esc-e07.out"

# E08-E10: cron, at and systemd-run --user from inside.
esc_begin schedulers
raw "if echo '* * * * * touch /tmp/x' | crontab - 2>/dev/null; then echo 'ESC E08 0 OK crontab installed'; else echo 'ESC E08 1 EPERM crontab refused'; fi"
raw "if echo 'touch $P/at-ran' | at now + 1 minute 2>/dev/null; then echo 'ESC E09 0 OK at job queued'; else echo 'ESC E09 1 EPERM at refused'; fi"
raw "if systemd-run --user true 2>/dev/null; then echo 'ESC E10 0 OK systemd-run worked'; else echo 'ESC E10 1 EPERM systemd-run failed'; fi"
expect E08 "install a crontab" '!OK' -
expect E09 "queue an at job" '!OK' -
expect E10 "systemd-run --user" '!OK' -
esc_run su-
esc_check
is "$(ls /var/spool/cron/crontabs/ 2>/dev/null | grep -c "$ESC_AGENT")" 0 "E08 no crontab of the agent in the spool"
must_pass grep -qx "$ESC_AGENT" /etc/cron.deny
must_pass grep -qx "$ESC_AGENT" /etc/at.deny

esc_assert_gone "$ESC_AGENT"
finish
