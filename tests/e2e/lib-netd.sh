# tests/e2e/lib-netd.sh — harness of the `network = proxy` tests and bench/proxy, sourced
# after lib.sh and lib-e2e.sh, inside the private world:
#
#   e2e_enter_private_world "$@"
#   netd_setup                  # namespaces, CA, fake upstream, names, daemon
#   netd_enroll abt_n1 /home/abt_n1-proj   # real enroll --network proxy + test rules
#   netd_box abt_n1 'curl -sS https://api.example.test/echo'   # one proxy-mode login
#   netd_rec 'proto=connect event=open .*host="api.example.test"'   # its audit record
#   netd_upstream_saw '"path": "/echo"'                         # what the upstream got
#
# The network: two namespaces this test makes and removes, nothing else.
#   abt-nd-X  "the host side" of the daemon: agentbox-netd runs here (nsenter --net), so
#             everything it can dial is this test's own; its own addresses are 127.0.0.1
#             and 10.200.X.1 (what "the host's own addresses" means to it)
#   abt-nu-X  the fake upstream: tests/fixtures/netd/upstream.py on 10.200.X.2 and
#             fd00:200:X::2 (HTTPS :443, HTTP :80, a query-logging DNS on UDP :53 that
#             answers NXDOMAIN, UDP/TCP sinks), one veth pair to abt-nd-X.
# The daemon resolves through the world's private /etc: /etc/hosts names the upstream
# (*.example.test), /etc/resolv.conf points at the upstream's logging DNS, so any name
# the daemon does look up beyond /etc/hosts shows in the upstream's log (a denied name
# must not).  The test CA goes into the world's private system store (the gateway
# verifies against it) and into every project as test-ca.crt (the box's tools get it
# explicitly).  The box itself (its netns, only lo) is made by pam_agentbox at login.
#
# Variables after netd_setup: NETD_X, NETD_NS (daemon side), NETD_UP (upstream netns),
#   NETD_UP4 / NETD_UP6 (upstream addresses), NETD_SELF4 (daemon side's address),
#   NETD_DIR (scratch), NETD_CA (CA cert), NETD_LOG (upstream's JSON log),
#   NETD_BIN (the daemon), NETD_PID (its pid), NETD_SECRET (the credential's value).
# The daemon's binary: $AB_NETD_BIN, else the installed /usr/local/sbin/agentbox-netd.

NETD_FIX="$TOP/tests/fixtures/netd"
NETD_PY=/usr/bin/python3
NETD_CONTROL=/run/agentbox-netd/control
NETD_SECRET=sk-abt-REAL-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')

# One octet for this test's 10.200.X.0/24, free among the namespaces that exist.
_netd_pick_x() {
	local x tries=0
	x=$(( $$ % 250 + 1 ))
	while [ -e "/run/netns/abt-nd-$x" ] || [ -e "/run/netns/abt-nu-$x" ]; do
		x=$(( x % 250 + 1 )); tries=$((tries + 1))
		[ $tries -lt 250 ] || return 1
	done
	NETD_X=$x
}

# Both namespaces and the veth pair between them; removed by a defer (deleting a
# namespace deletes its end of the pair, and the pair with it).
netd_net_setup() {
	_netd_pick_x || return 1
	NETD_NS=abt-nd-$NETD_X NETD_UP=abt-nu-$NETD_X
	NETD_SELF4=10.200.$NETD_X.1 NETD_UP4=10.200.$NETD_X.2
	NETD_SELF6=fd00:200:$NETD_X::1 NETD_UP6=fd00:200:$NETD_X::2
	ip netns add "$NETD_NS" || return 1
	defer "ip netns delete $NETD_NS"
	ip netns add "$NETD_UP" || return 1
	defer "ip netns delete $NETD_UP"
	ip -n "$NETD_NS" link add abt-v0 type veth peer name abt-v1 netns "$NETD_UP" &&
	ip -n "$NETD_NS" link set lo up && ip -n "$NETD_UP" link set lo up &&
	ip -n "$NETD_NS" addr add "$NETD_SELF4/24" dev abt-v0 &&
	ip -n "$NETD_UP" addr add "$NETD_UP4/24" dev abt-v1 &&
	ip -n "$NETD_NS" addr add "$NETD_SELF6/64" dev abt-v0 nodad &&
	ip -n "$NETD_UP" addr add "$NETD_UP6/64" dev abt-v1 nodad &&
	ip -n "$NETD_NS" link set abt-v0 up && ip -n "$NETD_UP" link set abt-v1 up
}

# Run a command on the daemon's side / in the upstream (network namespace only).  To
# start one in the background, call nsenter itself, not these: `f &` forks a subshell,
# and $! (what the defer kills) would be that subshell, not the server.
netd_host() { nsenter --net="/run/netns/$NETD_NS" -- "$@"; }
netd_up() { nsenter --net="/run/netns/$NETD_UP" -- "$@"; }

# A test CA and one server certificate for every name the upstream answers to.
netd_pki() {
	local d="$NETD_DIR/pki"
	mkdir -p "$d" || return 1
	(cd "$d" &&
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	    -subj "/CN=agentbox test CA $$" -keyout ca.key -out ca.pem \
	    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
	    >/dev/null 2>&1 &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -subj /CN=api.example.test -keyout srv.key -out srv.csr >/dev/null 2>&1 &&
	printf '%s\n' "subjectAltName=DNS:*.example.test,DNS:example.test,IP:$NETD_UP4,IP:$NETD_UP6" \
	    "extendedKeyUsage=serverAuth" > ext.cnf &&
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
	    -extfile ext.cnf -out srv.pem >/dev/null 2>&1) || return 1
	NETD_CA=$d/ca.pem
	# The world's /etc is a private copy: the gateway's TLS (system store) trusts it.
	cat "$NETD_CA" >> /etc/ssl/certs/ca-certificates.crt
}

# The upstream's static tree: a dumb-HTTP git repository, an npm registry document and
# tarball, a PEP 503 simple index with a wheel; all made here, nothing downloaded.
netd_content() {
	local r="$NETD_DIR/www" w="$NETD_DIR/work"
	mkdir -p "$r" "$w" || return 1
	# git: https://git.example.test/repo.git (dumb HTTP: update-server-info)
	git init -q "$w/repo" && echo "netd test repo" > "$w/repo/README" &&
	git -C "$w/repo" add README &&
	git -C "$w/repo" -c user.name=t -c user.email=t@t commit -qm init &&
	git clone -q --bare "$w/repo" "$r/repo.git" &&
	git -C "$r/repo.git" update-server-info || return 1
	# npm: https://registry.example.test/npm/abt-pkg
	mkdir -p "$w/npm/package" "$r/npm/abt-pkg/-" &&
	echo '{"name":"abt-pkg","version":"1.0.0","main":"index.js"}' > "$w/npm/package/package.json" &&
	echo 'module.exports = "abt-pkg works";' > "$w/npm/package/index.js" &&
	tar -C "$w/npm" -czf "$r/npm/abt-pkg/-/abt-pkg-1.0.0.tgz" package || return 1
	"$NETD_PY" - "$r/npm/abt-pkg" <<-'PY' || return 1
	import base64, hashlib, json, sys
	d = sys.argv[1]
	t = open(d + "/-/abt-pkg-1.0.0.tgz", "rb").read()
	v = {"name": "abt-pkg", "version": "1.0.0", "main": "index.js", "dist": {
	    "tarball": "https://registry.example.test/npm/abt-pkg/-/abt-pkg-1.0.0.tgz",
	    "shasum": hashlib.sha1(t).hexdigest(),
	    "integrity": "sha512-" + base64.b64encode(hashlib.sha512(t).digest()).decode()}}
	doc = {"name": "abt-pkg", "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": v}}
	json.dump(doc, open(d + "/index.json", "w"))
	PY
	# pip: https://registry.example.test/simple/abtpkg/ -> a pure-Python wheel
	mkdir -p "$r/simple/abtpkg" "$r/files" || return 1
	"$NETD_PY" - "$r" <<-'PY' || return 1
	import base64, hashlib, sys, zipfile
	r = sys.argv[1]
	name = "abtpkg-1.0-py3-none-any.whl"
	files = {"abtpkg/__init__.py": b"WORKS = 'abtpkg works'\n",
	         "abtpkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: abtpkg\nVersion: 1.0\n",
	         "abtpkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: abt\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
	rec = ""
	with zipfile.ZipFile(r + "/files/" + name, "w") as z:
	    for p, data in files.items():
	        z.writestr(p, data)
	        h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
	        rec += "%s,sha256=%s,%d\n" % (p, h, len(data))
	    rec += "abtpkg-1.0.dist-info/RECORD,,\n"
	    z.writestr("abtpkg-1.0.dist-info/RECORD", rec)
	h = hashlib.sha256(open(r + "/files/" + name, "rb").read()).hexdigest()
	open(r + "/simple/index.html", "w").write('<a href="abtpkg/">abtpkg</a>\n')
	open(r + "/simple/abtpkg/index.html", "w").write(
	    '<a href="/files/%s#sha256=%s">%s</a>\n' % (name, h, name))
	PY
}

# Names for the daemon's resolver (the world's private /etc/hosts and resolv.conf).
netd_names() {
	cat >> /etc/hosts <<-EOF
	$NETD_UP4 api.example.test registry.example.test git.example.test other.example.test
	$NETD_UP4 blocked.example.test
	$NETD_UP6 v6.example.test
	$NETD_SELF4 self.example.test
	169.254.169.254 metadata.example.test
	127.0.0.1 loop.example.test
	EOF
	rm -f /etc/resolv.conf && echo "nameserver $NETD_UP4" > /etc/resolv.conf
}

netd_upstream_start() {
	NETD_LOG=$NETD_DIR/upstream.log
	: > "$NETD_LOG"
	nsenter --net="/run/netns/$NETD_UP" -- "$NETD_PY" "$NETD_FIX/upstream.py" \
	    --addr "$NETD_UP4" --addr "$NETD_UP6" \
	    --cert "$NETD_DIR/pki/srv.pem" --key "$NETD_DIR/pki/srv.key" --root "$NETD_DIR/www" \
	    --log "$NETD_LOG" --ready "$NETD_DIR/upstream.ready" \
	    >"$NETD_DIR/upstream.err" 2>&1 &
	defer "kill $!"
	local i=0
	while [ ! -s "$NETD_DIR/upstream.ready" ]; do
		i=$((i + 1)); [ $i -lt 100 ] || { sed 's/^/# /' "$NETD_DIR/upstream.err"; return 1; }
		sleep 0.1
	done
}

# The upstream's JSON log holds a line matching the extended regex PATTERN.
netd_upstream_saw() { grep -Eq -- "$1" "$NETD_LOG"; }

_netd_find_bin() {
	NETD_BIN=${AB_NETD_BIN:-/usr/local/sbin/agentbox-netd}
	[ -x "$NETD_BIN" ]
}

# Start the daemon on the daemon's side, with its default control socket and registry
# (this world's private /run), and wait for the socket.  Extra arguments go to it.
netd_daemon_start() {
	_netd_find_bin || { diag "no agentbox-netd at $NETD_BIN"; return 1; }
	rm -f "$NETD_CONTROL"
	nsenter --net="/run/netns/$NETD_NS" -- "$NETD_BIN" --foreground "$@" \
	    >>"$NETD_DIR/netd.log" 2>&1 &
	NETD_PID=$!
	defer "kill $NETD_PID"
	local i=0
	while [ ! -S "$NETD_CONTROL" ]; do
		i=$((i + 1))
		if [ $i -ge 100 ] || ! kill -0 "$NETD_PID" 2>/dev/null; then
			sed 's/^/# netd: /' "$NETD_DIR/netd.log"; return 1
		fi
		sleep 0.05
	done
}

# Stop it the hard way (the lifecycle test's "daemon killed").
netd_daemon_kill() {
	kill -KILL "$NETD_PID" 2>/dev/null
	wait "$NETD_PID" 2>/dev/null
	return 0
}

# Everything a netd test needs before its first enroll.
netd_setup() {
	NETD_DIR=$E2E_DIR/netd
	mkdir -p "$NETD_DIR" || e2e_die "mkdir $NETD_DIR"
	command -v nsenter >/dev/null && command -v ip >/dev/null || skip_all "needs ip and nsenter"
	netd_net_setup || e2e_die "network namespaces and veth"
	netd_pki || e2e_die "test CA (openssl)"
	netd_content || e2e_die "upstream content (git, npm, pip)"
	netd_names || e2e_die "/etc/hosts, /etc/resolv.conf"
	netd_upstream_start || e2e_die "fake upstream"
	[ -n "${NETD_NO_DAEMON:-}" ] || netd_daemon_start || e2e_die "agentbox-netd did not start"
}

# netd_enroll USER PROJECT [EXTRA_POLICY_LINE...]: the real `agentbox enroll --network
# proxy`, then this test's rules in policy.d/USER-netd.conf: the upstream's names, its
# addresses as allow_private, the probes' names (which the address checks must refuse;
# dnsprobe.example.test is allowed but in no /etc/hosts: its lookup must reach the
# upstream's logging DNS, the control that shows that log can see lookups),
# and one credential for api.example.test (x-api-key, $NETD_SECRET) whose variables are
# $NETD_CRED_ENV (default ABT_API_KEY) and $NETD_CRED_BASE_ENV (default ABT_BASE_URL);
# NETD_CRED=0 leaves the credential out (tests that do not need the gateway).
netd_enroll() {
	local user=$1 proj=$2
	shift 2
	mkdir -p "$proj" && chmod 0755 "$proj" || return 1
	e2e_enroll_retry "$user" --project "$proj" --network proxy
	# Not *.pem: the default policy masks that (private keys live in such files).
	chown "$user:" "$proj" && cp "$NETD_CA" "$proj/test-ca.crt" &&
	    chmod 0644 "$proj/test-ca.crt" || return 1
	local key=/etc/agentbox/abt-$user.key f=/etc/agentbox/policy.d/$user-netd.conf l
	defer "rm -f '$f' '$key'"
	printf '%s' "$NETD_SECRET" > "$key" &&
	chown root:agentbox-netd "$key" && chmod 0640 "$key" || return 1
	{
		echo "[user:$user]"
		echo "allow_host = api.example.test registry.example.test git.example.test"
		echo "allow_host = other.example.test v6.example.test dnsprobe.example.test"
		echo "allow_host = api.example.test:80 other.example.test:80"
		echo "allow_host = metadata.example.test:80 loop.example.test:${NETD_LOOP_PORT:-1} self.example.test"
		echo "deny_host = blocked.example.test"
		echo "allow_private = $NETD_UP4/32 $NETD_UP6/128"
		for l in "$@"; do echo "$l"; done
		if [ "${NETD_CRED:-1}" = 1 ]; then
			echo "credential = abt-$user"
			echo
			echo "[credential:abt-$user]"
			echo "host = api.example.test"
			echo "header = x-api-key"
			echo "file = $key"
			echo "env = ${NETD_CRED_ENV:-ABT_API_KEY}"
			echo "base_url_env = ${NETD_CRED_BASE_ENV:-ABT_BASE_URL}"
		fi
	} > "$f" && chmod 0644 "$f" || return 1
	"$E2E_AGENTBOX" check >"$NETD_DIR/check.log" 2>&1 ||
	    { sed 's/^/# check: /' "$NETD_DIR/check.log"; return 1; }
}

# netd_box USER SCRIPT: one proxy-mode login (su), the script run by the login shell.
netd_box() { su "$1" -c "$2"; }

# netd_rec PATTERN [TIMEOUT_S]: the daemon's audit record (op=agentbox-net...) written
# since e2e_audit_since that matches the extended regex PATTERN after its op=.
netd_rec() { e2e_audit_find - "op=agentbox-net.*$1" "${2:-5}"; }
