#!/bin/bash
# Escape suite, class "procs" (invariants 2-3: other processes are out of reach): ptrace,
# process_vm_readv, /proc/<pid>/environ and cmdline, signals and pidfds to processes
# outside the session (a root process, the developer's, one of the agent's own uid),
# another agent's session, core dumps.  Entered with `su -`.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"
esc_enroll "$ESC_AGENT2"

# Victims outside the session, each with a secret in its environment and a marker in
# its command line.
(esc_victim ABTVICTIM-root 300) & root_pid=$!
(esc_victim ABTVICTIM-dev 300 setpriv --reuid="$ESC_DEV" --regid="$ESC_DEV" --init-groups) & dev_pid=$!
# A process of the agent's own uid that is not in any session (left over from before
# enrollment, or started by root with setpriv): the same uid must not mean reachable.
# While one runs no login is let in, so it starts once the session is in.
esc_outside_later same env ABT_TOKEN=ABTSECRET-ABTVICTIM-same bash -c \
    "exec -a ABTVICTIM-same sleep 300"
defer "kill $root_pid $dev_pid"
# Another agent's live session, with its own marker process.
su "$ESC_AGENT2" -c "exec -a ABTVICTIM-other-session sleep 60" </dev/null >/dev/null 2>&1 & other=$!
defer "kill $other; esc_kill_user $ESC_AGENT2"
sleep 0.5

esc_begin procs
esc_outside_wait same SAME
attempt O01 "see a host root process"                ESRCH - seek-proc ABTVICTIM-root
attempt O02 "see the developer's process"            ESRCH - seek-proc ABTVICTIM-dev
attempt O03 "see a process of the agent's uid outside any session" ESRCH - seek-proc ABTVICTIM-same
attempt O04 "see another agent's session"            ESRCH - seek-proc ABTVICTIM-other-session
attempt O05 "signal a root process by host pid"      'ESRCH|EPERM' 'rec?' kill "$root_pid" 0
attempt_sh O06 "signal the same-uid process outside"    'ESRCH|EPERM' 'rec?' 'kill $SAME 9'
attempt_sh O07 "ptrace the same-uid process outside"    'ESRCH|EPERM' 'rec?' 'ptrace $SAME'
attempt_sh O08 "process_vm_readv the same-uid process outside" 'ESRCH|EPERM' 'rec?' 'pvread $SAME'
attempt O09 "pidfd_open the developer's process"     'ESRCH|EPERM' 'rec?' pidfd "$dev_pid"
attempt_sh O10 "read /proc/<pid>/environ of the same-uid process outside" 'ENOENT|EACCES' 'rec?' 'read /proc/$SAME/environ'
attempt O11 "read /proc/<pid>/cmdline of the developer's process" 'ENOENT|EACCES' 'rec?' read "/proc/$dev_pid/cmdline"
attempt O12 "read the session pid 1's environ (root)" 'EACCES|EPERM|ENOENT' 'rec?' read /proc/1/environ
attempt O13 "ptrace the session's pid 1"             'EPERM|ESRCH' 'rec?' ptrace 1
attempt O14 "SIGKILL the session's pid 1"            'EPERM|ESRCH' 'rec?' kill 1 9
raw "sleep 30 & S=\$!"
attempt_sh O15 "ptrace a sibling in the session (seccomp)" EPERM rec 'ptrace $S'
attempt_sh O16 "process_vm_readv a sibling (seccomp)" EPERM rec 'pvread $S'
raw "kill \$S"
attempt O17 "core dump (lands in the session's cwd, no pipe helper)" ANY - coredump
esc_run su-
esc_check
esc_assert_confined
# The victims are alive and untouched.
same_pid=$(cat "$E2E_DIR/outside-same.pid" 2>/dev/null)
must_pass kill -0 "${same_pid:-0}"
must_pass kill -0 "$root_pid"
esc_outside_refuses same
case "$(cat /proc/sys/kernel/core_pattern)" in
'|'*) not_ok "O17 core_pattern is a pipe helper running as root outside the session: $(cat /proc/sys/kernel/core_pattern)" ;;
*) ok "O17 core_pattern is a file name ($(cat /proc/sys/kernel/core_pattern)): a core stays in the session's own tree" ;;
esac
rm -f "$P"/core "$P"/core.*

esc_assert_gone "$ESC_AGENT"
finish
