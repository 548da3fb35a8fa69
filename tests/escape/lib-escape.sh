# tests/escape/lib-escape.sh — the attacker's harness, sourced by every tests/escape/*.t
# after tests/lib.sh and tests/e2e/lib-e2e.sh.
#
#   esc_world "$@"                     private world, developer + project + secrets, enroll
#   esc_begin NAME                     start a session script
#   attempt ID "what" EXPECT AUDIT OP ARGS...   queue one attempt (esc ID OP ARGS...)
#   raw 'shell line'                   queue a line of shell run inside the session
#   esc_run VIA [USER]                 run it: VIA = su | su- | sudo | ssh | tmux
#   esc_check                          assert every queued attempt (TAP)
#   attempt_bg ID "what" EXPECT AUDIT 'ARGS'   attempt_sh in the session's background
#   esc_run_bg VIA / esc_bg_wait       a session left running while a second one runs
#
# EXPECT is the errno names allowed as the outcome, '|'-separated (EACCES|EPERM), OK
# when the operation must work, !OK for "anything but success", ANY to only report.  AUDIT is `rec` when
# the kernel denies it and the denial must be on the record (kernel record with the
# session's ses= and the attempt's comm=, and agentbox-audit's review of that session),
# `rec?` when only an EACCES/EPERM/EROFS outcome is a denial (EXDEV, EBUSY are not), and
# `-` when the outcome is "unreachable" and no denial exists to record.
#
# Every attempt runs as `esc ID OP ARGS`, which renames itself e-ID: that comm is how
# records are tied to attempts.  A leaked secret always fails the attempt: every planted
# secret contains the marker ABTSECRET and esc reports SECRET-LEAKED when it reads one.

# Known gaps (tests/escape/known-gaps.tsv: ID, reason): attempts that still succeed
# because neither the kernel nor agentbox has a defence yet.  They keep running and keep
# printing "not ok"; TAP's TODO directive makes prove report them without failing the
# run.  Every row is listed in README.md's limitations and tests/escape/README.md.  A
# HOLE that agentbox can close is never listed here: it is fixed.
declare -A ESC_GAP=()
while IFS=$'\t' read -r _gid _gwhy; do
	case $_gid in ''|'#'*) continue ;; esac
	ESC_GAP[$_gid]=$_gwhy
done < "$TOP/tests/escape/known-gaps.tsv"
not_ok() {
	local id=${1%% *}
	n=$((n + 1))
	if [ -n "${ESC_GAP[$id]:-}" ]; then
		echo "not ok $n - $* # TODO known gap: ${ESC_GAP[$id]}"
		return
	fi
	failed=1
	echo "not ok $n - $*"
}

ESC_LIB=/usr/local/lib/abt-esc		# private /usr/local: root-owned, agent can't edit
ESC=$ESC_LIB/esc
ESC_AGENT=abt_esc1
ESC_AGENT2=abt_esc2
ESC_DEV=abt_vdev
ESC_PORT=2207
DH=/home/$ESC_DEV			# developer's home
P=$DH/proj				# the project the agent is enrolled on

# ---------------------------------------------------------------------- the world

esc_world() {
	e2e_enter_private_world "$@"
	[ -x "$BUILD/escape/esc" ] || e2e_die "build/escape/esc missing: run make first"
	install -D -m 0755 "$BUILD/escape/esc" "$ESC" || e2e_die "install esc"
	[ -x "$E2E_AGENTBOX" ] || e2e_die "agentbox not installed ($E2E_AGENTBOX)"
	esc_make_developer || e2e_die "developer account and project"
	esc_enroll "$ESC_AGENT"
	AH=$(getent passwd "$ESC_AGENT" | cut -d: -f6)
	# The agent's own keys: masked by the default policy (.ssh/, id_ed25519*).
	install -d -m 0700 -o "$ESC_AGENT" -g "$ESC_AGENT" "$AH/.ssh" &&
	    echo ABTSECRET-agentkey | install -m 0600 -o "$ESC_AGENT" -g "$ESC_AGENT" /dev/stdin "$AH/.ssh/id_ed25519" ||
	    e2e_die "agent ssh key"
	defer "esc_kill_user $ESC_AGENT"
	ESC_AUDIT_TOOL=$(command -v agentbox-audit || echo /usr/local/bin/agentbox-audit)
}

# enroll USER on the project.  pam-auth-update takes debconf's lock, which lives in the
# host's /var/cache/debconf (not private to the e2e world): another test enrolling at the
# same moment makes it fail with EIO.  Retry that case only, a few times.
esc_enroll() {
	local try
	for try in 1 2 3 4 5; do
		e2e_enroll "$1" --project "$P" >"$E2E_DIR/enroll-$1.log" 2>&1 && return 0
		grep -q "debconf.*locked" "$E2E_DIR/enroll-$1.log" || break
		diag "enroll $1: debconf locked by a concurrent test, retry $try"
		sleep 3
	done
	sed 's/^/# /' "$E2E_DIR/enroll-$1.log"
	e2e_die "agentbox enroll $1"
}

# The developer whose project the agent works in, with the secrets a real one has.
# Every secret holds ABTSECRET so a leak is recognised wherever it shows up.
esc_make_developer() {
	id "$ESC_DEV" >/dev/null 2>&1 || useradd -m -s /bin/bash "$ESC_DEV" || return 1
	chmod 0755 "$DH"
	defer "userdel -r $ESC_DEV"
	esc_as_dev "
	set -e
	umask 022
	mkdir -p ~/.ssh $P/certs $P/secrets $P/src $P/docs $P/.vscode
	chmod 700 ~/.ssh
	echo ABTSECRET-devkey > ~/.ssh/id_ed25519; chmod 600 ~/.ssh/id_ed25519
	echo ABTSECRET-devnotes > ~/notes.txt
	echo '# dev bashrc' > ~/.bashrc; echo '# dev profile' > ~/.profile
	cd $P
	echo 'API_KEY=ABTSECRET-env' > .env
	echo 'API_KEY=ABTSECRET-envlocal' > .env.local
	echo 'API_KEY=ABTSECRET-ENVUPPER' > .ENV
	echo 'ABTSECRET-envswap' > .env.swp
	echo 'ABTSECRET-pembackup' > key.pem~
	echo 'ABTSECRET-pem' > certs/server.pem
	echo 'ABTSECRET-dbpass' > secrets/db.txt
	echo 'ABTSECRET-keyfile' > deploy.key
	echo 'int main(void) { return 0; }' > src/main.c
	echo 'all: ; cc -o main src/main.c' > Makefile
	echo 'export FOO=1' > .envrc
	echo '{\"version\": \"2.0.0\", \"tasks\": []}' > .vscode/tasks.json
	git init -q . && git config user.email dev@example.com && git config user.name dev
	git add src Makefile && git commit -qm init
	" || return 1
}

# A sleeping process whose command line carries MARKER (argv[0]), for "can the session
# see or touch it" attempts: esc_victim MARKER SECS [setpriv args...] &
esc_victim() {
	local marker=$1 secs=$2
	shift 2
	exec "$@" env ABT_TOKEN="ABTSECRET-$marker" bash -c "exec -a '$marker' sleep $secs"
}

# A process of the agent's own uid outside any box refuses every login of the agent
# while it runs (DESIGN invariant 3, agentbox-maskd's watcher), but not the session that
# is already in: the attacks through one are tried from a session started first.
# esc_outside_later NAME CMD...: once the session's script has run esc_outside_wait NAME,
# start CMD as the agent outside any box (waiting for the path in $ESC_OUTSIDE_READY, if
# set, to exist) and hand its pid to the session in $P/.esc-NAME.pid; the test's own
# copy of the pid is in $E2E_DIR/outside-NAME.pid once it runs.
esc_outside_later() {
	local name=$1
	shift
	(
		i=0
		while [ ! -e "$P/.esc-$name.in" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
		[ -e "$P/.esc-$name.in" ] || exit 1
		setpriv --reuid="$ESC_AGENT" --regid="$ESC_AGENT" --init-groups "$@" \
		    </dev/null >/dev/null 2>&1 &
		pid=$!
		echo "$pid" > "$E2E_DIR/outside-$name.pid"
		i=0
		while [ -n "${ESC_OUTSIDE_READY:-}" ] && [ ! -e "$ESC_OUTSIDE_READY" ] && [ $i -lt 100 ]; do
			sleep 0.05; i=$((i + 1))
		done
		echo "$pid" > "$P/.esc-$name.tmp" && mv "$P/.esc-$name.tmp" "$P/.esc-$name.pid"
	) &
	defer "rm -f $P/.esc-$name.in $P/.esc-$name.pid; [ -s $E2E_DIR/outside-$name.pid ] && kill -KILL \$(cat $E2E_DIR/outside-$name.pid) 2>/dev/null"
}

# The session's side: ask for NAME's outside process and wait for it; its pid in $VAR.
esc_outside_wait() {
	raw "touch $P/.esc-$1.in; i=0; while [ ! -s $P/.esc-$1.pid ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done; $2=\$(cat $P/.esc-$1.pid)"
}

# After the session: a new login while NAME's outside process runs is refused.
esc_outside_refuses() {
	local pid out
	pid=$(cat "$E2E_DIR/outside-$1.pid" 2>/dev/null)
	if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
		not_ok "the outside process $1 of $ESC_AGENT runs"; return
	fi
	out=$(su - "$ESC_AGENT" -c 'echo LOGIN-IN' </dev/null 2>&1)
	[[ $out != *LOGIN-IN* ]]
	check $? "a login of $ESC_AGENT while a process of its uid runs outside any box ($1, pid $pid) is refused"
	kill -KILL "$pid" 2>/dev/null
}

esc_as_dev() { su "$ESC_DEV" -s /bin/bash -c "$1"; }

# Kill what is left of USER on the way out (a failed test must not leave processes).
esc_kill_user() { pkill -KILL -u "$1" 2>/dev/null; sleep 0.2; }

# ------------------------------------------------------------------- attempt queue

declare -a ESC_IDS=()
declare -A ESC_EXP=() ESC_AUD=() ESC_WHAT=()

esc_begin() {
	ESC_NAME=$1
	ESC_SCRIPT="$ESC_LIB/s-$1.sh"
	ESC_IDS=()
	{
		echo '#!/bin/bash'
		echo "# session script $1, generated by $(basename "$0")"
		echo "ESC=$ESC P=$P DH=$DH"
		echo "cd $P 2>/dev/null || cd /"
		echo "\$ESC ses status"
	} > "$ESC_SCRIPT"
}

# attempt ID "what" EXPECT AUDIT OP ARGS...
attempt() {
	local aid=$1 what=$2 exp=$3 aud=$4 q
	shift 4
	ESC_IDS+=("$aid")
	ESC_EXP[$aid]=$exp
	ESC_AUD[$aid]=$aud
	ESC_WHAT[$aid]=$what
	printf -v q '%q ' "$@"
	esc_line "$aid" "$q"
}

# attempt_sh ID "what" EXPECT AUDIT 'ARGS as shell words' (expanded inside the session).
attempt_sh() {
	local aid=$1
	ESC_IDS+=("$aid")
	ESC_EXP[$aid]=$3
	ESC_AUD[$aid]=$4
	ESC_WHAT[$aid]=$2
	esc_line "$aid" "$5"
}

# attempt_bg ID "what" EXPECT AUDIT 'ARGS as shell words': attempt_sh run in the
# background of the session script, its pid in $pid_ID there (`raw 'wait $pid_ID'`).
attempt_bg() {
	ESC_IDS+=("$1")
	ESC_EXP[$1]=$3
	ESC_AUD[$1]=$4
	ESC_WHAT[$1]=$2
	esc_line "$1" "$5" " & pid_$1=\$!"
}

# An attempt killed by a signal prints nothing itself: say so for it (KILLED).
esc_line() {
	echo "{ \$ESC $1 $2 || { r=\$?; [ \$r -ge 128 ] && echo \"ESC $1 \$r KILLED signal \$((r - 128))\"; }; }${3:-}" >> "$ESC_SCRIPT"
}

# expect ID "what" EXPECT AUDIT: register an attempt whose ESC line a raw line prints.
expect() {
	ESC_IDS+=("$1")
	ESC_EXP[$1]=$3
	ESC_AUD[$1]=$4
	ESC_WHAT[$1]=$2
}

raw() { printf '%s\n' "$*" >> "$ESC_SCRIPT"; }

# ---------------------------------------------------------------- running sessions

# esc_run VIA [USER] [TIMEOUT]: run the current script inside a real session.
esc_run() {
	local via=$1 user=${2:-$ESC_AGENT} t=${3:-120} out
	echo 'echo ESC-END' >> "$ESC_SCRIPT"
	chmod 0755 "$ESC_SCRIPT"
	out="$E2E_DIR/out-$ESC_NAME"
	ESC_OUT=$out
	ESC_VIA=$via
	e2e_audit_since
	case "$via" in
	su)	timeout "$t" su "$user" -c "bash $ESC_SCRIPT" </dev/null >"$out" 2>&1 ;;
	su-)	timeout "$t" su - "$user" -c "bash $ESC_SCRIPT" </dev/null >"$out" 2>&1 ;;
	sudo)	timeout "$t" sudo -iu "$user" bash "$ESC_SCRIPT" </dev/null >"$out" 2>&1 ;;
	runuser) timeout "$t" runuser -l "$user" -c "bash $ESC_SCRIPT" </dev/null >"$out" 2>&1 ;;
	ssh)	esc_need_sshd
		esc_timeout "$t" e2e_ssh "$user" "$ESC_PORT" "bash $ESC_SCRIPT" </dev/null >"$out" 2>&1 ;;
	tmux)	esc_tmux_run "$user" "$t" "$out" ;;
	*)	e2e_die "esc_run: unknown entry path $via" ;;
	esac
	ESC_RC=$?
	ESC_SES=$(sed -n 's/^ESC ses 0 OK .*ses=\([0-9]*\).*/\1/p' "$out" | head -n 1)
	diag "session $ESC_NAME via $via: exit $ESC_RC, audit ses=${ESC_SES:-?}"
	if ! grep -q '^ESC-END' "$out"; then
		diag "session output:"; sed 's/^/#   /' "$out" | tail -n 30
	fi
}

# esc_run_bg VIA [USER] [TIMEOUT]: esc_run in the background, so that a second session of
# the same agent (a second box) can run while this one does.  $E2E_DIR/ended-NAME appears
# once the session is over (its entry command returned).  esc_bg_wait waits for it and
# makes it the current session again for esc_check (its attempts, output, audit session
# and the audit mark from before it started).
esc_run_bg() {
	e2e_audit_since
	ESC_BG_NAME=$ESC_NAME ESC_BG_VIA=$1
	ESC_BG_IDS=("${ESC_IDS[@]}")
	ESC_BG_MARK="$E2E_AUDIT_MARK_INO $E2E_AUDIT_MARK_OFF $E2E_AUDIT_MARK_TIME"
	rm -f "$E2E_DIR/ended-$ESC_NAME"
	( esc_run "$@" >"$E2E_DIR/bg-$ESC_NAME.tap"; : > "$E2E_DIR/ended-$ESC_NAME" ) &
	ESC_BG_PID=$!
	defer "kill $ESC_BG_PID 2>/dev/null"
}

esc_bg_wait() {
	wait "$ESC_BG_PID"
	cat "$E2E_DIR/bg-$ESC_BG_NAME.tap"
	ESC_NAME=$ESC_BG_NAME ESC_VIA=$ESC_BG_VIA
	ESC_IDS=("${ESC_BG_IDS[@]}")
	ESC_SCRIPT="$ESC_LIB/s-$ESC_NAME.sh"
	ESC_OUT="$E2E_DIR/out-$ESC_NAME"
	read -r E2E_AUDIT_MARK_INO E2E_AUDIT_MARK_OFF E2E_AUDIT_MARK_TIME <<<"$ESC_BG_MARK"
	ESC_SES=$(sed -n 's/^ESC ses 0 OK .*ses=\([0-9]*\).*/\1/p' "$ESC_OUT" | head -n 1)
}

# A tmux pane, with a pty, in which root runs su: the entry path that shares a terminal.
esc_tmux_run() {
	local user=$1 t=$2 out=$3 sock="$E2E_DIR/tmux.sock"
	tmux -S "$sock" kill-server 2>/dev/null
	tmux -S "$sock" new-session -d -x 200 -y 50 \
	    "su - $user -c 'bash $ESC_SCRIPT' >$out 2>&1; tmux -S $sock wait-for -S esc-done" ||
	    return 1
	defer "tmux -S $sock kill-server"
	timeout "$t" tmux -S "$sock" wait-for esc-done
}

# esc_timeout SECS CMD...: timeout(1) for shell functions too (e2e_ssh is one).
esc_timeout() {
	local t=$1 pid w rc
	shift
	"$@" & pid=$!
	( sleep "$t"; kill -TERM "$pid" 2>/dev/null ) & w=$!
	wait "$pid"; rc=$?
	kill "$w" 2>/dev/null; wait "$w" 2>/dev/null
	return $rc
}

esc_need_sshd() {
	[ -n "${E2E_SSHD_PID:-}" ] && return 0
	e2e_sshd_start "$ESC_PORT" || e2e_die "test sshd on $ESC_PORT"
	# Runs before the sshd itself is killed (defers run in reverse): sessions stuck at
	# logout (FINDINGS F1) are children of this sshd; end them by pid, not by name.
	defer "esc_reap_sshd $E2E_SSHD_PID"
	e2e_ssh_key "$ESC_AGENT" || e2e_die "ssh key for $ESC_AGENT"
}

# ------------------------------------------------------------------------- checks

# The result line of attempt ID: "RC ERRNAME DETAIL".
esc_result() { sed -n "s/^ESC $1 //p" "$ESC_OUT" | head -n 1; }

esc_errmatch() {
	local got=$1 exp=$2 e
	case "$exp" in
	'!OK') [ "$got" != OK ]; return ;;
	ANY) return 0 ;;
	esac
	local IFS='|'
	for e in $exp; do [ "$got" = "$e" ] && return 0; done
	return 1
}

# Records of the session since esc_run, snapshotted once the last expected record is in.
esc_audit_snapshot() {
	local last="" i
	for i in "${ESC_IDS[@]}"; do [ "${ESC_AUD[$i]}" = rec ] && last=$i; done
	# Without an exact last record to wait for, give auditd its flush interval.
	[ -n "$last" ] || sleep 1
	ESC_SLICE="$E2E_DIR/audit-$ESC_NAME.log"
	for i in $(seq 1 50); do
		e2e_audit_records > "$ESC_SLICE"
		[ -z "$last" ] && break
		grep -q "comm=\"e-$last\"" "$ESC_SLICE" && break
		sleep 0.1
	done
	ESC_REVIEW="$E2E_DIR/review-$ESC_NAME.json"
	: > "$ESC_REVIEW"
	if [ -x "$ESC_AUDIT_TOOL" ] && [ -n "$ESC_SES" ]; then
		"$ESC_AUDIT_TOOL" --input "$ESC_SLICE" --session "$ESC_SES" --json \
		    >"$ESC_REVIEW" 2>"$ESC_REVIEW.err" ||
		    diag "agentbox-audit exited $?: $(head -c 300 "$ESC_REVIEW.err")"
	fi
	# One pass over the review: "comm kind:access" per denial (a flood makes it large).
	jq -r '[.comm, (.kind + ":" + (.access // ""))] | @tsv' "$ESC_REVIEW" 2>/dev/null |
	    sort -u > "$ESC_REVIEW.idx"
}

# Serials of denial records of attempt ID in this session (SECCOMP, or SYSCALL that
# failed), and the kinds: seccomp, landlock (a 1423 record shares the serial), dac.
# With BLOCKER, a Landlock record counts only if its blockers= names BLOCKER.
esc_records_of() {
	awk -v comm="comm=\"e-$1\"" -v ses=" ses=$ESC_SES " -v b="${2:-}" '
		function blocks(line,   n, bl, i) {
			if (b == "") return 1
			if (!match(line, /blockers=[^ ]*/)) return 0
			n = split(substr(line, RSTART + 9, RLENGTH - 9), bl, ",")
			for (i = 1; i <= n; i++) if (bl[i] == b) return 1
			return 0
		}
		match($0, /msg=audit\([0-9.]+:[0-9]+\)/) {
			s = substr($0, RSTART, RLENGTH); sub(/.*:/, "", s); sub(/\)/, "", s)
			if ((index($0, "type=UNKNOWN[1423]") || index($0, "type=LANDLOCK_ACCESS")) &&
			    blocks($0)) ll[s] = 1
			if (index($0, comm) && index($0, ses)) {
				if (index($0, "type=SECCOMP")) { kind[s] = "seccomp" }
				else if (index($0, "type=SYSCALL") && index($0, "success=no")) { if (!(s in kind)) kind[s] = "dac" }
			}
		}
		END { for (s in kind) print s, (s in ll) ? "landlock" : kind[s] }' "$ESC_SLICE"
}

esc_check() {
	local aid res rc en det recs
	esc_audit_snapshot
	if [ -z "$ESC_SES" ]; then
		not_ok "$ESC_NAME via $ESC_VIA: the session started and reported its audit session"
		diag "$(head -c 600 "$ESC_OUT")"
	fi
	for aid in "${ESC_IDS[@]}"; do
		res=$(esc_result "$aid")
		rc=${res%% *}; en=$(echo "$res" | cut -d' ' -f2); det=$(echo "$res" | cut -d' ' -f3-)
		if [ -z "$res" ]; then
			not_ok "$aid ${ESC_WHAT[$aid]}: no result (attempt did not run)"
			continue
		fi
		case "$det" in *SECRET-LEAKED*)
			not_ok "$aid ${ESC_WHAT[$aid]}: SECRET LEAKED ($en $det) [via $ESC_VIA]"; continue ;;
		esac
		if esc_errmatch "$en" "${ESC_EXP[$aid]}"; then
			ok "$aid ${ESC_WHAT[$aid]}: $en (want ${ESC_EXP[$aid]}) [via $ESC_VIA]"
		else
			not_ok "$aid ${ESC_WHAT[$aid]}: got $en, want ${ESC_EXP[$aid]} [via $ESC_VIA]"
			diag "detail: $det"
			continue
		fi
		[ "$en" = OK ] && continue
		case "${ESC_AUD[$aid]}" in
		rec) ;;
		'rec?') case "$en" in EACCES|EPERM|EROFS) ;; *) continue ;; esac ;;
		*) continue ;;
		esac
		recs=$(esc_records_of "$aid")
		if [ -n "$recs" ]; then
			ok "$aid denial on the record: ses=$ESC_SES $(echo "$recs" | awk '{print $2}' | sort -u | tr '\n' ' ')"
		else
			not_ok "$aid denial on the record: no SECCOMP/Landlock/failed-SYSCALL record with ses=$ESC_SES comm=e-$aid"
		fi
		if grep -q "^e-$aid	" "$ESC_REVIEW.idx"; then
			ok "$aid denial in agentbox-audit's review of session $ESC_SES ($(awk -F'\t' -v c="e-$aid" '$1 == c {print $2}' "$ESC_REVIEW.idx" | tr '\n' ' '))"
		else
			not_ok "$aid denial in agentbox-audit's review of session $ESC_SES"
		fi
	done
}

# esc_ll_record ID BLOCKER: after esc_check, the denial of attempt ID in this session has
# a Landlock record (UNKNOWN[1423] / LANDLOCK_ACCESS) whose blockers= names BLOCKER.
esc_ll_record() {
	esc_records_of "$1" "$2" | grep -q ' landlock$'
	check $? "$1 its Landlock record names blockers=$2 (ses=$ESC_SES comm=e-$1)"
}

# esc_in_review FILE COMM: does the --json review hold a denial by COMM?  (jq -e alone
# judges only the last input's output, so slurp.)
esc_in_review() {
	jq -e -s --arg c "$2" 'any(.[]; .comm == $c)' "$1" >/dev/null 2>&1
}

# Is the session confined at all?  The status line the script printed first.
esc_assert_confined() {
	local st
	st=$(esc_result ses)
	like "$st" "nnp=1" "$ESC_NAME via $ESC_VIA: no_new_privs set"
	like "$st" "seccomp=2" "$ESC_NAME via $ESC_VIA: seccomp filter on"
	like "$st" "capeff=0000000000000000" "$ESC_NAME via $ESC_VIA: no capabilities"
}

# SIGKILL the per-connection processes of the test sshd PID (and their children).
esc_reap_sshd() {
	local p c
	for p in $(ps -e -o pid=,ppid= | awk -v s="$1" '$2 == s {print $1}'); do
		for c in $(ps -e -o pid=,ppid= | awk -v s="$p" '$2 == s {print $1}'); do
			kill -KILL "$c" 2>/dev/null
		done
		kill -KILL "$p" 2>/dev/null
	done
}

# Nothing of USER's sessions is left (processes, mounts in this world's table): the part
# of e2e_assert_host_clean that holds while USER is still enrolled (its audit rules stay
# loaded until the deferred unenroll).
esc_assert_gone() {
	local uid procs i=0
	uid=$(id -u "$1") || { not_ok "$1 gone: no such user"; return; }
	while procs=$(ps -e -o uid=,pid=,args= | awk -v u="$uid" '$1 == u') && [ -n "$procs" ]; do
		i=$((i + 1)); [ $i -lt 30 ] || break
		sleep 0.1
	done
	is "$procs" "" "nothing of $1 (uid $uid) runs after logout"
	# The netns pin and a host's own sessions are not this test's (lib-e2e.sh).
	is "$(e2e_host_mounts_new)" "" "no agentbox mount in the host's mount table"
	is "$(awk -v u="/run/user/$uid" '$5 == "/run/agentbox" || $5 == u || $5 == "/proc" && /hidepid/' /proc/self/mountinfo)" "" \
	    "no session mount leaked into the test's world"
}
