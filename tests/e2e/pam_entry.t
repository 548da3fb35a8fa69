#!/bin/bash
# Every entry path lands in the box: su USER -c, su - USER, runuser, runuser -l,
# sudo -u USER, sudo -iu USER, login -f on a pty, the test sshd on 127.0.0.1:2201 with
# key auth (command, pty, sftp) and a tmux pane running `su - USER`.  In each: a masked file is denied by
# its canonical path, /proc/self/root/..., a symlink and a `..` spelling, a masked
# directory too; host processes are invisible; /tmp is private; the network is the
# policy's; and nothing of the user is left after logout, although the session started
# setsid, nohup and double-forked sleepers.  An unenrolled user's su is untouched.
# The login shell is /bin/bash here: the module alone is under test.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
E2E_NO_INSTALL=1 e2e_enter_private_world "$@"
pam_setup
pam_user abt_pam1 "$PAM_WORLD_SHELL"
pam_user abt_pam2 "$PAM_WORLD_SHELL"
pam_user abt_plain
PORT=2201
P=/home/abt_pam1/proj
T="$E2E_DIR/tproj"		# a project under /tmp: re-exposed in the session's own /tmp
PROBE_DIR=/home/abt-probe

# The projects: a masked file, a masked dir, ways to spell the file, an ordinary file.
for d in "$P" "$T"; do
	install -d -o abt_pam1 -g abt_pam1 "$d" "$d/sub" "$d/secrets" "$d/.git/hooks"
	echo secret > "$d/.env"; echo key > "$d/secrets/key"; echo fine > "$d/a.txt"
	ln -s .env "$d/link-to-env"
	chown -R abt_pam1: "$d"
done
pam_policy <<EOF
[user:abt_pam1]
project = $P $T
mask = .env secrets/
protect = .git/hooks
network = none

[user:abt_pam2]
project = /home/abt_pam2
network = loopback
EOF
pam_stack su su-l runuser runuser-l sudo sudo-i sshd login

# The probe runs inside each session and prints name=value lines.
install -d -m 0755 "$PROBE_DIR"; install -d -m 1777 "$PROBE_DIR/out"
cat > "$PROBE_DIR/probe" <<'EOF'
#!/bin/bash
# probe PROJECT HOSTPID PORT
P=$1 HOSTPID=$2 PORT=$3
r() { if cat "$1" >/dev/null 2>&1; then echo "$2=READ"; else echo "$2=denied"; fi; }
r "$P/.env" mask_canonical
r "/proc/self/root$P/.env" mask_procroot
r "$P/link-to-env" mask_symlink
r "$P/sub/../.env" mask_dotdot
if ls "$P/secrets" >/dev/null 2>&1; then echo mask_dir=READ; else echo mask_dir=denied; fi
r "$P/a.txt" plain_file
if [ -e "/proc/$HOSTPID" ]; then echo hostproc=visible; else echo hostproc=invisible; fi
echo nprocs=$(ps -e --no-headers | wc -l)
if [ -e /tmp/abt-pam-marker ]; then echo tmp=shared; else echo tmp=private; fi
if (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; then echo net=reach; else echo net=blocked; fi
if ip -o link show lo 2>/dev/null | grep -q '[<,]UP[,>]'; then echo lo=up; else echo lo=down; fi
if grep -q 127.0.0.53 /run/systemd/resolve/stub-resolv.conf 2>/dev/null; then echo resolve=kept; else echo resolve=gone; fi
if ls /run | grep -qv '^\(agentbox\|lock\|shm\|user\|utmp\|systemd\)$'; then echo run=host; else echo run=fresh; fi
echo uid=$(id -u)
# Sleepers that try to outlive the session.
setsid sleep 300 </dev/null >/dev/null 2>&1 &
nohup sleep 301 </dev/null >/dev/null 2>&1 &
(sleep 302 </dev/null >/dev/null 2>&1 &)
echo done=1
EOF
chmod 0755 "$PROBE_DIR/probe"
touch /tmp/abt-pam-marker; defer "rm -f /tmp/abt-pam-marker"
# A systemd-resolved host keeps resolv.conf under /run: the session keeps that, read-only
# (a tmpfs of this world over /run/systemd, so the host's is untouched).
install -d /run/systemd && mount -t tmpfs -o mode=0755 abt-pam-systemd /run/systemd &&
    install -d /run/systemd/resolve && echo "nameserver 127.0.0.53" > /run/systemd/resolve/stub-resolv.conf ||
    e2e_die "fake /run/systemd/resolve"
HOSTPID=$$

# expect_box NAME OUTPUT [PROJECT]: the probe's verdicts for an abt_pam1 session.
expect_box() {
	local name=$1 out=$2 k
	case "$out" in *done=1*) ;; *) not_ok "$name: the probe did not run"; diag "$out"; return ;; esac
	for k in mask_canonical mask_procroot mask_symlink mask_dotdot mask_dir; do
		like "$out" "$k=denied" "$name: masked by $k"
	done
	like "$out" "plain_file=READ" "$name: an ordinary project file is readable"
	like "$out" "hostproc=invisible" "$name: host processes invisible"
	like "$out" "tmp=private" "$name: /tmp private"
	like "$out" "net=blocked" "$name: network none: 127.0.0.1:$PORT unreachable"
	like "$out" "lo=down" "$name: network none: lo down"
	like "$out" "run=fresh" "$name: /run is the session's own (host sockets and pid files gone)"
	like "$out" "resolve=kept" "$name: /run/systemd/resolve kept (resolv.conf)"
}

# Nothing of USER left: every process gone (logout is asynchronous: allow 3 s).
expect_gone() {
	local name=$1 user=${2:-abt_pam1} uid procs i=0
	uid=$(id -u "$user")
	while procs=$(ps -e -o uid=,pid=,args= | awk -v u="$uid" '$1 == u') && [ -n "$procs" ]; do
		i=$((i + 1)); [ $i -lt 30 ] || break
		sleep 0.1
	done
	is "$procs" "" "$name: nothing of $user left after logout"
}

probe="$PROBE_DIR/probe $P $HOSTPID $PORT"
e2e_sshd_start $PORT || e2e_die "test sshd on $PORT"

out=$(su abt_pam1 -c "$probe" 2>&1);			expect_box "su -c" "$out"; expect_gone "su -c"
out=$(su - abt_pam1 -c "$probe" 2>&1);			expect_box "su -" "$out"; expect_gone "su -"
out=$(runuser abt_pam1 -c "$probe" 2>&1);		expect_box "runuser" "$out"; expect_gone "runuser"
out=$(runuser -l abt_pam1 -c "$probe" 2>&1);		expect_box "runuser -l" "$out"; expect_gone "runuser -l"
# Entry paths that would exec something other than the login shell (so no Landlock,
# no seccomp, the caller's environment) are refused, with the reason in the auth log.
expect_refused() {
	local name=$1 why=$2; shift 2
	pam_authlog_since
	out=$("$@" 2>&1)
	unlike "$out" "done=1" "$name: refused, the probe did not run"
	pam_authlog_find "refusing session of abt_pam1: service [a-z-]+: $why" >/dev/null
	check $? "$name: the auth log says why ($why)"
	expect_gone "$name"
}
expect_refused "sudo -u CMD" "sudo without -i" sudo -u abt_pam1 $probe
expect_refused "runuser -u CMD" "runuser -u runs" runuser -u abt_pam1 -- $probe
expect_refused "root's su -s /bin/sh" "--shell would run" su -s /bin/sh abt_pam1 -c "$probe"
expect_refused "su --sh=/bin/sh (abbreviated, permuted)" "--shell would run" \
	su abt_pam1 --sh=/bin/sh -c "$probe"
out=$(sudo -iu abt_pam1 $probe 2>&1);			expect_box "sudo -iu" "$out"; expect_gone "sudo -iu"
out=$(su abt_pam1 -c "$PROBE_DIR/probe $T $HOSTPID $PORT" 2>&1)
expect_box "su, project under /tmp" "$out"; expect_gone "su, project under /tmp"
# login(1), preauthenticated by root, on a pty (script), typing into the login shell.
out=$( (sleep 1; echo "$probe; exit") | timeout 30 script -qec "login -f abt_pam1" /dev/null 2>&1)
expect_box "login -f on a pty" "$out"; expect_gone "login -f on a pty"

# sshd: command, pty, sftp.
e2e_ssh_key abt_pam1 || e2e_die "ssh key"
out=$(e2e_ssh abt_pam1 $PORT "$probe" 2>&1);		expect_box "ssh command" "$out"; expect_gone "ssh command"
out=$(E2E_SSH_OPTS=-tt e2e_ssh abt_pam1 $PORT "tty; $probe" 2>&1 </dev/null)
expect_box "ssh pty" "$out"; like "$out" "/dev/pts/" "ssh pty: a pty of the session's own devpts"
expect_gone "ssh pty"
mkdir -p "$E2E_DIR/sftp"
printf 'get %s/a.txt %s/a.txt\n' "$P" "$E2E_DIR/sftp" > "$E2E_DIR/sftp/ok.batch"
printf 'get %s/.env %s/env\n' "$P" "$E2E_DIR/sftp" > "$E2E_DIR/sftp/env.batch"
printf 'ls /tmp\n' > "$E2E_DIR/sftp/tmp.batch"
e2e_sftp abt_pam1 $PORT "$E2E_DIR/sftp/ok.batch" >/dev/null 2>&1
check $? "sftp: an ordinary project file can be fetched"
if e2e_sftp abt_pam1 $PORT "$E2E_DIR/sftp/env.batch" >/dev/null 2>&1; then
	not_ok "sftp: the masked file was fetched"
else
	ok "sftp: the masked file is denied"
fi
out=$(e2e_sftp abt_pam1 $PORT "$E2E_DIR/sftp/tmp.batch" 2>&1)
unlike "$out" "abt-pam-marker" "sftp: the session's /tmp is private"
expect_gone "sftp"

# tmux: a pane running `su - abt_pam1`, whose server outlives the pane.
if command -v tmux >/dev/null; then
	sock="$E2E_DIR/tmux.sock"
	tmux -S "$sock" new-session -d -s abtpam \
	    "su - abt_pam1 -c '$probe > $PROBE_DIR/out/tmux 2>&1; sleep 0.2'" || not_ok "tmux new-session"
	defer "tmux -S '$sock' kill-server"
	i=0; while ! grep -q done=1 "$PROBE_DIR/out/tmux" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	expect_box "tmux pane su -" "$(cat "$PROBE_DIR/out/tmux" 2>/dev/null)"
	expect_gone "tmux pane su -"
	tmux -S "$sock" kill-server 2>/dev/null
else
	not_ok "tmux missing"
fi

# protect: read-only, and the directory holding it cannot be renamed aside and rebuilt
# (tests/escape/FINDINGS.md F5); the tmpfs are bounded (F6).
out=$(su abt_pam1 -c "cd $P; echo x > .git/hooks/pre-commit 2>&1; mv .git .git-aside 2>&1;
    mv .git/hooks .git/h2 2>&1; findmnt -no OPTIONS /tmp" 2>&1)
like "$out" "Read-only file system" "protect: .git/hooks is read-only"
like "$out" "cannot move '.git' to '.git-aside': Device or resource busy" \
    "protect: .git (holding a protected entry) cannot be renamed aside"
like "$out" "cannot move '.git/hooks'" "protect: .git/hooks cannot be renamed"
like "$out" "size=" "private /tmp has a size limit"
expect_gone "protect checks"

# A detached tmux server started inside the session dies with it.
su abt_pam1 -c 'tmux -S /tmp/agent.sock new-session -d "sleep 400"; tmux -S /tmp/agent.sock ls' >/dev/null 2>&1
expect_gone "tmux server started inside the session"

# Network modes: loopback has its own lo, up; the host's listeners stay out of reach.
out=$(su abt_pam2 -c "$PROBE_DIR/probe /home/abt_pam2 $HOSTPID $PORT" 2>&1)
like "$out" "lo=up" "network loopback: lo up"
like "$out" "net=blocked" "network loopback: the host's 127.0.0.1:$PORT unreachable"
out=$(su abt_pam2 -c 'python3 -c "
import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen()
c = socket.create_connection(s.getsockname()); print(\"own-server=ok\")"' 2>&1)
like "$out" "own-server=ok" "network loopback: the session reaches its own server on lo"
expect_gone "network loopback" abt_pam2
sed -i 's/^network = loopback/network = host/' "$PAM_ROOT/etc/agentbox/agentbox.conf"
out=$(su abt_pam2 -c "$PROBE_DIR/probe /home/abt_pam2 $HOSTPID $PORT" 2>&1)
like "$out" "net=reach" "network host: the host's 127.0.0.1:$PORT reachable"

# Unenrolled: untouched.
is "$(su abt_plain -c "readlink /proc/self/ns/mnt" 2>&1)" "$(readlink /proc/self/ns/mnt)" \
    "unenrolled su: host mount namespace"
is "$(su abt_plain -c "ls /tmp/abt-pam-marker" 2>&1)" /tmp/abt-pam-marker "unenrolled su: host /tmp"
finish
