# shellcheck shell=bash
# tests/e2e/demo-overlay.sh — a throw-away copy of the whole host for tests that install
# system-wide (tools/demo, the Debian package), sourced after tests/lib.sh.
#
#   ovl_enter "$@"          first thing: re-exec the script with / an overlay of the host
#   ...install, enroll, run, remove...
#   ovl_leftovers           print files the test left in the world that the host lacks
#   finish
#
# The demo and dpkg write anywhere (/usr, /etc, /srv, /home, /var/lib/dpkg): a bind copy
# of a few directories (lib-e2e.sh) cannot hold them.  Instead the script re-execs itself
# in a private mount namespace whose root is an overlayfs: the host's root file system
# read-only below, a tmpfs above that takes every write, then pivot_root.  The host's
# root is kept at $OVL_HOST (read it only) so the test can compare what changed, and the
# upper layer, $OVL_UPPER, *is* the list of what changed.
#
# Shared with the host, because a mount namespace cannot hold them: /dev, /sys, /proc of
# the pid namespace, the kernel's audit rules (ovl_enter removes every rule naming this
# world's uids on exit) and auditd, which keeps writing the host's /var/log/audit (bound
# in so agentbox-audit reads the live log).  Users get uids from a window of 100 no
# other test uses (lib-e2e.sh takes 200000-900099; this takes 950000-989999).

OVL_HOST=/run/ab-ovl-host
. "$(dirname "${BASH_SOURCE[0]}")/pristine.sh"

ovl_die() { echo "1..1"; echo "not ok 1 - overlay world: $*"; exit 1; }

# Delete every live audit rule naming a uid in [BASE, BASE+99]: kernel-global state.
ovl_audit_rules_remove() {
	local base=$1 rule
	auditctl -l 2>/dev/null | grep -E -- "-F (uid|auid)=$((base / 100))[0-9]{2}( |$)" |
	while IFS= read -r rule; do
		# shellcheck disable=SC2086
		auditctl -d ${rule#-a } >/dev/null 2>&1
	done
}

# Kill what is left of this world's uids (a failed test can leave a session behind).
ovl_kill_uids() {
	local base=$1
	ps -e -o uid=,pid= | awk -v b="$base" '$1 >= b && $1 < b + 100 { print $2 }' |
	    xargs -r kill -KILL 2>/dev/null || true
}

_ovl_uid_window() {
	local base tries=0
	base=$(( 950000 + ($$ % 400) * 100 ))
	while auditctl -l 2>/dev/null | grep -Eq "uid=$((base / 100))[0-9]{2}( |$)" ||
	      ps -e -o uid= | awk -v b="$base" '$1 >= b && $1 < b + 100 { f = 1 } END { exit !f }' ||
	      awk -F: -v b="$base" '$3 >= b && $3 < b + 100 { f = 1 } END { exit !f }' /etc/passwd; do
		base=$(( base + 100 ))
		[ $base -lt 990000 ] || base=950000
		tries=$((tries + 1)); [ $tries -lt 400 ] || return 1
	done
	sed -i -E -e '/^(SYS_)?[UG]ID_(MIN|MAX)[[:space:]]/d' /etc/login.defs || return 1
	printf '%s\n' "UID_MIN $((base + 50))" "UID_MAX $((base + 99))" \
	    "GID_MIN $((base + 50))" "GID_MAX $((base + 99))" \
	    "SYS_UID_MIN $base" "SYS_UID_MAX $((base + 49))" \
	    "SYS_GID_MIN $base" "SYS_GID_MAX $((base + 49))" >> /etc/login.defs
	OVL_UID_BASE=$base
}

ovl_enter() {
	need_root
	if [ "${AB_OVL_WORLD:-}" != "$$" ]; then
		command -v unshare >/dev/null || skip_all "unshare(1) missing"
		grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
		    skip_all "no overlayfs in this kernel"
		export AB_OVL_WORLD=$$
		# shellcheck disable=SC2093  # exec on purpose: the script re-runs inside
		exec unshare --mount --propagation private -- "$BASH" "$0" "$@"
		ovl_die "exec unshare failed"
	fi
	local d m
	for d in /media /mnt /srv ""; do [ -d "$d" ] && break; done
	[ -n "$d" ] || ovl_die "no /media, /mnt or /srv to mount the layers on"
	# The layers live on a tmpfs mounted, in this namespace only, over an existing empty
	# directory: the host gets no new directory, and the tmpfs dies with the namespace.
	mount -t tmpfs -o mode=0755 ab-ovl "$d" || ovl_die "tmpfs on $d"
	mkdir "$d/upper" "$d/work" "$d/root" || ovl_die "mkdir in $d"
	m=$d/root
	mount -t overlay ab-ovl -o "lowerdir=/,upperdir=$d/upper,workdir=$d/work" "$m" ||
	    ovl_die "overlayfs over /"
	mount --rbind /dev "$m/dev" && mount --rbind /sys "$m/sys" &&
	    mount -t proc proc "$m/proc" || ovl_die "/dev /sys /proc"
	mount -t tmpfs -o mode=1777 ab-ovl-tmp "$m/tmp" && mount -t tmpfs -o mode=0755 ab-ovl-run "$m/run" ||
	    ovl_die "tmpfs /tmp /run"
	mount --bind /var/log/audit "$m/var/log/audit" || ovl_die "bind /var/log/audit"
	mkdir -p "$m$OVL_HOST" || ovl_die "mkdir $OVL_HOST"
	cd "$m" && pivot_root . "${OVL_HOST#/}" || ovl_die "pivot_root"
	cd / || ovl_die "cd /"
	OVL_UPPER=$OVL_HOST$d/upper
	_ovl_uid_window || ovl_die "no free uid window"
	defer "ovl_audit_rules_remove $OVL_UID_BASE"
	defer "ovl_kill_uids $OVL_UID_BASE"
	# A copy of the source tree on this world's /tmp (not in the upper layer): the test
	# builds what is in the checkout, never touching the checkout's build/.  Read through
	# the host's root: a checkout under /tmp or /run (CI clones anywhere) is hidden by
	# this world's own /tmp and /run, and the overlay shows no submount of the host.
	OVL_SRC=/tmp/agentbox-src
	mkdir "$OVL_SRC" && tar -C "$OVL_HOST$TOP" --exclude=./build --exclude=./.git -cf - . |
	    tar -C "$OVL_SRC" -xf - || ovl_die "copy of the source tree"
	# A host that uses agentbox (make demo, make install, users enrolled): this world
	# starts as if it had never been installed (pristine.sh), and what that took away is
	# the baseline ovl_leftovers compares with, not a change the test made.
	pristine_scrub_overlay "$OVL_SRC" || ovl_die "a pristine view of the host"
	OVL_BASELINE=$OVL_HOST$d/baseline
	_ovl_upper_state > "$OVL_BASELINE" || ovl_die "baseline of the pristine view"
}

# What the upper layer holds, one line per file: path, then "whiteout", "-> TARGET" or
# the content's digest.
_ovl_sig() {
	local f=$1
	if [ -c "$OVL_UPPER/$f" ] && [ "$(stat -c %t:%T "$OVL_UPPER/$f")" = 0:0 ]; then
		echo whiteout
	elif [ -L "$OVL_UPPER/$f" ]; then
		echo "-> $(readlink "$OVL_UPPER/$f")"
	else
		sha256sum < "$OVL_UPPER/$f" | cut -d' ' -f1
	fi
}
_ovl_upper_state() {
	( cd "$OVL_UPPER" && find . ! -type d -printf '%P\n' ) | sort | while IFS= read -r f; do
		printf '%s\t%s\n' "$f" "$(_ovl_sig "$f")"
	done
}

# Files (not directories) in the upper layer that the host lacks or that differ from the
# host's, minus the paths matching the extended regex ALLOWED (logs, caches, databases
# that record the test happened) and those the pristine view already had exactly so
# (the host's own agentbox, taken away by ovl_enter).  A whiteout (a file the test
# deleted) counts too.
ovl_leftovers() {
	local allowed=$1
	( cd "$OVL_UPPER" && find . ! -type d -printf '%P\n' ) | sort | while IFS= read -r f; do
		printf '%s\n' "/$f" | grep -Eq -- "$allowed" && continue
		# As the pristine view had it (ovl_enter's baseline): not the test's doing.
		grep -qxF -- "$f	$(_ovl_sig "$f")" "$OVL_BASELINE" && continue
		if [ -c "$OVL_UPPER/$f" ] && [ "$(stat -c %t:%T "$OVL_UPPER/$f")" = 0:0 ]; then
			echo "deleted: /$f"
		elif [ ! -e "$OVL_HOST/$f" ] && [ ! -L "$OVL_HOST/$f" ]; then
			echo "added: /$f"
		elif [ -L "$OVL_UPPER/$f" ]; then
			[ "$(readlink "$OVL_UPPER/$f")" = "$(readlink "$OVL_HOST/$f")" ] || echo "changed: /$f"
		elif ! cmp -s "$OVL_UPPER/$f" "$OVL_HOST/$f"; then
			echo "changed: /$f"
		fi
	done
}
