#!/bin/bash
# agentbox-shell end to end: real `agentbox enroll`, real su, sudo and
# sshd, in the harness's private world.  Every denial is asserted twice: the errno the
# agent sees, and the kernel's audit record (Landlock: LANDLOCK_ACCESS or UNKNOWN[1423];
# seccomp: SECCOMP with the syscall number).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
e2e_enter_private_world "$@"

U=abt_sh1
PROJ=/home/abt_sh1-project
TRY=/usr/local/bin/try-op
PORT=2203
for c in tmux gcc make git node npm /usr/bin/python3 ausyscall; do
	command -v "$c" >/dev/null || skip_all "needs $c"
done
grep -qw errno /proc/sys/kernel/seccomp/actions_logged ||
	skip_all "kernel does not log seccomp errno actions (actions_logged)"

# try-op where the agent can run it (/usr/local is this world's private copy).
install -D -m 0755 "$BUILD/try-op" "$TRY" || e2e_die "install try-op"
mkdir -p "$PROJ" && chmod 0755 "$PROJ"
# Outside every rule: /srv is not in the default read set.  A private tmpfs, so the
# host never sees it; world-readable, so only Landlock can deny it.
mount -t tmpfs -o mode=0755 abt-sh-srv /srv || e2e_die "tmpfs /srv"
echo outside > /srv/outside.txt && chmod 0644 /srv/outside.txt
e2e_enroll_retry "$U" --project "$PROJ"
uid=$(id -u "$U")

as() { su "$U" -c "$1"; }

## The shell confines: no_new_privs, seccomp, no capabilities, the real shell, the project
st=$(as 'cat /proc/self/status')
like "$st" "NoNewPrivs:	1" "su: NoNewPrivs 1"
like "$st" "Seccomp:	2" "su: Seccomp 2 (filter)"
like "$st" "CapEff:	0000000000000000" "su: no effective capabilities"
like "$st" "CapPrm:	0000000000000000" "su: no permitted capabilities"
is "$(as 'pwd')" "$PROJ" "su -c starts in the first project"
is "$(as 'echo $SHELL')" "/bin/bash" "SHELL is the real shell"
is "$(as 'readlink /proc/$$/exe; true')" "/usr/bin/bash" "the login shell is bash, exec'd by agentbox-shell"
out=$(su - "$U" -c 'echo $0; pwd')
like "$out" "-bash" "su - runs a login shell (-bash)"
is "$(sudo -iu "$U" grep Seccomp: /proc/self/status)" "Seccomp:	2" "sudo -iu: confined"
unlike "$(runuser -u "$U" -- /bin/sh -c 'echo RAN-UNCONFINED' 2>&1)" "RAN-UNCONFINED" \
   "runuser -u CMD would bypass the login shell: pam_agentbox refuses the session"

## Landlock: a read outside the read set is denied and audited, also after an exec
e2e_audit_since
out=$(as "$TRY read /srv/outside.txt"); rc=$?
is "$rc" 13 "read outside the read set: EACCES ($out)"
e2e_audit_find - '(UNKNOWN\[1423\]|LANDLOCK_ACCESS).*blockers=fs\.read_file.*path="/srv/outside\.txt"' >/dev/null
check $? "Landlock record names fs.read_file and the path"
out=$(as "cat /srv/outside.txt 2>&1"); rc=$?
like "$out" "Permission denied" "cat (a program the shell execs) is denied too"
e2e_audit_find - '(UNKNOWN\[1423\]|LANDLOCK_ACCESS).*path="/srv/outside\.txt"' | grep -q 'comm="cat"'
check $? "... and its denial is audited with comm=cat (LOG_NEW_EXEC_ON)"
out=$(as "$TRY read /proc/self/root/srv/outside.txt"); is "$?" 13 "/proc/self/root spelling denied"
out=$(as "$TRY write /etc/abt-sh-x"); is "$?" 13 "write into the read set denied"
out=$(as "$TRY write $PROJ/ok"); is "$?" 0 "write into the project allowed"
out=$(as "$TRY write /tmp/ok"); is "$?" 0 "write into the private /tmp allowed"

## A socket file only in the box's own trees: in the home or a project, which every box of
## the user shares, one box could hand another an fd (SCM_RIGHTS), and an fd of a mount of
## a box that has ended reaches what that box's masks covered.
BIND=/usr/local/bin/abt-bind
printf '%s\n' '#!/usr/bin/python3' 'import socket, sys' \
    's = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)' \
    'try: s.bind(sys.argv[1])' 'except OSError as e: print(e.errno); sys.exit(1)' \
    'print(0)' > "$BIND" && chmod 0755 "$BIND" || e2e_die "abt-bind"
e2e_audit_since
out=$(as "$BIND $PROJ/abt-x.sock"); is "$out" 13 "a socket file in the project: EACCES"
[ ! -e "$PROJ/abt-x.sock" ]; check $? "... and none was made"
e2e_audit_find - '(UNKNOWN\[1423\]|LANDLOCK_ACCESS).*blockers=fs\.make_sock' >/dev/null
check $? "... and its Landlock record names fs.make_sock"
out=$(as "$BIND /home/$U/abt-x.sock"); is "$out" 13 "a socket file in the home: EACCES"
out=$(as "$BIND /tmp/abt-x.sock && $BIND /run/user/$uid/abt-x.sock && $BIND /dev/shm/abt-x.sock")
is "$out" "0
0
0" "a socket file in the box's own /tmp, /run/user/UID and /dev/shm: made"
[ ! -e /tmp/ok ]; check $? "the session's /tmp is private"
# stdio's isatty() on a /dev/null opened inside the box (every `cmd >/dev/null`): an
# ENOTTY, as outside, and no fs.ioctl_dev denial to bury the real ones in the review.
e2e_audit_since
is "$(as 'exec 3>/dev/null; test -t 3; echo $?')" 1 "isatty on /dev/null opened inside: not a tty"
as "$TRY read /srv/outside.txt" >/dev/null	# a marker denial: the log has caught up after it
e2e_audit_find - '(UNKNOWN\[1423\]|LANDLOCK_ACCESS).*path="/srv/outside\.txt"' >/dev/null
e2e_audit_records | grep -E '(UNKNOWN\[1423\]|LANDLOCK_ACCESS).*blockers=fs\.ioctl_dev' |
    grep -q 'path="/dev/null"'
check $((!$?)) "... and no fs.ioctl_dev denial of /dev/null is logged"

## seccomp: every row of the deny table, errno and SECCOMP record
rows='38 clone3 clone3
1 unshare unshare user
1 unshare unshare mnt
1 clone clone net
1 setns setns
1 mount mount
1 umount2 umount /proc
1 pivot_root pivot_root
1 fsopen fsopen
1 fsconfig fsconfig
1 fsmount fsmount
1 fspick fspick
1 move_mount move_mount
1 open_tree open_tree
1 mount_setattr mount_setattr
1 ptrace ptrace
1 process_vm_readv process_vm_readv
1 process_vm_writev process_vm_writev
1 keyctl keyctl
1 add_key add_key
1 request_key request_key
1 bpf bpf
1 perf_event_open perf_event_open
1 userfaultfd userfaultfd
1 io_uring_setup io_uring_setup
1 io_uring_enter io_uring_enter
1 io_uring_register io_uring_register
1 open_by_handle_at open_by_handle_at
1 name_to_handle_at name_to_handle_at
1 init_module init_module
1 finit_module finit_module
1 delete_module delete_module
1 kexec_load kexec_load
1 kexec_file_load kexec_file_load
1 reboot reboot
1 swapon swapon
1 swapoff swapoff
1 acct acct
1 ioctl tiocsti
1 ioctl tioclinux
1 socket packet
1 socket raw
97 socket vsock
93 socket mptcp
1 socket netlink 9'
script=$(printf '%s\n' "$rows" | while read -r want sys op; do echo "$TRY $op >/dev/null 2>&1; echo \"$op \$?\""; done)
e2e_audit_since
results=$(as "$script")
# Wait for the last row's record (auditd writes asynchronously), then read the log once:
# re-reading it per row is slow when other tests flood the audit log.
e2e_audit_find - "type=SECCOMP .*uid=$uid .*syscall=$(ausyscall x86_64 socket --exact) " 10 >/dev/null
e2e_audit_records 2>/dev/null | grep '^type=SECCOMP ' > "$E2E_DIR/seccomp.records"
while read -r want sys op; do
	got=$(printf '%s\n' "$results" | awk -v op="$op" '{ rc = $NF; $NF = ""; sub(/ $/, ""); if ($0 == op) print rc }')
	is "$got" "$want" "seccomp: $op -> errno $want"
	nr=$(ausyscall x86_64 "$sys" --exact 2>/dev/null)
	grep -Eq "uid=$uid .*syscall=$nr .*code=0x50000" "$E2E_DIR/seccomp.records"
	found=$?
	if [ "$sys" = clone3 ]; then
		# The quiet filter answers clone3 (glibc's fallback probe in every threaded
		# program) without a record: shell/seccomp.c, build_quiet.
		check $((!found)) "seccomp: $op has no SECCOMP record (syscall=$nr): the quiet filter"
	else
		check $found "seccomp: $op has a SECCOMP record (syscall=$nr)"
	fi
done <<< "$rows"

## Terminal injection from an interactive su in a tmux pane
sock="$E2E_DIR/tmux.sock"
tmux -S "$sock" new-session -d -x 80 -y 20 "bash --norc" || e2e_die "tmux"
defer "tmux -S '$sock' kill-server"
tmux -S "$sock" send-keys "su - $U -c '$TRY tiocsti 0 X; $TRY tiocsti-hi 0; echo rc=\$?'; read -t 1 injected; echo \"[\${injected}]\" > $E2E_DIR/injected" Enter
for _ in $(seq 50); do [ -s "$E2E_DIR/injected" ] && break; sleep 0.1; done
is "$(cat "$E2E_DIR/injected" 2>/dev/null)" "[]" "TIOCSTI from su - in a tmux pane injects nothing into the pane"
like "$(tmux -S "$sock" capture-pane -p)" "rc=1" "... both TIOCSTI forms get EPERM"

## LD_PRELOAD through su -m runs nothing as the agent before (or after) confinement
cat > "$E2E_DIR/preload.c" <<'C'
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void)
{
	FILE *f = fopen("/home/abt_sh1-project/.preload-marker", "a");
	char exe[256] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) exe[n] = 0;
	if (f) { fprintf(f, "uid=%d exe=%s\n", (int)getuid(), exe); fclose(f); }
}
C
mkdir -p /usr/local/lib && gcc -shared -fPIC -o /usr/local/lib/abt-preload.so "$E2E_DIR/preload.c" || e2e_die "build preload"
LD_PRELOAD=/usr/local/lib/abt-preload.so /bin/true
grep -q "uid=0 " "$PROJ/.preload-marker"; check $? "the preload library works (control run as root)"
# World-writable, so the agent could append if the library ever ran as the agent.
: > "$PROJ/.preload-marker"; chmod 0666 "$PROJ/.preload-marker"
# SHELL unset: su -m then runs the passwd shell.  (With SHELL=/bin/bash, root's su -m
# runs bash itself, like su -s: root's choice, PAM world only; see docs/agents.md.)
out=$(env -u SHELL LD_PRELOAD=/usr/local/lib/abt-preload.so BASH_ENV=/usr/local/lib/x ENV=/x \
	su -m "$U" -c 'grep Seccomp: /proc/self/status; env' 2>&1)
like "$out" "Seccomp:	2" "su -m: the session is confined"
unlike "$out" "LD_PRELOAD" "su -m: LD_PRELOAD is not in the session"
marks=$(grep "uid=$uid " "$PROJ/.preload-marker" 2>/dev/null)
is "$marks" "" "su -m LD_PRELOAD: no code ran as the agent"
file -L /usr/local/sbin/agentbox-shell | grep -q 'static-pie linked'
check $? "agentbox-shell is statically linked (no ld.so before confinement)"

## Refusals outside a built world
out=$(setpriv --reuid="$uid" --regid="$(id -g "$U")" --clear-groups /usr/local/sbin/agentbox-shell -c true 2>&1); rc=$?
is "$rc" 1 "agentbox-shell outside a PAM world exits 1"
like "$out" "login refused" "... with one line saying why ($out)"

## Nested logins inside the box do not stack layers
# Each level execs agentbox-shell again, as a tmux pane or `su` inside the box would.
cat > "$PROJ/nest.sh" <<'SH'
n=$1
if [ "$n" -gt 0 ]; then exec /usr/local/sbin/agentbox-shell -c "sh $0 $((n - 1))"; fi
grep Seccomp: /proc/self/status; echo nested-ok
SH
chmod 0644 "$PROJ/nest.sh"
out=$(as "sh $PROJ/nest.sh 20" 2>&1)
like "$out" "nested-ok" "20 nested agentbox-shell logins (past Landlock's 16 layers) work"
# Its socket in the box's own /tmp (tmux's default place): a socket file in the home is
# refused (above).
out=$(as 'tmux -S /tmp/tm new-session -d "sleep 3" && tmux -S /tmp/tm list-panes -F "#{pane_pid}" && tmux -S /tmp/tm kill-server')
like "$out" "[0-9]" "tmux inside the box starts (ptmx + session devpts)"

## ssh: shell command, pty and sftp land in the box
e2e_sshd_start "$PORT" || e2e_die "sshd on $PORT"
e2e_ssh_key "$U" || e2e_die "ssh key"
is "$(e2e_ssh "$U" "$PORT" 'grep Seccomp: /proc/self/status')" "Seccomp:	2" "ssh command: confined"
out=$(E2E_SSH_OPTS=-tt e2e_ssh "$U" "$PORT" 'grep NoNewPrivs: /proc/self/status; exit' 2>&1)
like "$out" "NoNewPrivs:	1" "ssh with a pty: confined"
printf 'put /etc/hostname %s/from-sftp\nls %s\n' "$PROJ" "$PROJ" > "$E2E_DIR/sftp.batch"
out=$(e2e_sftp "$U" "$PORT" "$E2E_DIR/sftp.batch" 2>&1)
[ -f "$PROJ/from-sftp" ]; check $? "sftp puts a file into the project"
printf 'get /srv/outside.txt %s/x\n' "$E2E_DIR" > "$E2E_DIR/sftp.batch"
e2e_sftp "$U" "$PORT" "$E2E_DIR/sftp.batch" >/dev/null 2>&1
[ ! -f "$E2E_DIR/x" ]; check $? "sftp cannot fetch a file outside the read set"

## Ordinary work succeeds
work='set -e
git init -q repo && cd repo && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m init && cd ..
printf "#include <stdio.h>\nint main(void){puts(\"built-and-ran\");return 0;}\n" > hello.c
printf "hello: hello.c\n\tgcc -o hello hello.c\n" > Makefile
make -s && ./hello
node -e "console.log(\"node-ok\")"
mkdir -p lp && printf "{\"name\":\"lp\",\"version\":\"1.0.0\",\"main\":\"i.js\"}" > lp/package.json && echo "module.exports=42" > lp/i.js
mkdir -p app && cd app && echo "{}" > package.json && npm install --offline --no-audit --no-fund ../lp >/dev/null 2>&1 && node -e "console.log(\"npm-ok\", require(\"lp\"))" && cd ..
/usr/bin/python3 -m venv venv && venv/bin/python -c "import sys; print(\"venv-ok\", sys.prefix)"'
out=$(as "$work" 2>&1)
like "$out" "built-and-ran" "git, make, gcc build and run"
like "$out" "node-ok" "node runs"
like "$out" "npm-ok 42" "npm install of a local package"
like "$out" "venv-ok $PROJ/venv" "python3 venv in the project"
[ -n "$(ls "$PROJ/repo/.git" 2>/dev/null)" ]; check $? "git repository created"

# Logout killed every session process; unenroll removes the rules: nothing is left.
"$E2E_AGENTBOX" unenroll "$U" --remove-user >/dev/null 2>&1
check $? "unenroll $U"
e2e_assert_host_clean "$U" "$uid"
finish
