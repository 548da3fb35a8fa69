# tests/lib.sh — sourced by every shell test (TAP under prove).
#   ok "what"; not_ok "what"; must_fail cmd...; must_pass cmd...; skip_all "why"
#   is "$got" "$want" "what"; finish   (prints the plan, exits non-zero on failure)
# Cleanup: add commands with `defer 'cmd'`; they run in reverse order on any exit.
n=0
failed=0
_deferred=""

ok()       { n=$((n + 1)); echo "ok $n - $*"; }
not_ok()   { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
# Every line of a diagnostic is a TAP comment: a value that spans lines (a command's
# output starting with "ok") must not read as a test line.
diag()     { printf '%s\n' "$@" | sed 's/^/# /'; }
check()    { if [ "$1" = 0 ]; then shift; ok "$*"; else shift; not_ok "$*"; fi; }
must_fail(){ if "$@" >/dev/null 2>&1; then not_ok "allowed: $*"; else ok "refused: $*"; fi; }
must_pass(){ if "$@" >/dev/null 2>&1; then ok "works: $*"; else not_ok "failed: $*"; fi; }
is()       { if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3"; diag "got:  '$1'" "want: '$2'"; fi; }
like()     { case "$1" in *$2*) ok "$3" ;; *) not_ok "$3"; diag "got: '$1'" "want it to contain: '$2'" ;; esac; }
unlike()   { case "$1" in *$2*) not_ok "$3"; diag "got: '$1'" "must not contain: '$2'" ;; *) ok "$3" ;; esac; }

# A test that cannot run is a failure in CI and under `make check` (AB_STRICT, set by the
# Makefile: sudo drops CI from the environment), never a silent skip.
skip_all() {
	if [ -n "${CI:-}${AB_STRICT:-}" ]; then echo "1..1"; echo "not ok 1 - cannot run: $*"; exit 1; fi
	echo "1..0 # SKIP $*"; exit 0
}

defer()    { _deferred="$1
$_deferred"; }
_run_deferred() {
	local c cmds
	# Split on newlines only here: the commands themselves run with the usual IFS (a
	# newline-only IFS leaked into them, and `auditctl -d ${rule#-a }` got one word).
	IFS='
' read -r -d '' -a cmds <<< "$_deferred"
	_deferred=""
	for c in "${cmds[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
}
trap '_run_deferred' EXIT
trap '_run_deferred; exit 130' INT TERM HUP

# reverse_events LOG: LOG's audit events (records grouped by serial) in reverse order,
# on stdout: a review must not depend on the order events reach it.
reverse_events() {
	python3 - "$1" <<'PY'
import re, sys
evs = {}
for l in open(sys.argv[1], "rb"):
    evs.setdefault(re.search(rb":(\d+)\):", l).group(1), []).append(l)
sys.stdout.buffer.write(b"".join(b"".join(v) for v in reversed(list(evs.values()))))
PY
}

finish() {
	_run_deferred
	echo "1..$n"
	[ "$failed" = 0 ]
	exit $?
}

need_root() { [ "$(id -u)" = 0 ] || skip_all "needs root"; }

# Absolute path of the source tree and the build directory, whatever the cwd.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)
BUILD="$TOP/build"
