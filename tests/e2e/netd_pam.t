#!/bin/bash
# network = proxy, the PAM side (netd-spec.md sections 2, 3 and 6): a real `agentbox
# enroll --network proxy` in the harness's private world, real su, and a stand-in for
# agentbox-netd's control side (tests/e2e/fake-netd.py) that checks the hand-off as the
# daemon must and answers ok, "error x", or nothing.
#   a. no daemon (no socket; a stale socket): refused, one auth-log line
#   b. the daemon says ok: the box has the proxy variables, resolv.conf 127.0.0.1, only
#      lo, no route out (ENETUNREACH), and its 127.0.0.1:3128 leads to the daemon
#   c. the daemon says "error x": refused, the reason in the auth log
#   d. the daemon says nothing: refused after the 2 s timeout
#   e. the login's extra cost: 20 proxy logins vs 20 `none` (and 20 `loopback`) logins,
#      interleaved; the medians are printed as a diagnostic
#   f. ok, error and no daemon again with the module built with ASan/UBSan
# Network: nothing but the box's own loopback and the unroutable connect in (b).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"	# the auth-log helpers; pam_setup for (f)
e2e_enter_private_world "$@"

U=abt_np1	# network = proxy
N=abt_np0	# network = none, for the cost comparison
L=abt_np2	# network = loopback: proxy minus it is the hand-off's own cost
PY=/usr/bin/python3
FAKE="$TOP/tests/e2e/fake-netd.py"
SOCK=/run/agentbox-netd/control
for c in "$PY" ip su; do command -v "$c" >/dev/null || skip_all "needs $c"; done

for u in "$U" "$N" "$L"; do
	mkdir -p "/home/$u-project" && chmod 0755 "/home/$u-project"
	case $u in "$U") net=proxy ;; "$N") net=none ;; *) net=loopback ;; esac
	# pam-auth-update takes debconf's host-wide lock: retry (enroll is idempotent).
	for try in 1 2 3 4 5; do
		e2e_enroll "$u" --project "/home/$u-project" --network "$net" && break
		[ "$try" = 5 ] && e2e_die "enroll $u"
		sleep $((RANDOM % 3 + 1))
	done
done
# The module's per-step clock (the debug line), for (e): this world's own PAM stack.
grep -q 'pam_agentbox.so' /etc/pam.d/common-session || e2e_die "enroll left no module line"
sed -i -E 's/^(session.*pam_agentbox\.so.*[^g])$/\1 debug/' /etc/pam.d/common-session
grep -q 'pam_agentbox\.so.* debug$' /etc/pam.d/common-session || e2e_die "no debug on the module line"

FAKE_PID=""
fake_start() {	# fake_start MODE: a fresh stand-in daemon, its log in $FLOG
	fake_stop
	FLOG="$E2E_DIR/fake-netd.$1.log"
	: > "$FLOG"
	"$PY" "$FAKE" "$SOCK" "$FLOG" "$1" &
	FAKE_PID=$!
	defer "kill $FAKE_PID"
	local i=0
	until grep -q '^listening' "$FLOG"; do
		i=$((i + 1)); [ $i -lt 100 ] || e2e_die "fake-netd did not start"
		sleep 0.05
	done
}
fake_stop() {
	if [ -n "$FAKE_PID" ]; then kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; fi
	FAKE_PID=""
}
field() { awk -v k="$1" '$1 == "field" && $2 == k { print $3 }' "$FLOG" | tail -1; }

# refused WHAT REASON-REGEX: su is refused, with exactly one auth-log line saying why.
refused() {
	local what=$1 reason=$2 out lines
	pam_authlog_since
	out=$(su "$U" -c 'echo INSIDE' 2>&1)
	case "$out" in *INSIDE*) not_ok "$what: the session ran"; return ;; esac
	ok "$what: su refused"
	if pam_authlog_find "pam_agentbox\(su:session\): refusing session of $U: $reason" >/dev/null
	then ok "$what: the auth log says why"
	else not_ok "$what: no auth log line matching '$reason'"
		diag "$(tail -c +$((PAM_AUTHLOG_OFF + 1)) "$PAM_AUTHLOG" | grep pam_agentbox | tail -3)"
	fi
	sleep 0.3	# rsyslog is asynchronous: anything else would be there by now
	lines=$(tail -c +$((PAM_AUTHLOG_OFF + 1)) "$PAM_AUTHLOG" | grep -c "pam_agentbox.*$U")
	is "$lines" 1 "$what: one auth-log line from the module"
}

## a. No daemon
[ -e "$SOCK" ] && e2e_die "$SOCK exists in this private world"
refused "no daemon" "agentbox-netd is not taking sessions: connect $SOCK: No such file or directory"
fake_start ok
fake_stop	# leaves its socket file behind: nobody listens on it
[ -S "$SOCK" ] || e2e_die "stale socket expected"
refused "daemon gone, stale socket" "agentbox-netd is not taking sessions: connect $SOCK: Connection refused"

## b. The daemon takes the session
fake_start ok
inside='echo "ses=$(cat /proc/self/sessionid)"; env; echo "--resolv"; cat /etc/resolv.conf
echo "--link"; ip -o link; echo "--route"
(exec 3<>/dev/tcp/192.0.2.1/443) 2>&1
echo "--proxy"; exec 3<>/dev/tcp/127.0.0.1/3128 && read -r -t 10 line <&3 && echo "$line"'
out=$(su "$U" -c "$inside" 2>&1); rc=$?
is "$rc" 0 "proxy login with the daemon's ok: the session ran"
is "$(awk '$1 == "verdict"' "$FLOG")" "verdict ok" "the stand-in answered ok"
is "$(awk '$1 == "problems" { $1 = ""; print substr($0, 2) }' "$FLOG")" "none" \
   "the hand-off passes the daemon's checks (fd order and types, 127.0.0.1 ports, non-blocking, listening, in the box's netns, not the daemon's, pidfd of init_pid)"
is "$(awk '$1 == "peer_uid" { print $2 }' "$FLOG")" 0 "SO_PEERCRED: the sender is root"
is "$(awk '$1 == "nfds" { print $2 }' "$FLOG")" 4 "four fds: pidfd, TCP 3128, UDP 53, TCP 53 (no credentials)"
is "$(field op)/$(field uid)/$(field user)/$(field ncred)" "open/$(id -u "$U")/$U/0" \
   "message: op, uid, user, ncred"
like "$out" "ses=$(field ses)" "message: ses is the session's audit session id"
[[ "$(field digest)" =~ ^[0-9a-f]{64}$ ]]; check $? "message: digest is 64 hex digits"
[[ "$(field init_pid)" =~ ^[1-9][0-9]*$ ]]; check $? "message: init_pid is a host pid"
for v in HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY all_proxy \
    npm_config_proxy npm_config_https_proxy PIP_PROXY; do
	like "$out" "
$v=http://127.0.0.1:3128
" "env: $v=http://127.0.0.1:3128"
done
like "$out" "
NO_PROXY=localhost,127.0.0.1,::1
" "env: NO_PROXY names only the box's loopback"
like "$out" "
NODE_USE_ENV_PROXY=1
" "env: NODE_USE_ENV_PROXY=1"
resolv=$(sed -n '/^--resolv$/,/^--link$/p' <<<"$out" | sed '1d;$d')
is "$resolv" "nameserver 127.0.0.1
options edns0" "/etc/resolv.conf inside says 127.0.0.1"
links=$(sed -n '/^--link$/,/^--route$/p' <<<"$out" | sed '1d;$d')
is "$(awk '{ print $2 }' <<<"$links")" "lo:" "ip -o link: only lo"
like "$links" "UP" "... and lo is up"
route=$(sed -n '/^--route$/,/^--proxy$/p' <<<"$out")
like "$route" "Network is unreachable" "raw connect to 192.0.2.1:443 (TEST-NET-1, never routed): ENETUNREACH (no route out of the box)"
like "$out" "--proxy
fake-netd ses=$(field ses)" "the box's 127.0.0.1:3128 leads to the daemon that took this session"
out=$(su "$U" -c 'echo x > /etc/resolv.conf' 2>&1)
like "$out" "Read-only file system" "resolv.conf cannot be rewritten inside"
is "$(cat /etc/resolv.conf)" "$(cat "$E2E_HOST/etc/resolv.conf")" "the host's resolv.conf is untouched"

## c. The daemon refuses
fake_start error
refused "daemon says error x" "agentbox-netd refused the session: x"

## d. The daemon never answers
fake_start silent
t0=$(date +%s%N)
refused "daemon silent" "agentbox-netd did not answer within 2000 ms"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$ms" -ge 1900 ] && [ "$ms" -lt 5000 ]; check $? "silent daemon: refused after the 2 s timeout ($ms ms)"

## e. Cost: 20 proxy logins vs 20 `none` and 20 `loopback` logins, interleaved
fake_start fast
pam_authlog_since
: > "$E2E_DIR/times"
for i in $(seq 20); do
	for u in "$U" "$N" "$L"; do
		t0=$(date +%s%N)
		su "$u" -c true || echo "FAIL $u" >> "$E2E_DIR/times"
		echo "$u $(( ($(date +%s%N) - t0) / 1000 ))" >> "$E2E_DIR/times"
	done
done
unlike "$(cat "$E2E_DIR/times")" "FAIL" "60 logins, all of them ran"
# The stand-in writes its log after it has answered: give the last one a moment.
for _ in $(seq 50); do
	[ "$(grep -c '^problems none' "$FLOG")" -ge 20 ] && break
	sleep 0.1
done
is "$(grep -c '^verdict ok' "$FLOG")" 20 "the daemon took 20 proxy sessions"
is "$(grep -c '^problems none' "$FLOG")" 20 "... each hand-off passing its checks"
sleep 1	# rsyslog
report=$(tail -c +$((PAM_AUTHLOG_OFF + 1)) "$PAM_AUTHLOG" | grep "confined session of abt_np" |
    "$PY" -c '
import re, statistics as st, sys
steps = ["loginuid", "netns", "unshare", "world", "masks", "pid 1", "netd", "plan", "record"]
wall, mod = {}, {}
for l in open(sys.argv[1]):
    u, us = l.split(); wall.setdefault(u, []).append(int(us))
for l in sys.stdin:
    u = re.search(r"confined session of (\w+):", l).group(1)
    cum = l.split("cumulative")[1]
    c = [int(re.search(k + r" (\d+)", cum).group(1)) for k in steps]
    row = [int(re.search(r"then (\d+) us", l).group(1)), c[0]] + [b - a for a, b in zip(c, c[1:])]
    mod.setdefault(u, []).append(row)
names = ["open", "before steps+loginuid"] + steps[1:]
med = {u: [st.median(r[i] for r in rows) for i in range(len(names))] for u, rows in mod.items()}
for u, label in zip(sys.argv[2:], ["proxy", "none", "loopback"]):
    print("%-8s %d logins, su wall-clock median %.0f us; module medians (us): %s" % (label,
        len(mod.get(u, [])), st.median(wall[u]),
        ", ".join("%s %.0f" % (n, m) for n, m in zip(names, med.get(u, [0] * len(names))))))
p, n, lo = sys.argv[2:5]
print("proxy - none: module open %+.0f us, su wall-clock %+.0f us; proxy - loopback: module "
      "open %+.0f us" % (med[p][0] - med[n][0], st.median(wall[p]) - st.median(wall[n]),
      med[p][0] - med[lo][0]))
print("DELTA %.0f %d" % (med[p][0] - med[n][0], sum(len(v) for v in mod.values())))' \
    "$E2E_DIR/times" "$U" "$N" "$L")
while IFS= read -r l; do diag "$l"; done < <(grep -v '^DELTA' <<<"$report")
diag "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
read -r delta nlines < <(sed -n 's/^DELTA //p' <<<"$report")
is "${nlines:-0}" 60 "the debug lines of all 60 logins were read"
# Target <= 1000 us (netd-spec section 3); the bound here leaves room for a loaded host
# and for the stand-in being Python: the diagnostic above is the measurement.
[ -n "$delta" ] && [ "$delta" -le 5000 ]; check $? "proxy's module open costs ${delta:-?} us more than none's (target <= 1000)"
fake_stop

## f. The same paths under ASan/UBSan (LeakSanitizer at exit): the sanitized module
## through pam_try, with the module's own policy root (lib-pam.sh), ok / error / no daemon.
TRY_SAN="$BUILD/tests/pam_try_san"
SAN_SO="$BUILD/san/pam_agentbox.so"
if [ -x "$TRY_SAN" ] && [ -f "$SAN_SO" ]; then
	pam_setup
	pam_policy <<-EOF
	[user:$U]
	project = /home/$U-project
	network = proxy
	EOF
	mkdir -p "$E2E_DIR/pamconf-san"
	echo "session required $SAN_SO root=$PAM_ROOT init=$PAM_INIT" > "$E2E_DIR/pamconf-san/su"
	san() { ASAN_OPTIONS=detect_leaks=1 "$TRY_SAN" "$E2E_DIR/pamconf-san" su "$U" 2>&1; }
	fake_start ok
	is "$(san)" "open=PAM_SUCCESS close=PAM_SUCCESS close2=PAM_SUCCESS" \
	    "ASan/UBSan: proxy open with the daemon's ok, close: clean"
	fake_start error
	is "$(san)" "open=PAM_SYSTEM_ERR" "ASan/UBSan: the daemon's error: refused, clean"
	fake_stop
	rm -f "$SOCK"
	is "$(san)" "open=PAM_SYSTEM_ERR" "ASan/UBSan: no daemon: refused, clean"
else
	not_ok "sanitized module or pam_try_san not built (make $SAN_SO $TRY_SAN)"
fi

# Logout killed every session process; unenroll removes the rules: nothing is left.
for u in "$U" "$N" "$L"; do
	uid=$(id -u "$u")
	"$E2E_AGENTBOX" unenroll "$u" --remove-user >/dev/null 2>&1
	check $? "unenroll $u"
	e2e_assert_host_clean "$u" "$uid"
done
finish
