#!/bin/bash
# Escape suite, class "races" (invariants 1-2): the project changes under the login's
# masking walk (a directory swapped with symlinks to / and to the developer's .ssh while
# logins run), and the developer changes secrets while a session runs (an editor's
# atomic save of .env: write a temp file, rename it over; a new secret file).  Masks are
# bind mounts made at login: a rename over a mount point in another namespace detaches
# it (DESIGN.md, known pitfalls).  Entered with su.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"

# X01: swap $P/swap between a real directory holding a .env and symlinks, as fast as
# possible, while 20 logins run.  Each login must be confined with the .env it finds
# masked (or not found), or be refused; never a leak, never a mount outside the project.
esc_as_dev "mkdir -p $P/swapdir && echo ABTSECRET-swap > $P/swapdir/.env" || e2e_die "setup"
# The module's shared empty network namespace is pinned by design with an nsfs mount in
# the caller's namespace at the first network=none login: not a session's mount.
count_mounts() { grep -cv ' nsfs ' /proc/self/mountinfo; }
mounts_before=$(count_mounts)
setpriv --reuid="$ESC_DEV" --regid="$ESC_DEV" --init-groups bash -c "
	cd $P || exit 1
	end=\$((SECONDS + 60))
	while [ \$SECONDS -lt \$end ]; do
		mv -T swapdir swap 2>/dev/null; mv -T swap swapdir 2>/dev/null
		ln -sfn / swap 2>/dev/null; rm -f swap
		ln -sfn $DH/.ssh swap 2>/dev/null; rm -f swap
	done" & swapper=$!
defer "kill $swapper"
leaks=0 refused=0 confined=0
for i in $(seq 1 20); do
	esc_begin "race-$i"
	attempt X01 "read swap/.env during a swap" 'EACCES|ENOENT|ENOTDIR' 'rec?' read "$P/swap/.env"
	attempt X01B "read swapdir/.env during a swap" 'EACCES|ENOENT|ENOTDIR' 'rec?' read "$P/swapdir/.env"
	attempt X01C "the host's / is untouched in the session" OK - readdir /etc
	esc_run su "" 30 >/dev/null
	if ! grep -q '^ESC ses' "$ESC_OUT"; then refused=$((refused + 1)); continue; fi
	grep -q SECRET-LEAKED "$ESC_OUT" && { leaks=$((leaks + 1)); diag "race $i: $(grep SECRET-LEAKED "$ESC_OUT")"; }
	grep -q 'ESC X01C 0 OK' "$ESC_OUT" || diag "race $i: /etc not listable: $(esc_result X01C)"
	grep -q 'seccomp=2' "$ESC_OUT" && confined=$((confined + 1))
done
kill $swapper 2>/dev/null; wait $swapper 2>/dev/null
diag "X01: 20 logins under symlink swaps: $confined confined, $refused refused, $leaks leaked"
is "$leaks" 0 "X01 no login under symlink swaps leaked the swapped .env"
is "$((confined + refused))" 20 "X01 every login under swaps was confined or refused"
is "$(count_mounts)" "$mounts_before" "X01 no mount of a session landed in the test's world"
diag "$(grep ' nsfs ' /proc/self/mountinfo | awk '{print "nsfs pin: " $5}')"
is "$(grep -c "$DH/.ssh\| / / .*agentbox" /proc/self/mountinfo)" 0 "X01 no mask followed a symlink out of the project"
esc_assert_gone "$ESC_AGENT"

# X02-X04: the developer edits secrets while the session runs: agentbox-maskd denies
# each at open (EPERM, fanotify), the mask mount of X02A still EACCES.
esc_begin live-edits
attempt X02A ".env before the developer's save"         EACCES rec read "$P/.env"
raw "touch $P/.esc-ready; for i in \$(seq 1 50); do [ -e $P/.esc-saved ] && break; sleep 0.1; done"
attempt X02 ".env after an atomic save (temp + rename over)" EPERM rec read "$P/.env"
attempt X03 "a new secret file (new.pem) made during the session" EPERM rec read "$P/new.pem"
attempt X04 "the editor's temp file (.env.tmp) left behind" EPERM rec read "$P/.env.tmp2"
(
	for i in $(seq 1 100); do [ -e "$P/.esc-ready" ] && break; sleep 0.1; done
	esc_as_dev "cd $P && echo 'API_KEY=ABTSECRET-saved' > .env.tmp && mv .env.tmp .env && echo ABTSECRET-newpem > new.pem && echo ABTSECRET-tmp2 > .env.tmp2 && touch .esc-saved"
) & dev=$!
esc_run su "" 60
wait $dev
esc_check
rm -f "$P/.esc-ready" "$P/.esc-saved" "$P/new.pem" "$P/.env.tmp2"
esc_assert_gone "$ESC_AGENT"
finish
