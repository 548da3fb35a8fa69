# tests/e2e/lib-e2e.sh — end-to-end harness, sourced after tests/lib.sh by root .t scripts.
#
#   . "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/lib-e2e.sh"
#   e2e_enter_private_world "$@"        # first thing: re-execs the script in its own world
#   e2e_enroll abt_x1 --project /home/p # the real `agentbox enroll`, undone by a defer
#   e2e_sshd_start 2299; e2e_ssh_key abt_x1; e2e_ssh abt_x1 2299 'id -u'
#   e2e_audit_since; ...provoke a denial...; e2e_audit_find agentbox 'name="/x/.env"'
#   e2e_assert_host_clean abt_x1
#   finish
#
# Also: e2e_ssh_bg (ssh in the background, E2E_BG_PID), e2e_sftp USER PORT BATCH,
# e2e_audit_records (raw records since the mark), e2e_fan_event SES [PATH] [INFO] (a live
# mask denial on the record), e2e_audit_rules_remove UID,
# e2e_wait_uid_gone UID [S], e2e_die MSG (a TAP failure that ends the test).
#
# The private world is a mount namespace in which /etc, /home, /usr/local, the PAM module
# directory, /usr/share/pam-configs, /var/lib/pam, /var/cache/debconf (pam-auth-update's
# answers), the cron/at spools and the top level of /run are private, so the product's real installer and `agentbox enroll` run
# unmodified and nothing they write reaches the host.  What a mount namespace cannot
# contain is kernel-global: audit rules (e2e_enroll's defer removes them by uid and
# e2e_assert_host_clean proves it), the kernel audit backlog (only ever raised), and
# auditd, which is the host's (it reloads the host's own auditd.conf on SIGHUP) and
# keeps writing /var/log/audit on the host, which is what the audit helpers read.
# On a host that uses agentbox (installed, users enrolled) the world starts pristine:
# pristine.sh removes the host's enrolment from these private copies, never the host's.
# Users created in a world get uids from a window of 100 private to that world (audit
# rules are per uid), registered on the host so a later world sweeps the rules of a
# world that was killed before its defers ran.
#
# Variables after e2e_enter_private_world:
#   E2E_DIR      private scratch directory (a tmpfs only this world sees; sessions get a
#                private /tmp, so agents cannot see it: put projects under /home)
#   E2E_HOST     the host's real /etc, /usr/share/pam-configs ... read-only, under it
#   E2E_AGENTBOX the installed admin tool, /usr/local/sbin/agentbox
#   E2E_UID_<user> the uid e2e_enroll saw for <user>
# Tunables (environment): E2E_NO_INSTALL=1 skips `make install` (the caller installs),
#   E2E_SSHD_SFTP sets the sftp subsystem (default Debian's /usr/lib/openssh/sftp-server).

. "$(dirname "${BASH_SOURCE[0]}")/pristine.sh"

E2E_AGENTBOX=/usr/local/sbin/agentbox
E2E_AUDIT_LOG=/var/log/audit/audit.log

e2e_die() { echo "1..1"; echo "not ok 1 - e2e harness: $*"; exit 1; }

# Bind a copy of DIR (which must exist) over DIR, so writes below it stay in this world.
# The host's own DIR stays visible, read-only, at $E2E_HOST/DIR (/proc/1/root is not
# reachable here: pid 1 is not dumpable), so tests can prove the host was not touched.
_e2e_private_copy() {
	local dir=$1 copy
	[ -d "$dir" ] || return 0
	copy="$E2E_DIR/copy$(echo "$dir" | tr / _)"
	mkdir -p "$E2E_HOST$dir" || return 1
	mount --bind "$dir" "$E2E_HOST$dir" &&
	    mount -o remount,bind,ro "$E2E_HOST$dir" || return 1
	cp -a "$dir" "$copy" || return 1
	mount --bind "$copy" "$dir"
}

# /run lives on the root file system here and sshd insists on /run/sshd: give this world
# a /run whose existing entries are the host's own (bind mounts: sockets and pid files
# keep working) but whose new top-level entries (/run/sshd, /run/agentbox ...) are
# private.  sshd.pid is left out on purpose: enroll SIGHUPs the pid it names, and inside
# a test world that must never be the host's sshd.
_e2e_private_run() {
	local r="$E2E_DIR/run" e name
	mkdir "$r" || return 1
	mount -t tmpfs -o mode=0755 e2e-run "$r" || return 1
	for e in /run/* /run/.[!.]*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		name=${e#/run/}
		case "$name" in sshd.pid) continue ;; esac
		if [ "$name" = user ] || [ "${name#agentbox}" != "$name" ]; then
			# Sessions make /run/user/UID, the module /run/agentbox*: private,
			# empty, same mode.
			mkdir "$r/$name" && chmod --reference="$e" "$r/$name" || return 1
		elif [ -L "$e" ]; then
			cp -P "$e" "$r/$name" || return 1
		elif [ -d "$e" ]; then
			mkdir "$r/$name" && mount --rbind "$e" "$r/$name" || return 1
		else
			: > "$r/$name" && mount --bind "$e" "$r/$name" || return 1
		fi
	done
	chmod --reference=/run "$r" || return 1
	mount --rbind "$r" /run
}

# A test killed with SIGKILL runs no defer, and its audit rules would stay in the kernel
# for good.  Every world registers its uid window on the host (/run/lock is the host's,
# see _e2e_private_run) with its pid and start time; a later world removes the rules of
# windows whose owner is gone (and the empty scratch directory it left in /tmp).
E2E_REGISTRY=/run/lock/agentbox-e2e

_e2e_start_time() { awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null; }

_e2e_sweep_stale() {
	local f base pid start dir uid
	mkdir -p -m 0700 "$E2E_REGISTRY" 2>/dev/null || return 0
	for f in "$E2E_REGISTRY"/*; do
		[ -f "$f" ] || continue
		base=${f##*/}
		read -r pid start dir < "$f" || true
		[ -n "$pid" ] && [ "$(_e2e_start_time "$pid")" = "$start" ] && continue
		for uid in $(auditctl -l 2>/dev/null | grep -oE -- '-F uid=[0-9]+' | cut -d= -f2 | sort -u); do
			if [ "$uid" -ge "$base" ] && [ "$uid" -lt $((base + 100)) ]; then
				e2e_audit_rules_remove "$uid"
			fi
		done
		# Its scratch mount point, now an empty directory on the host's /tmp.
		case "$dir" in /tmp/ab-e2e.*) rmdir "$dir" 2>/dev/null ;; esac
		rm -f "$f"
	done
}

# useradd inside every world would pick the same next free uid from its copy of
# /etc/passwd, and audit rules are per uid and kernel-global: two tests running at once
# would share rules.  Give this world its own window of 100 uids/gids, chosen from its
# pid and checked against the live audit rules and the host's passwd.
_e2e_uid_window() {
	# Windows between UID_MAX (60000) and nobody (65534): no host user there, and
	# lastlog/faillog, sparse files indexed by uid, stay small.
	local base tries=0
	base=$(( 60100 + ($$ % 50) * 100 ))
	_e2e_sweep_stale
	# Claimed atomically (noclobber): two worlds starting together never share one.
	until ! auditctl -l 2>/dev/null | grep -Eq "uid=$((base / 100))[0-9]{2}( |$)" &&
	      ! awk -F: -v b="$base" '$3 >= b && $3 < b + 100 { f = 1 } END { exit !f }' \
	          /etc/passwd /etc/group &&
	      (set -C; echo "$$ $(_e2e_start_time $$) $E2E_DIR" > "$E2E_REGISTRY/$base") 2>/dev/null; do
		base=$(( base + 100 )); tries=$((tries + 1))
		[ $base -lt 65100 ] || base=60100
		[ $tries -lt 50 ] || return 1
	done
	sed -i -E -e '/^(SYS_)?[UG]ID_(MIN|MAX)[[:space:]]/d' /etc/login.defs || return 1
	printf '%s\n' "UID_MIN $((base + 50))" "UID_MAX $((base + 99))" \
	    "GID_MIN $((base + 50))" "GID_MAX $((base + 99))" \
	    "SYS_UID_MIN $base" "SYS_UID_MAX $((base + 49))" \
	    "SYS_GID_MIN $base" "SYS_GID_MAX $((base + 49))" >> /etc/login.defs
	E2E_UID_BASE=$base
	defer "rm -f '$E2E_REGISTRY/$base'"
}

# Re-exec the calling script inside its own mount namespace (once: AB_E2E_WORLD holds the
# pid, which `unshare` without --fork keeps), then build the private world.  Call it as
# `e2e_enter_private_world "$@"` before anything else.
e2e_enter_private_world() {
	need_root
	if [ "${AB_E2E_WORLD:-}" != "$$" ]; then
		command -v unshare >/dev/null || skip_all "unshare(1) missing"
		export AB_E2E_WORLD=$$
		exec unshare --mount --propagation private -- "$BASH" "$0" "$@"
		e2e_die "exec unshare failed"
	fi
	[ -z "${E2E_DIR:-}" ] || return 0	# already inside, already built
	E2E_DIR=$(mktemp -d /tmp/ab-e2e.XXXXXX) || e2e_die "mktemp"
	mount -t tmpfs -o mode=0755 ab-e2e "$E2E_DIR" || e2e_die "tmpfs on $E2E_DIR"
	# Runs last (defers run in reverse): the host keeps no empty directory of ours.
	defer "umount -l '$E2E_DIR'; rmdir '$E2E_DIR'"
	E2E_HOST=$E2E_DIR/host

	local pamdir
	# The Makefile's default PAMDIR, which `make install` below uses.
	pamdir=/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)/security

	_e2e_private_copy /etc || e2e_die "private /etc"
	mount -t tmpfs -o mode=0755 e2e-home /home || e2e_die "tmpfs /home"
	mount -t tmpfs -o mode=0755 e2e-usr-local /usr/local || e2e_die "tmpfs /usr/local"
	mkdir -p "$pamdir" && _e2e_private_copy "$pamdir" || e2e_die "private $pamdir"
	mkdir -p /usr/share/pam-configs && _e2e_private_copy /usr/share/pam-configs ||
	    e2e_die "private /usr/share/pam-configs"
	_e2e_private_copy /var/lib/pam || e2e_die "private /var/lib/pam"
	# pam-auth-update keeps its answers in debconf's database, and locks it.
	_e2e_private_copy /var/cache/debconf || e2e_die "private /var/cache/debconf"
	_e2e_private_copy /var/spool/cron || e2e_die "private /var/spool/cron"
	_e2e_private_copy /var/mail || e2e_die "private /var/mail"
	_e2e_private_run || e2e_die "private /run"
	E2E_HOST_MOUNTS0=$(e2e_host_mounts)
	# A host that uses agentbox: this world starts as if it had never been installed.
	pristine_scrub /etc /usr/share/pam-configs /var/lib/pam "$pamdir" ||
	    e2e_die "a pristine view of the host"
	_e2e_uid_window || e2e_die "no free uid window"

	if [ -z "${E2E_NO_INSTALL:-}" ]; then
		make -s -C "$TOP" install PREFIX=/usr/local >"$E2E_DIR/install.log" 2>&1 ||
		    { sed 's/^/# /' "$E2E_DIR/install.log"; e2e_die "make install failed"; }
	fi
	_e2e_maskd_start || e2e_die "agentbox-maskd did not start"
}

# Every enrolled login hands its mounts to agentbox-maskd or is refused: this world's
# own daemon (the build tree's) on the default control socket, in this world's /run.
# E2E_MASKD_ARGS: extra options for it (learn.t restarts it with a small --learn-max).
_e2e_maskd_start() {
	local bin=$BUILD/agentbox-maskd i=0
	[ -x "$bin" ] || return 1
	# A daemon gone before leaves its socket: only the new one's means it is ready.
	rm -f /run/agentbox-maskd/control
	# Started from a subshell, so it is not a child of the test's shell: a test's bare
	# `wait` for its own background jobs (load.t) would otherwise wait for the daemon.
	# shellcheck disable=SC2086	# E2E_MASKD_ARGS: a test's extra options, split
	E2E_MASKD_PID=$( "$bin" --daemon --foreground ${E2E_MASKD_ARGS:-} \
	    >>"$E2E_DIR/maskd.log" 2>&1 </dev/null & echo $! )
	defer "kill $E2E_MASKD_PID"
	while [ ! -S /run/agentbox-maskd/control ]; do
		i=$((i + 1))
		[ $i -lt 100 ] && kill -0 "$E2E_MASKD_PID" 2>/dev/null ||
		    { sed 's/^/# maskd: /' "$E2E_DIR/maskd.log"; return 1; }
		sleep 0.05
	done
}

# The real `agentbox enroll`; the defer undoes it and removes the uid's live audit rules
# even if unenroll is broken or the test dies half way.
e2e_enroll() {
	local user=$1 uid
	[ -n "$user" ] || e2e_die "e2e_enroll: no user"
	# Registered before enrolling: a half-done enroll is undone too.
	defer "$E2E_AGENTBOX unenroll '$user' --remove-user"
	local rc=0
	"$E2E_AGENTBOX" enroll "$@" || rc=1
	# Even after a failed enroll: rules may be loaded for a uid that exists.
	uid=$(id -u "$user" 2>/dev/null) || return 1
	eval "E2E_UID_${user//[^A-Za-z0-9_]/_}=$uid"
	defer "e2e_audit_rules_remove $uid"
	[ $rc = 0 ] || return 1
	# A running test sshd must re-read its config to see the new Match block.
	if [ -n "${E2E_SSHD_PID:-}" ]; then
		kill -HUP "$E2E_SSHD_PID" && _e2e_wait_port "$E2E_SSHD_PORT"
	fi
}

# e2e_enroll with retries, or the test ends: pam-auth-update takes debconf's host-wide
# lock, so a test enrolling at the same moment makes it fail; enroll is idempotent.
# e2e_enroll_project USER PROJ [ENROLL OPTIONS...]: a world-readable project directory
# PROJ, then USER enrolled with it (e2e_enroll_retry).
e2e_enroll_project() {
	local user=$1 proj=$2
	shift 2
	mkdir -p "$proj" && chmod 0755 "$proj" || e2e_die "project $proj"
	e2e_enroll_retry "$user" --project "$proj" "$@"
}

e2e_enroll_retry() {
	local try
	for try in 1 2 3 4 5; do
		e2e_enroll "$@" && return 0
		sleep $((RANDOM % 3 + 1))
	done
	e2e_die "enroll $1"
}

# Delete every live audit rule that names uid=UID (kernel-global, so never left behind).
e2e_audit_rules_remove() {
	local uid=$1 rule
	auditctl -l 2>/dev/null | grep -E -- "-F uid=$uid( |$)" | while IFS= read -r rule; do
		# `auditctl -l` prints rules in the syntax auditctl takes back: -a -> -d.
		# shellcheck disable=SC2086
		auditctl -d ${rule#-a } >/dev/null 2>&1
	done
	# The audit scope rule exempts the uids whose rules are loaded: rebuilt without it.
	"$BUILD/agentbox" audit-scope >/dev/null 2>&1
	! auditctl -l 2>/dev/null | grep -Eq -- "-F uid=$uid( |$)"
}

_e2e_wait_port() {
	local port=$1 i=0
	while ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 100 ] || return 1
		sleep 0.05
	done
}

# A test sshd on 127.0.0.1:PORT and [::1]:PORT with its own host key and config, key
# authentication only, UsePAM, and the system's drop-ins (enroll's Match block).
e2e_sshd_start() {
	local port=$1 d="$E2E_DIR/sshd"
	[ -n "$port" ] || e2e_die "e2e_sshd_start: no port"
	mkdir -p "$d" /run/sshd && chmod 0755 /run/sshd || return 1
	[ -f "$d/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$d/host_ed25519" || return 1
	cat > "$d/sshd_config" <<-EOF
	Port $port
	ListenAddress 127.0.0.1
	ListenAddress ::1
	HostKey $d/host_ed25519
	PidFile $d/sshd.pid
	UsePAM yes
	PubkeyAuthentication yes
	AuthenticationMethods publickey
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PermitRootLogin no
	StrictModes yes
	LogLevel VERBOSE
	Subsystem sftp ${E2E_SSHD_SFTP:-/usr/lib/openssh/sftp-server}
	Include /etc/ssh/sshd_config.d/*.conf
	EOF
	/usr/sbin/sshd -t -f "$d/sshd_config" || return 1
	/usr/sbin/sshd -f "$d/sshd_config" -E "$d/sshd.log" || return 1
	local i=0
	while [ ! -s "$d/sshd.pid" ]; do
		i=$((i + 1)); [ $i -lt 100 ] || return 1
		sleep 0.05
	done
	E2E_SSHD_PID=$(cat "$d/sshd.pid")
	E2E_SSHD_PORT=$port
	defer "kill $E2E_SSHD_PID"
	_e2e_wait_port "$port"
}

# Install the harness's client key in USER's authorized_keys, owned and moded as sshd's
# StrictModes wants.
e2e_ssh_key() {
	local user=$1 home group d="$E2E_DIR/ssh"
	mkdir -p "$d" && chmod 0700 "$d" || return 1
	[ -f "$d/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$d/id_ed25519" || return 1
	home=$(getent passwd "$user" | cut -d: -f6) && [ -d "$home" ] || return 1
	group=$(id -g "$user") || return 1
	install -d -m 0700 -o "$user" -g "$group" "$home/.ssh" &&
	install -m 0600 -o "$user" -g "$group" "$d/id_ed25519.pub" "$home/.ssh/authorized_keys"
}

# ssh as USER to the test sshd.  Extra ssh options may come before the command with
# E2E_SSH_OPTS (e.g. "-tt" for a pty).
_e2e_ssh_argv() {
	local user=$1 port=$2
	# shellcheck disable=SC2206
	E2E_SSH_ARGV=(ssh -F /dev/null -i "$E2E_DIR/ssh/id_ed25519" -p "$port"
	    -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=no
	    -o UserKnownHostsFile="$E2E_DIR/ssh/known_hosts" -o GlobalKnownHostsFile=/dev/null
	    -o LogLevel=ERROR -o ConnectTimeout=10 ${E2E_SSH_OPTS:-} "$user@127.0.0.1")
}

e2e_ssh() {
	_e2e_ssh_argv "$1" "$2"
	shift 2
	"${E2E_SSH_ARGV[@]}" "$@"
}

# The same in the background: E2E_BG_PID is ssh's own pid (killing it ends the session),
# and a defer kills it if the test does not.
e2e_ssh_bg() {
	_e2e_ssh_argv "$1" "$2"
	shift 2
	"${E2E_SSH_ARGV[@]}" "$@" &
	E2E_BG_PID=$!
	defer "kill $E2E_BG_PID"
}

# Wait (up to TIMEOUT_S, default 5) until no process runs as UID: logouts are asynchronous.
e2e_wait_uid_gone() {
	local uid=$1 timeout=${2:-5} i=0
	while ps -e -o uid= | grep -qx " *$uid"; do
		i=$((i + 1)); [ $i -lt $((timeout * 10)) ] || return 1
		sleep 0.1
	done
}

# sftp as USER with a batch file (or - for stdin).
e2e_sftp() {
	local user=$1 port=$2 batch=$3
	sftp -F /dev/null -i "$E2E_DIR/ssh/id_ed25519" -P "$port" -b "$batch" \
	    -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=no \
	    -o UserKnownHostsFile="$E2E_DIR/ssh/known_hosts" -o GlobalKnownHostsFile=/dev/null \
	    -o LogLevel=ERROR "$user@127.0.0.1"
}

# Mark the audit log: later e2e_audit_find calls look only at records written after it.
# The mark is the log's inode and size, so a rotation in between is followed.
e2e_audit_since() {
	E2E_AUDIT_MARK_INO=$(stat -c %i "$E2E_AUDIT_LOG" 2>/dev/null || echo 0)
	E2E_AUDIT_MARK_OFF=$(stat -c %s "$E2E_AUDIT_LOG" 2>/dev/null || echo 0)
	E2E_AUDIT_MARK_TIME=$(date +%s)
}

# Records written since the mark.
e2e_audit_records() {
	local f
	[ -n "${E2E_AUDIT_MARK_INO:-}" ] || { echo "e2e_audit_since not called" >&2; return 1; }
	if [ "$(stat -c %i "$E2E_AUDIT_LOG")" = "$E2E_AUDIT_MARK_INO" ]; then
		tail -c +$((E2E_AUDIT_MARK_OFF + 1)) "$E2E_AUDIT_LOG"
		return
	fi
	# Rotated since the mark: the marked file is now audit.log.N; read its tail, then
	# every newer file in order.
	local n=1 older=""
	while [ -e "$E2E_AUDIT_LOG.$n" ]; do
		if [ "$(stat -c %i "$E2E_AUDIT_LOG.$n")" = "$E2E_AUDIT_MARK_INO" ]; then
			older=$n; break
		fi
		n=$((n + 1))
	done
	if [ -n "$older" ]; then
		tail -c +$((E2E_AUDIT_MARK_OFF + 1)) "$E2E_AUDIT_LOG.$older"
		for ((n = older - 1; n >= 1; n--)); do cat "$E2E_AUDIT_LOG.$n"; done
	fi
	cat "$E2E_AUDIT_LOG"
}

# e2e_audit_find KEY PATTERN [TIMEOUT_S]: print the events (all records sharing a serial)
# written since the mark that have a record with key="KEY" (KEY "-" means any event) and
# a record matching the extended regex PATTERN; succeed if there is one.  auditd flushes
# asynchronously, so it polls for up to TIMEOUT_S seconds (default 5).
e2e_audit_find() {
	local key=$1 pattern=$2 timeout=${3:-5} i=0 out
	while :; do
		out=$(e2e_audit_records | awk -v key="$key" -v pat="$pattern" '
			match($0, /msg=audit\([0-9.]+:[0-9]+\)/) {
				s = substr($0, RSTART, RLENGTH); sub(/.*:/, "", s); sub(/\)/, "", s)
				rec[s] = rec[s] $0 "\n"
				if (key == "-" || index($0, "key=\"" key "\"")) keyed[s] = 1
				if ($0 ~ pat) hit[s] = 1
				if (!(s in seen)) { seen[s] = 1; order[++n] = s }
			}
			END {
				for (i = 1; i <= n; i++)
					if ((order[i] in keyed) && (order[i] in hit)) { printf "%s", rec[order[i]]; f = 1 }
				exit !f
			}')
		if [ -n "$out" ]; then printf '%s\n' "$out"; return 0; fi
		i=$((i + 1)); [ $i -lt $((timeout * 10)) ] || return 1
		sleep 0.1
	done
}

# The host holds nothing of USER any more: no process, no audit rule for its uid, no
# mount of ours in the host's mount table.  UID defaults to what e2e_enroll saw.
e2e_assert_host_clean() {
	local user=$1 uid=${2:-}
	[ -n "$uid" ] || eval "uid=\${E2E_UID_${user//[^A-Za-z0-9_]/_}:-}"
	if [ -z "$uid" ]; then not_ok "host clean of $user: uid unknown"; return; fi
	local procs i=0
	# Logout is asynchronous (sshd reaps its children, init reaps the session): allow 3 s.
	while procs=$(ps -e -o uid=,pid=,args= | awk -v u="$uid" '$1 == u') && [ -n "$procs" ]; do
		i=$((i + 1)); [ $i -lt 30 ] || break
		sleep 0.1
	done
	is "$procs" "" "host clean: no process of $user (uid $uid)"
	is "$(auditctl -l 2>/dev/null | grep -E -- "-F uid=$uid( |$)")" "" \
	    "host clean: no live audit rule for uid $uid"
	is "$(e2e_host_mounts_new)" "" "host clean: no agentbox mount in the host's mount table"
}

# agentbox's mounts in the host's mount table, as mount point and fs type (ids change).
# The shared empty network namespace's pin (/run/agentbox-netns/*) is the module's by
# design, host-wide and not a session's.
e2e_host_mounts() {
	awk 'tolower($0) ~ /agentbox/ && $5 !~ "^/run/agentbox-netns/" {
		for (i = 7; $i != "-"; i++); print $5, $(i + 1) }' /proc/1/mountinfo | sort
}

# Those that were not there when the world was built: on a host that uses agentbox,
# what its own sessions hold is not this test's leak.
e2e_host_mounts_new() {
	comm -13 <(printf '%s\n' "$E2E_HOST_MOUNTS0" | sed '/^$/d') <(e2e_host_mounts)
}

# The npm cache of the three agents' CLIs (AB_NPM_CACHE, default
# /var/cache/agentbox-tests/npm) in E2E_NPM_CACHE: filled from the registry as root,
# outside any session, the first time a test needs it (sessions never reach a
# registry), always with all three, so whichever test runs first fills it for both.
E2E_AGENT_PKGS="@anthropic-ai/claude-code @openai/codex @google/gemini-cli"
e2e_npm_agents_cache() {
	E2E_NPM_CACHE=${AB_NPM_CACHE:-/var/cache/agentbox-tests/npm}
	command -v npm >/dev/null || skip_all "needs npm"
	[ -d "$E2E_NPM_CACHE/_cacache" ] && return 0
	mkdir -p "$E2E_NPM_CACHE" "$E2E_DIR/fill" && (cd "$E2E_DIR/fill" &&
	    echo '{}' > package.json && npm install --cache "$E2E_NPM_CACHE" --no-audit \
	    --no-fund $E2E_AGENT_PKGS >/dev/null 2>&1) ||
	    skip_all "cannot fill the npm cache from the registry"
}

# e2e_fan_event SES [PATH] [INFO]: an audit event holding type=FANOTIFY resp=2 (with
# fan_info=INFO, hex, if given), a SYSCALL record with ses=SES and (if given) a PATH
# record naming PATH: a live mask's denial on the record (auditd writes asynchronously:
# poll up to 5 s).
e2e_fan_event() {
	local i
	for i in $(seq 50); do
		e2e_audit_records | awk -v ses="$1" -v path="${2:-}" -v info="${3:-}" '
		    match($0, /msg=audit\([0-9.]+:[0-9]+\)/) {
			s = substr($0, RSTART, RLENGTH); sub(/.*:/, "", s)
			if ($0 ~ /type=FANOTIFY/ && $0 ~ / resp=2 / &&
			    (info == "" || $0 ~ (" fan_info=" info " ")))
				f[s] = 1
			if ($0 ~ /type=SYSCALL/ && $0 ~ (" ses=" ses " ")) y[s] = 1
			if (path == "" || ($0 ~ /type=PATH/ && index($0, path) > 0)) p[s] = 1
		    }
		    END { for (s in f) if ((s in y) && (s in p)) exit 0; exit 1 }' && return 0
		sleep 0.1
	done
	return 1
}
