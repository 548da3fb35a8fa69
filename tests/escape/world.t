#!/bin/bash
# Escape suite, class "world" (invariant 3: the agent cannot change its own confinement):
# unmount, remount, new namespaces, pivot_root, chroot, setuid and file-capability
# programs, and code injected through the environment (su -m, sudo -E, sshd AcceptEnv).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"

# A setuid-root and a file-capability copy of the attack program, root-owned.
install -m 4755 -o root "$ESC" "$ESC_LIB/esc-suid" || e2e_die "setuid copy"
install -m 0755 -o root "$ESC" "$ESC_LIB/esc-cap" || e2e_die "cap copy"
setcap cap_dac_read_search,cap_sys_admin+ep "$ESC_LIB/esc-cap" || e2e_die "setcap"
# What injected code would do: note it ran, as whom and how confined, in a log any
# unconfined process of the agent can append to (a confined one cannot reach it).
cc -shared -fPIC -o "$ESC_LIB/preload.so" -x c - <<'C' || e2e_die "preload.so"
#include <stdio.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void esc_preload(void)
{
	char line[128], nnp[64] = "?", sec[64] = "?";
	FILE *f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "NoNewPrivs:", 11)) snprintf(nnp, sizeof(nnp), "%s", line + 11);
		if (!strncmp(line, "Seccomp:", 8)) snprintf(sec, sizeof(sec), "%s", line + 8);
	}
	if (f) fclose(f);
	nnp[strcspn(nnp, "\n")] = sec[strcspn(sec, "\n")] = 0;
	FILE *o = fopen("/usr/local/lib/abt-esc/injected.log", "ae");
	if (o) { fprintf(o, "preload uid=%d nnp=%s seccomp=%s exe-pid=%d\n", (int)getuid(), nnp, sec, (int)getpid()); fclose(o); }
}
C
printf '%s\n' '#!/bin/sh' \
    'echo "bashenv uid=$(id -u) $(grep -E "NoNewPrivs|Seccomp:" /proc/self/status | tr -s "\t\n" "  ")" >> /usr/local/lib/abt-esc/injected.log' \
    > "$ESC_LIB/bashenv.sh"
chmod 0755 "$ESC_LIB/bashenv.sh"
: > "$ESC_LIB/injected.log"; chmod 0666 "$ESC_LIB/injected.log"

esc_begin world
attempt W01 "unmount the mask over .env"             EPERM rec umount "$P/.env"
attempt W02 "bind-mount over a project file"         EPERM rec bind /etc/hostname "$P/Makefile"
attempt W03 "remount the protected .git/hooks read-write" EPERM rec remount "$P/.git/hooks"
attempt W04 "mount a fresh proc"                     EPERM rec mountproc /tmp
attempt W05 "fsopen (new mount API)"                 EPERM rec fsopen
attempt W06 "open_tree clone of the project"         EPERM rec open_tree "$P"
attempt W07 "mount_setattr to clear read-only on .git/hooks" EPERM rec mount_setattr "$P/.git/hooks"
attempt W08 "unshare a user namespace"               EPERM rec unshare user
attempt W09 "unshare a mount namespace"              EPERM rec unshare mnt
attempt W10 "unshare a network namespace"            EPERM rec unshare net
attempt W11 "clone(CLONE_NEWUSER)"                   EPERM rec clone user
attempt W12 "clone3 (flags out of seccomp's sight)"  ENOSYS - clone3
attempt W13 "setns into a namespace"                 EPERM rec setns /proc/self/ns/mnt
attempt W14 "pivot_root"                             EPERM rec pivot_root "$P" "$P/src"
attempt W15 "chroot"                                 EPERM rec chroot "$P"
raw "$ESC_LIB/esc-suid W16 euid || true"
expect W16 "a setuid-root program gains nothing (no_new_privs)" EPERM -
raw "$ESC_LIB/esc-cap W17 euid || true"
expect W17 "a file-capability program gains nothing" EPERM -
attempt W22 "write the session plan"                 'EACCES|EROFS|EPERM' rec write /run/agentbox/session.plan
attempt W23 "replace the session plan directory"     'EACCES|EROFS|EPERM|EBUSY|EXDEV' 'rec?' rename /run/agentbox /run/agentbox-old
esc_run sudo
esc_check
esc_assert_confined

# Environment injection: each entry path with LD_PRELOAD, BASH_ENV and ENV set by the
# caller.  Code may run as the agent only inside full confinement (nnp=1, seccomp=2).
: > "$ESC_LIB/injected.log"
inject="LD_PRELOAD=$ESC_LIB/preload.so BASH_ENV=$ESC_LIB/bashenv.sh ENV=$ESC_LIB/bashenv.sh"
# Root's su -m execs root's $SHELL, not the login shell: confined, or refused by the module.
env $inject su -m "$ESC_AGENT" -c "$ESC W18 status" </dev/null >"$E2E_DIR/w18" 2>&1
case "$(cat "$E2E_DIR/w18")" in
*seccomp=2*) ok "W18 su -m with LD_PRELOAD/BASH_ENV: the command runs confined" ;;
*pam_open_session*|*"cannot open session"*) ok "W18 su -m with LD_PRELOAD/BASH_ENV: refused ($(head -n 1 "$E2E_DIR/w18"))" ;;
*) not_ok "W18 su -m with LD_PRELOAD/BASH_ENV: neither confined nor refused"; diag "$(head -c 300 "$E2E_DIR/w18")" ;;
esac
# With the caller's SHELL unset su -m falls back to the login shell: it must start, confined.
env -u SHELL $inject su -m "$ESC_AGENT" -c "$ESC W18 status" </dev/null >"$E2E_DIR/w18b" 2>&1
like "$(cat "$E2E_DIR/w18b")" "seccomp=2" "W18 su -m, SHELL unset: the session starts and the command runs confined"
env $inject sudo -E -u "$ESC_AGENT" "$ESC" W19 status </dev/null >"$E2E_DIR/w19" 2>&1
# sudo -u AGENT cmd never runs the login shell: confined, or refused by the module.
case "$(cat "$E2E_DIR/w19")" in
*seccomp=2*) ok "W19 sudo -E -u AGENT cmd: the command runs confined" ;;
*pam_open_session*|*"cannot open session"*) ok "W19 sudo -E -u AGENT cmd: refused ($(head -n 1 "$E2E_DIR/w19"))" ;;
*) not_ok "W19 sudo -E -u AGENT cmd: neither confined nor refused"; diag "$(head -c 300 "$E2E_DIR/w19")" ;;
esac
# sshd configured (badly) to accept the variables: the shell must still drop them.
echo "AcceptEnv LD_PRELOAD BASH_ENV ENV LD_LIBRARY_PATH" > /etc/ssh/sshd_config.d/zz-esc-acceptenv.conf
esc_need_sshd
E2E_SSH_OPTS="-o SetEnv=LD_PRELOAD=$ESC_LIB/preload.so -o SetEnv=BASH_ENV=$ESC_LIB/bashenv.sh" \
    e2e_ssh "$ESC_AGENT" "$ESC_PORT" "$ESC W20 status" </dev/null >"$E2E_DIR/w20" 2>&1
like "$(cat "$E2E_DIR/w20")" "ESC W20 0 OK" "W20 ssh with SetEnv LD_PRELOAD/BASH_ENV (AcceptEnv): session still starts"
like "$(cat "$E2E_DIR/w20")" "seccomp=2" "W20 ssh with AcceptEnv: the command runs confined"
agent_uid=$(id -u "$ESC_AGENT")
unconfined=$(awk -v u="uid=$agent_uid" '$2 == u && !/seccomp=[[:space:]]*2/ && !/Seccomp:[[:space:]]*2/' "$ESC_LIB/injected.log")
is "$unconfined" "" "W18-W20 no injected code ran as the agent before confinement"
confined=$(grep -c "uid=$agent_uid" "$ESC_LIB/injected.log")
diag "injected code runs as the agent (all confined): $confined"
[ -s "$ESC_LIB/injected.log" ] && diag "$(sed 's/^/injected: /' "$ESC_LIB/injected.log")"
rm -f /etc/ssh/sshd_config.d/zz-esc-acceptenv.conf

esc_assert_gone "$ESC_AGENT"
finish
