#!/bin/bash
# Escape suite, class "tty" (invariants 3-4): `su` without --pty shares root's terminal
# in a tmux pane.  TIOCSTI (also with high bits in the ioctl number) and TIOCLINUX must
# inject nothing into root's shell; a process trying to keep the terminal past logout to
# write to it or to read what root types next must be gone at logout.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"

later_log="$P/tty-later.log"
esc_begin tty
attempt T01 "TIOCSTI into root's terminal"              EPERM rec tiocsti lo 'touch /tmp/abt-esc-pwned
'
attempt T02 "TIOCSTI with high bits set in the ioctl number" EPERM rec tiocsti hi 'touch /tmp/abt-esc-pwned
'
attempt T03 "TIOCLINUX selection paste"                 'EPERM|ENOTTY|EINVAL' 'rec?' tioclinux
attempt T04 "keep the terminal past logout (double fork, setsid, SIGHUP ignored)" OK - tty-later 3 'LATER-WRITE-MARK' "$later_log"
echo 'echo ESC-END' >> "$ESC_SCRIPT"; chmod 0755 "$ESC_SCRIPT"

sock="$E2E_DIR/tmux.sock" out="$E2E_DIR/out-tty"
ESC_OUT=$out ESC_VIA=tmux
rm -f /tmp/abt-esc-pwned
e2e_audit_since
tmux -S "$sock" new-session -d -x 200 -y 50 \
    "su $ESC_AGENT -c 'bash $ESC_SCRIPT' >$out 2>&1; read -t 2 L; echo \"ROOT-READ:[\$L]\" >$out.root; tmux -S $sock wait-for -S esc-done; sleep 20" ||
    e2e_die "tmux"
defer "tmux -S $sock kill-server"
timeout 60 tmux -S "$sock" wait-for esc-done || not_ok "tmux pane finished"
ESC_SES=$(sed -n 's/^ESC ses 0 OK .*ses=\([0-9]*\).*/\1/p' "$out" | head -n 1)
# Logged out now.  Type into the pane what a person would type next.
tmux -S "$sock" send-keys "TYPED-AFTER-LOGOUT-ABTSECRET" Enter
sleep 6
screen=$(tmux -S "$sock" capture-pane -p)
esc_check
esc_assert_confined
is "$(cat "$out.root" 2>/dev/null)" "ROOT-READ:[]" "T01/T02 root's shell read nothing injected after su returned"
must_fail test -e /tmp/abt-esc-pwned
unlike "$screen" "LATER-WRITE-MARK" "T05 nothing of the session wrote to the terminal after logout"
if [ -e "$later_log" ]; then
	not_ok "T06 a process of the session outlived logout holding the terminal"
	diag "$(cat "$later_log")"
	unlike "$(cat "$later_log")" "TYPED-AFTER-LOGOUT" "T06 keystrokes typed after logout were not read by the session"
else
	ok "T06 no process of the session outlived logout (nothing read what was typed next)"
fi
rm -f "$later_log" /tmp/abt-esc-pwned

esc_assert_gone "$ESC_AGENT"
finish
