# shellcheck shell=bash
# tests/e2e/pristine.sh — a view of this host as if agentbox had never been installed,
# for test worlds on a host that uses agentbox (installed from this tree, by `make demo`
# or from the package, with users enrolled).  Sourced by lib-e2e.sh and demo-overlay.sh.
#
#   pristine_scrub DIR...   remove agentbox's traces from this mount namespace's private
#                           copies; every DIR it edits must be one of them
#
# Without it the host's enrolment reached into the tests: the private /etc copy kept the
# pam-auth-update profile in common-session, so the installed module refused the tests'
# users ("su: cannot open session: System error"), a world's last unenroll found the
# host's /etc/agentbox, and the demo test met the host's user `agent`.
#
# Only files are edited, and only in copies private to the caller's mount namespace: no
# program with a side effect on the host runs (no unenroll: it deletes kernel audit
# rules; no userdel: it may touch lastlog; no signal).  The host keeps its enrolment.

# Refuse to edit a directory the world did not make its own: a bind mount or the overlay's
# root (AB_OVL_WORLD) are private, a plain host directory is not.
_pristine_private() {
	[ "${AB_OVL_WORLD:-}" = "$$" ] && return 0
	mountpoint -q "$1"
}

# Remove account NAME from the private /etc: passwd, shadow, its subordinate ids, its own
# group and its name in other groups' member lists (group, gshadow), and the cron/at deny
# lines enroll added (an emptied cron.deny goes, as unenroll does: admin/deny.c).  In
# place (printf >), so owners and modes stay.
_pristine_drop_account() {
	local u=$1 f tmp
	for f in /etc/passwd /etc/shadow /etc/subuid /etc/subgid; do
		[ -f "$f" ] && grep -q "^$u:" "$f" || continue
		tmp=$(awk -F: -v u="$u" '$1 != u' "$f") && printf '%s' "$tmp${tmp:+
}" > "$f" || return 1
	done
	for f in /etc/cron.deny /etc/at.deny; do
		[ -f "$f" ] && grep -qx -- "$u" "$f" || continue
		tmp=$(grep -vx -- "$u" "$f")
		if [ -z "$tmp" ] && [ "$f" = /etc/cron.deny ]; then
			rm -f "$f" || return 1
		else
			printf '%s' "$tmp${tmp:+
}" > "$f" || return 1
		fi
	done
	# group: name:pw:gid:members; gshadow: name:pw:admins:members.  Its own group is
	# the one of the same name (useradd's user private group).
	for f in /etc/group /etc/gshadow; do
		[ -f "$f" ] || continue
		tmp=$(awk -F: -v OFS=: -v u="$u" '
			$1 == u { next }
			{ n = split($4, m, ","); s = ""
			  for (i = 1; i <= n; i++) if (m[i] != u) s = s (s == "" ? "" : ",") m[i]
			  $4 = s; print }' "$f") && printf '%s\n' "$tmp" > "$f" || return 1
	done
}

pristine_scrub() {
	local d f u tmp
	for d in "$@"; do
		[ -e "$d" ] || continue
		_pristine_private "$d" || { echo "pristine: $d is not private to this world" >&2; return 1; }
	done
	# The PAM stacks: pam-auth-update's profile lines and enroll's hand-added ones, the
	# profile itself and pam-auth-update's memory of having seen it.
	for f in /etc/pam.d/*; do
		[ -f "$f" ] && grep -q pam_agentbox "$f" || continue
		sed -i '/pam_agentbox/d' "$f" || return 1
	done
	# agentbox run's own service is enroll's file as a whole (admin/pam.c), not a line.
	rm -f /usr/share/pam-configs/agentbox /etc/pam.d/agentbox-run || return 1
	if [ -f /var/lib/pam/seen ]; then sed -i '/^agentbox$/d' /var/lib/pam/seen || return 1; fi
	# pam-auth-update's record of what it last wrote to each stack: the profile's block,
	# "Module: agentbox" up to the next "Module:" line.
	for f in /var/lib/pam/*; do
		[ -f "$f" ] && grep -qx 'Module: agentbox' "$f" || continue
		tmp=$(awk '/^Module: / { skip = ($0 == "Module: agentbox") } !skip' "$f") &&
		    printf '%s\n' "$tmp" > "$f" || return 1
	done
	# Policy (with enroll's saved auditd values), sshd drop-ins, boot-time audit rules.
	rm -rf /etc/agentbox /etc/ssh/sshd_config.d/agentbox-*.conf \
	    /etc/audit/rules.d/agentbox-*.rules || return 1
	# The installed module (the world installs its own, or names the build's).
	for d in "$@"; do
		case $d in */security) rm -f "$d/pam_agentbox.so" || return 1 ;; esac
	done
	# Accounts: enrolled users (login shell agentbox-shell) and the proxy's system user.
	for u in $(awk -F: '$7 ~ /\/agentbox-shell$/ || $1 == "agentbox-netd" { print $1 }' /etc/passwd); do
		_pristine_drop_account "$u" || return 1
	done
}

# The overlay of the whole host (demo-overlay.sh) also hides what `make install` and
# `make demo` put elsewhere: the installed files (the product's own `make uninstall`,
# which only removes files: nothing is enrolled any more and this world's /run has no
# netns pin), the demo's directory, its users and their homes.  SRC is a source tree.
pristine_scrub_overlay() {
	local src=$1 u home
	[ "${AB_OVL_WORLD:-}" = "$$" ] || { echo "pristine: not in an overlay world" >&2; return 1; }
	for u in $(awk -F: '$7 ~ /\/agentbox-shell$/ { print $1 }' /etc/passwd) \
	    $(sed -n 's/^user //p' /srv/agentbox-demo/state 2>/dev/null); do
		home=$(awk -F: -v u="$u" '$1 == u { print $6 }' /etc/passwd)
		case $home in /home/?*) rm -rf "$home" || return 1 ;; esac
		_pristine_drop_account "$u" || return 1
	done
	pristine_scrub / || return 1
	if [ -e /usr/local/sbin/agentbox ] || [ -e /usr/local/sbin/agentbox-shell ]; then
		make -s -C "$src" uninstall PREFIX=/usr/local >/dev/null 2>&1 || return 1
	fi
	rm -rf /srv/agentbox-demo
	# The package: purged by dpkg (nothing is enrolled in this view any more, so prerm
	# lets it go).  Its maintainer scripts edit files; policy-rc.d (Debian's switch for
	# maintainer scripts' service actions) keeps them from touching a running daemon.
	if dpkg-query -W -f='${Status}' agentbox 2>/dev/null | grep -q 'ok installed'; then
		local made=
		if [ ! -e /usr/sbin/policy-rc.d ]; then
			printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d &&
			    chmod 0755 /usr/sbin/policy-rc.d && made=1 || return 1
		fi
		DEBIAN_FRONTEND=noninteractive dpkg --purge agentbox >/dev/null 2>&1 || return 1
		[ -z "$made" ] || rm -f /usr/sbin/policy-rc.d || return 1
	fi
}
