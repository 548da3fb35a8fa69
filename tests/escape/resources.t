#!/bin/bash
# Escape suite, class "resources" (invariants 1 and 4, and "must not hurt the host"):
# a fork bomb and a memory hog (bounded by limits this test sets with prlimit: agentbox
# sets none of its own), filling the private /tmp, and a project booby-trapped for the
# next login's masking walk: FIFOs with masked names, 50,000 files in one directory,
# 1,000-deep nesting, symlink loops and hostile names.  Entered with su.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"

esc_begin resources
attempt R01 "fork bomb (RLIMIT_NPROC 256 set by the test)" 'EAGAIN' - forkbomb 2
attempt R02 "memory hog (RLIMIT_AS 512 MiB set by the test)" ENOMEM - memhog 2048
raw "grep ' /tmp ' /proc/self/mounts | sed 's/^/ESC R03M 0 OK /'"
attempt R03 "fill the private /tmp (2 GiB)"          ENOSPC - fill /tmp/esc-fill 2048
t0=$(date +%s.%N)

ESC_NAME=resources
echo 'echo ESC-END' >> "$ESC_SCRIPT"; chmod 0755 "$ESC_SCRIPT"
ESC_OUT="$E2E_DIR/out-resources" ESC_VIA=su
e2e_audit_since
# Limits from outside the box, inherited through su into the session.
timeout 120 prlimit --nproc=256:256 --as=$((512 << 20)):$((512 << 20)) -- \
    su "$ESC_AGENT" -c "bash $ESC_SCRIPT" </dev/null >"$ESC_OUT" 2>&1
ESC_SES=$(sed -n 's/^ESC ses 0 OK .*ses=\([0-9]*\).*/\1/p' "$ESC_OUT" | head -n 1)
t1=$(date +%s.%N)
esc_check
diag "session with fork bomb, memory hog and /tmp fill: $(echo "$t1 - $t0" | bc) s"
diag "private /tmp: $(sed -n 's/^ESC R03M 0 OK //p' "$ESC_OUT")"
like "$(sed -n 's/^ESC R03M 0 OK //p' "$ESC_OUT")" "size=" "R03 the private /tmp has a size limit"
esc_assert_gone "$ESC_AGENT"

login_ms() {	# median of 3 `su AGENT -c true`, in ms
	local i t0 t1 ts=""
	for i in 1 2 3; do
		t0=$(date +%s%N); su "$ESC_AGENT" -c true </dev/null >/dev/null 2>&1; t1=$(date +%s%N)
		ts="$ts $(( (t1 - t0) / 1000000 ))"
	done
	echo $ts | tr ' ' '\n' | sort -n | sed -n 2p
}
clean_ms=$(login_ms)

# Booby-trap the project for the next login (as the agent, inside a session).
esc_begin traps
raw "cd $P && mkfifo trap.pem .env.trap docs/fifo.key && mkdir -p huge && cd huge && for i in \$(seq 1 50000); do : > f\$i; done; cd $P"
raw "ln -s loop1 $P/loop2; ln -s loop2 $P/loop1; ln -s / $P/rootlink; ln -s $DH/.ssh $P/devssh"
raw "touch \"$P/\$(printf 'new\\nline.pem')\" \"$P/\$(printf 'bad\\xff\\xfe.key')\" \"$P/\$(head -c 250 /dev/zero | tr '\\0' a).pem\""
attempt R04 "set the traps" OK - status
esc_run su "" 300
esc_check

trapped_ms=$(login_ms)
diag "login (su AGENT -c true, median of 3): clean project $clean_ms ms; with 50,000 files, FIFOs, loops: $trapped_ms ms"
[ "$trapped_ms" -lt 5000 ] && ok "R09 a project of 50,000 files slows the next login to $trapped_ms ms (< 5 s)" ||
    not_ok "R09 a project of 50,000 files slows every later login to $trapped_ms ms (clean: $clean_ms ms)"

esc_begin after-traps
attempt R05 "read a FIFO named like a mask (trap.pem)"  EACCES rec read "$P/trap.pem"
attempt R07 "read a hostile-named .pem (newline)"       EACCES rec read "$P/new
line.pem"
attempt R08 "read the developer's .ssh via a symlink in the project" EACCES rec readdir "$P/devssh"
t0=$(date +%s.%N)
esc_run su "" 120
t1=$(date +%s.%N)
secs=$(echo "$t1 - $t0" | bc)
diag "login + attempts with a trapped project: $secs s"
if grep -q '^ESC-END' "$ESC_OUT"; then
	ok "R04 the next login is not hung by FIFOs, 50,000 files, deep nesting or symlink loops"
	esc_check
	esc_assert_confined
	[ "$(echo "$secs < 15" | bc)" = 1 ] && ok "R04 login with the trapped project within 15 s ($secs s)" ||
	    not_ok "R04 login with the trapped project took $secs s"
else
	# Refusing is acceptable (fail closed) if the reason is in the auth log.
	if grep -qs "agentbox" /var/log/auth.log && tail -n 50 /var/log/auth.log | grep -q "pam_agentbox"; then
		ok "R04 the next login was refused with a reason in the auth log: $(tail -n 50 /var/log/auth.log | grep pam_agentbox | tail -n 1 | cut -c1-200)"
	else
		not_ok "R04 the next login failed with no reason logged"
	fi
	diag "$(tail -n 5 "$ESC_OUT")"
fi
rm -rf "$P/huge" "$P"/trap.pem "$P"/.env.trap "$P"/docs/fifo.key "$P"/loop1 "$P"/loop2 "$P"/rootlink "$P"/devssh "$P"/new*line.pem "$P"/bad*.key "$P"/aaaa*.pem
esc_assert_gone "$ESC_AGENT"

# R06: 1,000-deep nesting with a .env at the bottom.  The walk may refuse the login
# (fail closed, reason in the auth log) or mask it; never let it through unmasked.
esc_begin deep
raw "d=$P/deep; for i in \$(seq 1 1000); do d=\$d/d; done; mkdir -p \$d && echo ABTSECRET-deep > \$d/.env; echo \"ESC R06A \$? made\""
expect R06A "make a 1,000-deep tree with a .env at the bottom" ANY -
esc_run su "" 60
esc_check
esc_begin after-deep
attempt R06 "read .env 1,000 directories deep"          'EACCES' rec read "$P/deep/$(printf 'd/%.0s' $(seq 1 1000)).env"
authmark=$(stat -c %s /var/log/auth.log)
esc_run su "" 60
if grep -q '^ESC-END' "$ESC_OUT"; then
	esc_check
else
	why=$(tail -c +$((authmark + 1)) /var/log/auth.log | grep "refusing session of $ESC_AGENT" | tail -n 1 | sed 's/\(d\/\)\{8,\}/d\/...\//')
	like "$why" "deep" "R06 the login is refused, naming the deep path, rather than left unmasked"
	diag "refusal: ${why:0:300}"
fi
rm -rf "$P/deep"
esc_assert_gone "$ESC_AGENT"
finish
