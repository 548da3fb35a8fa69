#!/bin/bash
# agentbox check: exit codes and messages on good and bad policy files.
# Uses build/tests/policy-check (admin/check.c alone); no root needed, but as root the
# files are root-owned like the real ones and the "owned by another user" case runs too.
. "$(dirname "$0")/../lib.sh"

CHECK="$BUILD/tests/policy-check"
[ -x "$CHECK" ] || skip_all "$CHECK not built (make $CHECK)"

umask 022
T=$(mktemp -d /tmp/ab-policy-check.XXXXXX) || skip_all "mktemp failed"
T=$(cd "$T" && pwd -P)
defer "rm -rf '$T'"
chmod 0755 "$T"
R="$T/root"
mkdir -p "$R/etc/agentbox/policy.d" "$T/proj"
CONF="$R/etc/agentbox/agentbox.conf"

# run ARGS...: sets $rc, $out, $err
run() {
	out=$("$CHECK" "$@" 2>"$T/err"); rc=$?
	err=$(cat "$T/err")
}

# 1. The shipped default policy is valid and enrolls nobody.
cp "$TOP/policy/agentbox.conf" "$CONF"
run --root "$R"
is "$rc" 0 "default policy: exit 0"
like "$out" "no user enrolled" "default policy: says nobody is enrolled"
is "$err" "" "default policy: nothing on stderr"

# 2. With an enrolled user: the compiled policy, aligned, with its digest.
printf '[user:agent]\nproject = %s\n' "$T/proj" > "$R/etc/agentbox/policy.d/agent.conf"
run --root "$R"
is "$rc" 0 "default policy + user: exit 0"
like "$out" "\\[user:agent]" "prints the user's section"
like "$out" "  digest             " "prints the digest, aligned"
like "$out" "  network            none" "prints network none"
like "$out" "  project            $T/proj" "prints the project"
like "$out" "                     .ssh/" "list items continue in the value column"
run --root "$R" --user agent
is "$rc" 0 "--user agent: exit 0"
run --root "$R" --user nobody-here
is "$rc" 1 "--user of a user without a section: exit 1"
like "$err" "not enrolled" "  and says why"

# 3. --root beats $AGENTBOX_ROOT, which beats /.
out=$(AGENTBOX_ROOT="$R" "$CHECK" 2>/dev/null); rc=$?
is "$rc" 0 "AGENTBOX_ROOT is used"
like "$out" "\\[user:agent]" "  and read"
out=$(AGENTBOX_ROOT=/nonexistent "$CHECK" --root "$R" 2>/dev/null); rc=$?
is "$rc" 0 "--root beats AGENTBOX_ROOT"

# 4. Bad files: non-zero, every error as FILE:LINE: reason.
printf '[defaults]\nraed = /usr\n' > "$CONF"
run --root "$R"
is "$rc" 1 "typo'd key: exit 1"
like "$err" "$CONF:2: unknown key 'raed'" "typo'd key: FILE:LINE named"

printf '[defaults]\n# x\nread = usr/lib\n' > "$CONF"
run --root "$R"
is "$rc" 1 "relative path: exit 1"
like "$err" "$CONF:3: read: 'usr/lib' is not an absolute path" "relative path: FILE:LINE named"

printf '[defaults]\nraed = /usr\nnetwork = wifi\nmask = [x\n' > "$CONF"
run --root "$R"
is "$rc" 1 "three errors: exit 1"
is "$(grep -c "^$CONF:[234]: " "$T/err")" 3 "three errors: all three reported"

cp "$TOP/policy/agentbox.conf" "$CONF"
chmod g+w "$CONF"
run --root "$R"
is "$rc" 1 "group-writable file: exit 1"
like "$err" "$CONF: group-writable" "group-writable file: named"
chmod g-w "$CONF"

printf '[defaults]\nread = /usr\n' > "$T/one.conf"
run "$T/one.conf"
is "$rc" 0 "FILE argument: a valid file"
printf '[defaults]\nread = /usr\nshell = bash\n' > "$T/one.conf"
run "$T/one.conf"
is "$rc" 1 "FILE argument: an invalid file"
like "$err" "$T/one.conf:3: shell: 'bash' is not an absolute path" "FILE argument: FILE:LINE"
ln -s "$T/one.conf" "$T/link.conf"
run "$T/link.conf"
is "$rc" 1 "FILE argument: a symlink is refused"

printf '[user:agent]\nproject = %s\nnetwork = loopback\n' "$T/proj" > "$R/etc/agentbox/policy.d/agent.conf"
printf '[user:agent]\nproject = %s\nnetwork = host\n' "$T/proj" > "$R/etc/agentbox/policy.d/zz.conf"
run --root "$R"
is "$rc" 1 "conflicting scalar across files: exit 1"
like "$err" "zz.conf:3: network = host for \\[user:agent] conflicts with" "conflict: named"
rm -f "$R/etc/agentbox/policy.d/zz.conf"

# A project that no longer exists, in one user's section: still reported (the load of
# that user fails; other users' loads do not, see test_policy).
printf '[user:gone]\nproject = %s\n' "$T/no-such-project" > "$R/etc/agentbox/policy.d/gone.conf"
run --root "$R"
is "$rc" 1 "another user's missing project: exit 1"
like "$err" "gone.conf:2: project: '$T/no-such-project': No such file or directory" "  named with FILE:LINE"
run --root "$R" --user agent
is "$rc" 1 "--user agent: the set is still reported invalid"
rm -f "$R/etc/agentbox/policy.d/gone.conf"

if [ "$(id -u)" = 0 ]; then
	chown 65534 "$CONF"
	run --root "$R"
	is "$rc" 1 "file owned by uid 65534: exit 1"
	like "$err" "owned by uid 65534, not root" "  and says so"
	chown 0 "$CONF"
elif [ -n "${CI:-}${AB_STRICT:-}" ]; then
	not_ok "cannot run: the ownership case needs root"
else
	ok "ownership case # SKIP needs root"
fi

# A project through a symlink the agent could own, pointing at a name with an escape
# sequence: refused, and the message cannot drive the admin's terminal.
esc=$(printf '\033')
mkdir -p "$T/d${esc}[31m"
ln -s "$T/d${esc}[31m" "$T/esclink"
printf '[user:agent]\nproject = %s\n' "$T/esclink" > "$T/esc.conf"
run "$T/esc.conf"
is "$rc" 1 "project through a symlink: exit 1"
like "$err" "through a symlink" "  and says so"
like "$err" 'd\\x1b\[31m' "  the escape byte is shown as \\x1b"
case "$err" in *"$esc"*) not_ok "  a raw ESC reached stderr" ;; *) ok "  no raw ESC on stderr" ;; esac

# The same with what the policy lets through in a path: C1 controls (U+009B is CSI, an
# "ESC [" that some terminals obey) and bidirectional controls (U+202E right-to-left
# override, U+2066 isolate, U+200F RLM) that reorder what the admin reads.
c1=$(printf '\302\233'); rlo=$(printf '\342\200\256'); lri=$(printf '\342\201\246')
rlm=$(printf '\342\200\217')
raw_c1_bidi() { case "$1" in *"$c1"*|*"$rlo"*|*"$lri"*|*"$rlm"*) return 0 ;; esac; return 1; }
mkdir -p "$T/c${c1}31m${rlo}fdp.exe${lri}"
ln -s "$T/c${c1}31m${rlo}fdp.exe${lri}" "$T/c1link"
printf '[user:agent]\nproject = %s\n' "$T/c1link" > "$T/c1.conf"
run "$T/c1.conf"
is "$rc" 1 "project through a symlink to a C1/bidi name: exit 1"
like "$err" 'c\\u{009b}31m\\u{202e}fdp.exe\\u{2066}' "  C1 and bidi characters are shown as \\u{NNNN}"
if raw_c1_bidi "$err"; then not_ok "  a raw C1 or bidi character reached stderr"; else ok "  no raw C1 or bidi character on stderr"; fi
printf '[user:agent]\nproject = %s\nread = %s\n' "$T/proj" "$T/r${c1}${rlo}${lri}${rlm}" > "$T/c1ok.conf"
run --user agent "$T/c1ok.conf"
is "$rc" 0 "a read path with C1/bidi characters is valid policy: exit 0"
like "$out" "  read               $T/r"'\\u{009b}\\u{202e}\\u{2066}\\u{200f}' "  printed with them escaped"
if raw_c1_bidi "$out"; then not_ok "  a raw C1 or bidi character reached stdout"; else ok "  no raw C1 or bidi character on stdout"; fi

# 5. network = proxy: --user U --host HOST[:PORT] answers as agentbox-netd decides
# (exit 0 allowed, 4 denied, 1 invalid policy, 2 not a question to ask).
P="$T/proxy.conf"
cat > "$P" <<EOF
[hosts:set]
host = set.example.net api.example.org:8443
[user:px]
project = $T/proj
network = proxy
allow_host = *.example.com exact.example.org @set
allow_host = 192.0.2.7 10.1.0.0/16:8080 [2001:db8::/32]
deny_host = bad.example.com [2001:db8::bad]
[user:plain]
project = $T/proj
EOF
host_is() {	# HOST WANT_RC WANT_LINE
	run --user px --host "$1" "$P"
	is "$rc" "$2" "--host $1: exit $2"
	is "$out" "$3" "--host $1: $3"
}
host_is www.example.com 0 "allowed by $P:6 (*.example.com)"
host_is a.b.example.com 0 "allowed by $P:6 (*.example.com)"
host_is example.com 4 "denied: no allow_host matches"	# *.X is strictly below X
host_is WWW.Example.COM. 0 "allowed by $P:6 (*.example.com)"
host_is bad.example.com 4 "denied by $P:8 (bad.example.com)"	# deny wins
host_is exact.example.org 0 "allowed by $P:6 (exact.example.org)"
host_is exact.example.org:443 0 "allowed by $P:6 (exact.example.org)"
host_is exact.example.org:80 4 "denied: no allow_host matches"	# 443 unless written
host_is sub.exact.example.org 4 "denied: no allow_host matches"
host_is set.example.net 0 "allowed by $P:2 (set.example.net)"	# @set: the set's line
host_is api.example.org:8443 0 "allowed by $P:2 (api.example.org:8443)"
host_is api.example.org 4 "denied: no allow_host matches"
host_is 192.0.2.7 0 "allowed by $P:7 (192.0.2.7)"
host_is 192.0.2.8 4 "denied: no allow_host matches"
host_is 10.1.200.3:8080 0 "allowed by $P:7 (10.1.0.0/16:8080)"	# CIDR and port
host_is 10.1.200.3 4 "denied: no allow_host matches"
host_is 10.2.0.1:8080 4 "denied: no allow_host matches"
host_is '[2001:db8::1]' 0 "allowed by $P:7 ([2001:db8::/32])"	# IPv6 literal
host_is '[2001:db8::bad]' 4 "denied by $P:8 ([2001:db8::bad])"
host_is '[2001:db9::1]' 4 "denied: no allow_host matches"
run --user px --host 127.1 "$P"
is "$rc" 2 "--host 127.1 (not a strict address): exit 2"
run --user px --host 'a b' "$P"
is "$rc" 2 "--host with a blank: exit 2"
run --host www.example.com "$P"
is "$rc" 2 "--host without --user: exit 2"
run --user plain --host www.example.com "$P"
is "$rc" 2 "--host for a user whose network is not proxy: exit 2"
like "$err" "network = none" "  and says so"
printf '[user:px]\nproject = %s\nnetwork = proxy\nallow_host = *\n' "$T/proj" > "$T/star.conf"
run --user px --host www.example.com "$T/star.conf"
is "$rc" 1 "--host on an invalid policy (allow_host = *): exit 1, not 4"
like "$err" "$T/star.conf:4: allow_host: '\\*': a bare \\* would allow every host" \
    "  FILE:LINE says why"

# Wildcards on a public suffix (libpsl: ICANN and private sections) are refused by check.
suffix_refused() {	# KEY RULE
	printf '[user:px]\nproject = %s\nnetwork = proxy\nallow_host = ok.example.com\n%s = %s\n' \
	    "$T/proj" "$1" "$2" > "$T/psl.conf"
	run "$T/psl.conf"
	is "$rc" 1 "$1 = $2: refused by check (exit 1)"
	like "$err" "$T/psl.conf:5: $1: '\\$2': *is a public suffix" "  FILE:LINE names it"
}
suffix_refused allow_host '*.com'
suffix_refused allow_host '*.co.uk'
suffix_refused allow_host '*.github.io'
suffix_refused deny_host '*.com:8443'
printf '[hosts:s]\nhost = *.co.uk\n[user:px]\nproject = %s\nnetwork = proxy\nallow_host = @s\n' \
    "$T/proj" > "$T/psl.conf"
run "$T/psl.conf"
is "$rc" 1 "a public-suffix wildcard inside a host set: exit 1"
like "$err" "$T/psl.conf:2: allow_host: '\\*.co.uk'" "  named at the set's line"
printf '[user:px]\nproject = %s\nnetwork = proxy\nallow_host = *.example.co.uk *.example.com\n' \
    "$T/proj" > "$T/psl.conf"
run "$T/psl.conf"
is "$rc" 0 "wildcards below a public suffix are fine: exit 0"
like "$out" "  allow_host         \\*.example.co.uk  \\($T/psl.conf:4\\)" \
    "  printed with where each rule is written"

# A credential file agentbox-netd would refuse (root:agentbox-netd 0640 only) is a
# warning: the policy stays valid, the admin learns before the first login fails.
printf 's3cret\n' > "$T/secret"; chmod 0600 "$T/secret"
for f in "$T/secret" "$T/no-such-secret"; do
	printf '[user:px]\nproject = %s\nnetwork = proxy\ncredential = c\n[credential:c]\nhost = api.example.com\nheader = x-api-key\nfile = %s\nenv = K\n' \
	    "$T/proj" "$f" > "$T/cred.conf"
	run "$T/cred.conf"
	is "$rc" 0 "credential file $f: still valid (exit 0)"
	like "$err" "warning: \\[credential:c] file $f " "  but warned about"
done

# 6. Usage errors: exit 2.
run --bogus
is "$rc" 2 "unknown option: exit 2"
run a b
is "$rc" 2 "two FILEs: exit 2"
run --root ""
is "$rc" 2 "empty --root: exit 2"

finish
