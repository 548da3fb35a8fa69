#!/bin/bash
# agentbox-shell's mechanisms without a PAM world: build/tests/shell-apply applies the
# very functions agentbox-shell uses (fds, no_new_privs, Landlock, seccomp) to a plan
# given on its command line, then runs try-op.  Each case asserts the exact errno.
# Runs as any user (Landlock and seccomp need no privilege); as root it also shows that
# the denials are Landlock's, not DAC's.  Audit records are checked by tests/e2e.
. "$(dirname "$0")/../lib.sh"
APPLY="$BUILD/tests/shell-apply"
T="$BUILD/try-op"
PY=/usr/bin/python3
[ -x "$APPLY" ] && [ -x "$T" ] || skip_all "build/tests/shell-apply or build/try-op missing (make)"
[ -x "$PY" ] || skip_all "needs $PY for the listeners"
abi=$("$T" true >/dev/null; "$APPLY" --print --read /usr -- /bin/true 2>&1 | sed -n 's/.*abi=\([0-9]*\).*/\1/p')
[ -n "$abi" ] || skip_all "Landlock unavailable on this kernel"
[ "$abi" -ge 6 ] || skip_all "these cases assume Landlock ABI >= 6 (kernel has $abi)"

# Not under /tmp: the session-private /tmp, /var/tmp and /dev/shm are always writable.
# The build tree itself may be a clone under /tmp (CI): then use $HOME, or /var/lib.
scratch=$BUILD
for d in "$BUILD" "${HOME:-/nonexistent}" /var/lib; do
	case $(realpath -m "$d") in /tmp|/tmp/*|/var/tmp|/var/tmp/*|/dev/shm|/dev/shm/*) continue ;; esac
	[ -d "$d" ] && [ -w "$d" ] && { scratch=$d; break; }
done
tmp=$(mktemp -d "$scratch/tmp-shell-confine.XXXXXX"); defer "rm -rf '$tmp'"
chmod 755 "$tmp"
mkdir "$tmp/w" "$tmp/p" "$tmp/h" "$tmp/ro"
echo secret > "$tmp/secret"; echo public > "$tmp/ro/pub"
base=(--read /usr --read /bin --read /lib --read /lib64 --read /etc --read "$T" --read "$APPLY"
      --read "$tmp/ro" --write "$tmp/w" --project "$tmp/p" --home "$tmp/h")

# expect ERRNO DESCRIPTION -- [shell-apply options] -- try-op args
expect() {
	local want=$1 what=$2 got out; shift 2
	local opts=()
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done; shift
	out=$("$APPLY" "${base[@]}" "${opts[@]}" -- "$T" "$@" 2>&1); got=$?
	if [ "$got" = "$want" ]; then ok "$what: $out"; else not_ok "$what"; diag "want rc $want, got $got: $out"; fi
}

## Landlock: filesystem
expect 0  "read inside the read set"                      -- read "$tmp/ro/pub"
expect 13 "read outside every rule"                       -- read "$tmp/secret"
expect 13 "... spelled /proc/self/root/..."               -- read "/proc/self/root$tmp/secret"
expect 13 "... spelled with .."                           -- read "$tmp/w/../secret"
ln -s "$tmp/secret" "$tmp/w/link"
expect 13 "... through a symlink in the write set"        -- read "$tmp/w/link"
expect 18 "hardlink of it into the write set (EXDEV: refer)"           -- link "$tmp/secret" "$tmp/w/hard"
expect 0  "write in the write set"                        -- write "$tmp/w/f"
expect 0  "write in the project"                          -- write "$tmp/p/f"
expect 0  "write in the home"                             -- write "$tmp/h/f"
expect 13 "write in the read set"                         -- write "$tmp/ro/new"
expect 13 "truncate in the read set"                      -- truncate "$tmp/ro/pub"
expect 13 "mkdir in the read set"                         -- mkdir "$tmp/ro/d"
expect 13 "unlink in the read set"                        -- unlink "$tmp/ro/pub"
expect 0  "rename from the write set into the project"    -- rename "$tmp/w/f" "$tmp/p/g"
expect 13 "rename out of the read set"     -- rename "$tmp/ro/pub" "$tmp/w/pub"
expect 0  "exec from the read set"                        -- exec /bin/true
cp /bin/true "$tmp/p/mytrue"
expect 0  "exec a program built in the project"          -- exec "$tmp/p/mytrue"
expect 0  "/dev/null is writable"                         -- write /dev/null
expect 13 "/dev/kmsg (not in the device list)"            -- read /dev/kmsg
expect 0  "/proc/self/status is readable"                 -- read /proc/self/status
expect 13 "/proc/self/attr is not writable"               -- write /proc/self/attr/current
expect 13 "/sys is outside the read set"                  -- read /sys/kernel/mm/transparent_hugepage/enabled
is "$(cat "$tmp/ro/pub")" public "the read-only file is unchanged"

## seccomp: every row of the deny table, with its errno
while read -r want op args; do
	# shellcheck disable=SC2086
	expect "$want" "seccomp denies $op $args" -- $op $args
done <<'ROWS'
38 clone3
1 unshare user
1 unshare mnt
1 unshare net
1 unshare pid
1 unshare ipc
1 unshare uts
1 unshare cgroup
1 unshare time
1 clone user
1 clone mnt
1 clone net
1 clone pid
1 setns
1 mount
1 umount /proc
1 pivot_root
1 chroot
1 fsopen
1 fsconfig
1 fsmount
1 fspick
1 move_mount
1 open_tree
1 mount_setattr
1 ptrace
1 process_vm_readv
1 process_vm_writev
1 pidfd_getfd
1 keyctl
1 add_key
1 request_key
1 bpf
1 perf_event_open
1 userfaultfd
1 io_uring_setup
1 io_uring_enter
1 io_uring_register
1 open_by_handle_at
1 name_to_handle_at
1 init_module
1 finit_module
1 delete_module
1 kexec_load
1 kexec_file_load
1 reboot
1 swapon
1 swapoff
1 acct
1 tiocsti
1 tiocsti-hi
1 tioclinux
1 packet
1 raw
97 vsock
93 mptcp
1 netlink 9
1 netlink 15
97 socket 38 5
97 socket 31 1
ROWS
expect 0   "netlink route (ip addr) stays allowed"        -- netlink 0
expect 0   "unix sockets stay allowed"                    -- socket 1 1
expect 159 "x32 ABI kills the process (SIGSYS)"           -- x32
rc=$( ("$T" i386 >/dev/null 2>&1); echo $?) 2>/dev/null
if [ "$rc" = 139 ]; then
	# This kernel has no int 0x80 path at all (SIGSEGV unconfined); the filter's answer
	# for a foreign arch is checked in its exported form instead.
	pfc=$("$APPLY" --export-seccomp)
	like "$pfc" "invalid architecture action
action KILL_PROCESS" "i386: int 0x80 unavailable here; filter kills any non-native arch"
else
	expect 159 "i386 int 0x80 kills the process (SIGSYS)" -- i386
fi
pfc=$("$APPLY" --export-seccomp)
unlike "$pfc" "filter for arch x86 " "the filter has no i386 section"
like "$pfc" "a0.lo32 & 0xffffffff == 17" "AF_PACKET is compared on the low 32 bits"

## Landlock: network, scoping
port=$(( 20000 + RANDOM % 20000 ))
"$PY" -c '
import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
a=socket.socket(socket.AF_UNIX); a.bind("\0agentbox-test-'"$$"'"); a.listen(16)
time.sleep(60)' "$port" &
lpid=$!; defer "kill $lpid"
for _ in $(seq 50); do "$T" connect 127.0.0.1 "$port" >/dev/null && break; sleep 0.1; done
expect 13 "none: TCP connect denied by Landlock"          --net none -- connect 127.0.0.1 "$port"
expect 13 "none: TCP bind denied by Landlock"             --net none -- bind 127.0.0.1 0
expect 95 "none: TCP Fast Open sendto denied"             --net none -- fastopen 127.0.0.1 "$port"
expect 0  "tcp:PORT: connect to the listed port"          --net "tcp:$port" -- connect 127.0.0.1 "$port"
expect 13 "tcp:PORT: connect to another port"             --net "tcp:$port" -- connect 127.0.0.1 $((port + 1))
expect 13 "tcp:PORT: UDP denied (would bypass the list)"  --net "tcp:$port" -- udp 127.0.0.1 53
expect 93 "tcp:PORT: SCTP denied"                         --net "tcp:$port" -- sctp
expect 95 "tcp:PORT: TCP Fast Open denied"                --net "tcp:$port" -- fastopen 127.0.0.1 "$port"
expect 0  "host: connect not restricted"                  --net host -- connect 127.0.0.1 "$port"
expect 0  "loopback: connect not restricted (netns is the boundary)" --net loopback -- connect 127.0.0.1 "$port"
expect 0  "proxy: connect not restricted, as loopback (its lo holds the listeners)" --net proxy -- connect 127.0.0.1 "$port"
expect 0  "proxy: UDP allowed, as loopback (DNS to 127.0.0.1:53)" --net proxy -- udp 127.0.0.1 53
expect 1  "proxy: AF_PACKET still denied (loopback's seccomp program)" --net proxy -- packet
expect 0  "abstract socket reachable without Landlock"   --no-landlock -- abstract "agentbox-test-$$"
expect 1  "abstract socket outside the domain: EPERM (scope)" -- abstract "agentbox-test-$$"
expect 0  "signal outside the domain without Landlock"   --no-landlock -- kill "$lpid" 0
expect 1  "signal outside the domain: EPERM (scope)"     -- kill "$lpid" 0

## Refusals and environment
out=$("$APPLY" "${base[@]}" --min-abi 99 -- /bin/true 2>&1); rc=$?
is "$rc" 125 "policy landlock_min_abi above the kernel's ABI refuses"
like "$out" "landlock" "... and says it is Landlock"
out=$(env -i LD_PRELOAD=/x.so LD_LIBRARY_PATH=/x BASH_ENV=/x ENV=/x PROMPT_COMMAND=x \
	SHELLOPTS=xtrace PS4='$(id)' HOME=/evil PATH=/evil USER=evil GITHUB_TOKEN=s \
	TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 LC_EVIL='$(id)' TZ=:Europe/Paris \
	KEEPME=1 "$APPLY" "${base[@]}" --env --env-keep KEEPME -- /usr/bin/env 2>&1)
for v in LD_PRELOAD LD_LIBRARY_PATH BASH_ENV ENV PROMPT_COMMAND SHELLOPTS PS4 GITHUB_TOKEN LC_EVIL; do
	unlike "$out" "$v=" "env: $v dropped"
done
like "$out" "HOME=$tmp/h" "env: HOME from the plan"
like "$out" "PATH=/usr/local/bin:/usr/bin:/bin" "env: fixed PATH"
like "$out" "USER=agent" "env: USER from the plan"
like "$out" "TERM=xterm-256color" "env: TERM kept"
like "$out" "LC_ALL=C.UTF-8" "env: LC_ALL kept"
like "$out" "TZ=:Europe/Paris" "env: TZ kept"
like "$out" "KEEPME=1" "env: env_keep name kept"
out=$(env -i TERM='xterm;$(id)' "$APPLY" "${base[@]}" --env -- /usr/bin/env 2>&1)
unlike "$out" "TERM=" "env: TERM with shell metacharacters dropped"
out=$(env -i "$APPLY" "${base[@]}" --env --net tcp:443 -- /usr/bin/env 2>&1)
like "$out" "RES_OPTIONS=use-vc" "env: tcp:PORTS resolves names over TCP"
out=$(env -i HTTPS_PROXY=http://evil:1 "$APPLY" "${base[@]}" --env --env-keep HTTPS_PROXY \
	--net proxy -- /usr/bin/env 2>&1)
like "$out" "HTTPS_PROXY=http://127.0.0.1:3128" "env: proxy sets HTTPS_PROXY to the box's proxy, over env_keep"
like "$out" "NO_PROXY=localhost,127.0.0.1,::1" "env: proxy sets NO_PROXY to the box's loopback"

## Inherited fds are closed
exec 7<"$tmp/secret"
expect 2 "an inherited fd 7 is closed before confinement" -- read /proc/self/fd/7
exec 7<&-
finish
