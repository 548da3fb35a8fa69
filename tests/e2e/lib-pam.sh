# tests/e2e/lib-pam.sh — pam_agentbox's own e2e helpers, sourced after lib.sh and
# lib-e2e.sh, after e2e_enter_private_world.  They drive the module straight from the
# build tree (root= and init= module arguments) with hand-written PAM lines in the
# world's private /etc/pam.d, so the module is tested apart from the installer.
#
#   pam_setup                      policy root, module line, agentbox-maskd, checks the build
#   pam_maskd_start [ARGS...]      (re)start this world's agentbox-maskd (pam_setup does)
#   pam_maskd_stop                 kill it (a test of what a login gets without it)
#   pam_policy <<EOF ... EOF       write the policy (root-owned 0644)
#   pam_stack su su-l sudo ...     append the module line to those private stacks
#   pam_user NAME [SHELL]          create NAME (home under the world's /home)
#   pam_authlog_since; pam_authlog_find REGEX     auth log lines written since the mark
#   pam_eperm_rule UID             an agentbox-keyed exit rule for UID's EPERM opens
#   pam_maskd_try                  TRY: the build's maskd-try where a session can run it

PAM_SO="$BUILD/pam_agentbox.so"
PAM_INIT="$BUILD/agentbox-init"
PAM_MASKD="$BUILD/agentbox-maskd"
PAM_AUTHLOG=/var/log/auth.log

pam_setup() {
	[ -f "$PAM_SO" ] && [ -x "$PAM_INIT" ] && [ -x "$PAM_MASKD" ] ||
	    e2e_die "build first: make $PAM_SO $PAM_INIT $PAM_MASKD"
	PAM_ROOT="$E2E_DIR/policy-root"
	install -d -m 0755 "$PAM_ROOT" "$PAM_ROOT/etc" "$PAM_ROOT/etc/agentbox" \
	    "$PAM_ROOT/etc/agentbox/policy.d" || e2e_die "policy root"
	# Only this test's module line: on a host where agentbox is installed, the world's
	# copy of the stacks would run the installed module too (with the host's policy).
	sed -i '/pam_agentbox\.so/d' /etc/pam.d/common-session /etc/pam.d/common-session-noninteractive \
	    /etc/pam.d/runuser /etc/pam.d/runuser-l 2>/dev/null
	# Every enrolled login hands its mounts to agentbox-maskd (live masks) or is refused:
	# this world's own daemon, from the build tree, on a socket of this world.
	PAM_MASKD_SOCK="$E2E_DIR/maskd/control"
	PAM_LINE="session required $PAM_SO root=$PAM_ROOT init=$PAM_INIT maskd=$PAM_MASKD_SOCK debug"
	pam_maskd_start || e2e_die "agentbox-maskd did not start"
	# This world's users are not enrolled: no exit rules of their own, so a loaded audit
	# scope rule (pam_module/auditscope.c) would not exempt them and the module would
	# refuse their logins.  Unloaded for the test; rebuilt from the live rules after.
	"$BUILD/agentbox" audit-scope --off >/dev/null || e2e_die "agentbox audit-scope --off"
	defer "'$BUILD/agentbox' audit-scope >/dev/null"
	# These tests look at the privileged half alone: the world the module builds, without
	# the shell's Landlock and seccomp (tests/e2e/shell.t covers those).  The module only
	# opens sessions whose login shell is agentbox-shell, so enrolled test users get a
	# stand-in of that name that runs bash (under /usr/local: the world's /tmp is private).
	PAM_WORLD_SHELL=/usr/local/lib/abt-pam/agentbox-shell
	install -d -m 0755 "${PAM_WORLD_SHELL%/*}" || e2e_die "stand-in shell dir"
	printf '#!/bin/sh\nexec /bin/bash "$@"\n' > "$PAM_WORLD_SHELL" &&
	    chmod 0755 "$PAM_WORLD_SHELL" || e2e_die "stand-in shell"
	# The world's /run binds the host's own entries; if the host has the module's pinned
	# netns directory, the sessions of this world must not write into it.
	if [ -d /run/agentbox-netns ]; then
		mount -t tmpfs -o mode=0700 abt-pam-netns /run/agentbox-netns ||
		    e2e_die "private /run/agentbox-netns"
	fi
}

# pam_eperm_rule UID: one narrow exit rule for UID's EPERM opens, keyed agentbox as enroll
# writes them: FANOTIFY records are only written while some syscall rule is loaded
# (research 2.3).  Keyed agentbox with one uid, it is an agent's rule: the audit scope
# rule is rebuilt to exempt UID (the module refuses a login a loaded scope does not
# exempt), and again without it once the rule is gone (defers run last first).
pam_eperm_rule() {
	local rule="-F arch=b64 -S open,openat,openat2 -F uid=$1 -F exit=-EPERM -k agentbox"

	defer "'$BUILD/agentbox' audit-scope >/dev/null"
	auditctl -a exit,always $rule >/dev/null || return 1
	defer "auditctl -d exit,always $rule"
	"$BUILD/agentbox" audit-scope >/dev/null
}

# pam_maskd_try: the build's tests/maskd-try installed where a session can run it (the
# world's private /usr/local: a session's /tmp is its own); TRY names it.
pam_maskd_try() {
	[ -x "$BUILD/tests/maskd-try" ] || e2e_die "build first: make $BUILD/tests/maskd-try"
	install -d -m 0755 /usr/local/lib/abt-pam &&
	    install -m 0755 "$BUILD/tests/maskd-try" /usr/local/lib/abt-pam/ || e2e_die "maskd-try"
	TRY=/usr/local/lib/abt-pam/maskd-try
}

# pam_maskd_start [ARGS...]: this world's agentbox-maskd in the foreground, its log in
# $E2E_DIR/maskd/log, its pid in PAM_MASKD_PID; waits for the socket.
pam_maskd_start() {
	mkdir -p "$E2E_DIR/maskd" && rm -f "$PAM_MASKD_SOCK" || return 1
	"$PAM_MASKD" --daemon --foreground --control "$PAM_MASKD_SOCK" "$@" \
	    >>"$E2E_DIR/maskd/log" 2>&1 &
	PAM_MASKD_PID=$!
	defer "kill $PAM_MASKD_PID 2>/dev/null"
	local i=0
	while [ ! -S "$PAM_MASKD_SOCK" ]; do
		i=$((i + 1))
		if [ $i -ge 100 ] || ! kill -0 "$PAM_MASKD_PID" 2>/dev/null; then
			sed 's/^/# maskd: /' "$E2E_DIR/maskd/log"; return 1
		fi
		sleep 0.05
	done
}
pam_maskd_stop() {
	kill -KILL "$PAM_MASKD_PID" 2>/dev/null
	wait "$PAM_MASKD_PID" 2>/dev/null
	rm -f "$PAM_MASKD_SOCK"
	return 0
}

pam_policy() {
	cat > "$PAM_ROOT/etc/agentbox/agentbox.conf" && chmod 0644 "$PAM_ROOT/etc/agentbox/agentbox.conf"
}

pam_stack() {
	local svc
	for svc in "$@"; do
		[ -f "/etc/pam.d/$svc" ] || e2e_die "no /etc/pam.d/$svc"
		grep -qF "$PAM_SO" "/etc/pam.d/$svc" || echo "$PAM_LINE" >> "/etc/pam.d/$svc"
	done
}

pam_user() {
	local user=$1 shell=${2:-/bin/bash}
	id "$user" >/dev/null 2>&1 && return 0
	useradd -m -s "$shell" "$user" >/dev/null 2>&1 || e2e_die "useradd $user"
	# Leftovers of a failed test: the pids of this world's own test uid, one by one.
	defer "ps -o pid= -u $(id -u "$user") | xargs -r kill -KILL"
}

pam_authlog_since() { PAM_AUTHLOG_OFF=$(stat -c %s "$PAM_AUTHLOG" 2>/dev/null || echo 0); }
# pam_authlog_find REGEX [TIMEOUT_S]: print matching lines since the mark (rsyslog is async).
pam_authlog_find() {
	local i=0 out
	while :; do
		out=$(tail -c +$((PAM_AUTHLOG_OFF + 1)) "$PAM_AUTHLOG" 2>/dev/null | grep -E -- "$1")
		if [ -n "$out" ]; then printf '%s\n' "$out"; return 0; fi
		i=$((i + 1)); [ $i -lt $(( ${2:-3} * 10 )) ] || return 1
		sleep 0.1
	done
}
