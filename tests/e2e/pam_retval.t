#!/bin/bash
# pam_agentbox's exact return codes, through pam_start_confdir() with service files in
# a temporary directory (tests/unit/pam_try.c), for the cases that need root; then the
# whole open/close path of an enrolled session again under ASan/UBSan (LeakSanitizer
# at exit).  A stack whose only module returns PAM_IGNORE is reported by libpam as
# PAM_PERM_DENIED; with pam_permit after it, the session succeeds.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
E2E_NO_INSTALL=1 e2e_enter_private_world "$@"
pam_setup
TRY="$BUILD/tests/pam_try"
TRY_SAN="$BUILD/tests/pam_try_san"
SAN_SO="$BUILD/san/pam_agentbox.so"
[ -x "$TRY" ] || e2e_die "build first: make $TRY"
pam_user abt_pam1 "$PAM_WORLD_SHELL"
pam_user abt_plain
pam_user abt_pam2 /usr/local/sbin/agentbox-shell
P=/home/abt_pam1/proj
install -d -o abt_pam1 -g abt_pam1 "$P" "$P/secrets"
echo s > "$P/.env"; chown abt_pam1: "$P/.env"
# One confdir per stack, each holding a service file named "su": the module opens
# sessions only for services known to run the login shell (pam_module/entry.c).
CONF="$E2E_DIR/pamconf"; mkdir -p "$CONF"/alone "$CONF"/permit "$CONF"/bogus "$CONF"/san "$CONF"/tmpinit
ARGS="root=$PAM_ROOT init=$PAM_INIT"
echo "session required $PAM_SO $ARGS" > "$CONF/alone/su"
printf 'session required %s %s\nsession required pam_permit.so\n' "$PAM_SO" "$ARGS" > "$CONF/permit/su"
echo "session required $PAM_SO $ARGS bogus=1" > "$CONF/bogus/su"
echo "session required $SAN_SO $ARGS" > "$CONF/san/su"
good_policy() {
	pam_policy <<-EOF
	[user:abt_pam1]
	project = $P
	mask = .env secrets/
	network = none

	[user:abt_ghost]
	project = $P
	EOF
}
good_policy
# What pid 2 of the session checks, as the agent: other namespaces, the plan, no host
# process, the mask.  Kept outside /tmp, which is private in the session.
install -d -m 0755 /home/abt-probe
{
	echo '#!/bin/sh'
	echo "[ \"\$(readlink /proc/self/ns/mnt)\" != \"$(readlink /proc/self/ns/mnt)\" ] || { echo '# same mount ns' >&2; exit 1; }"
	echo "[ -s /run/agentbox/session.plan ] || { echo '# no plan' >&2; exit 1; }"
	echo "[ ! -e /proc/$$ ] || { echo '# host process visible' >&2; exit 1; }"
	echo "! cat $P/.env 2>/dev/null || { echo '# mask readable' >&2; exit 1; }"
	echo "[ \"\$\$\" = 2 ] || { echo \"# not pid 2: \$\$\" >&2; exit 1; }"
} > /home/abt-probe/inside
chmod 0755 /home/abt-probe/inside
INSIDE="exec setpriv --reuid=$(id -u abt_pam1) --regid=$(id -g abt_pam1) --clear-groups /home/abt-probe/inside"

is "$(AB_TRY_CMD="$INSIDE" "$TRY" "$CONF/alone" su abt_pam1)" \
    "open=PAM_SUCCESS cmd=0 close=PAM_SUCCESS close2=PAM_SUCCESS" \
    "enrolled: open PAM_SUCCESS, confined pid 2, close PAM_SUCCESS twice (idempotent)"
is "$("$TRY" "$CONF/alone" su abt_plain)" "open=PAM_PERM_DENIED" \
    "unenrolled: the module returns PAM_IGNORE (a lone-module stack: PAM_PERM_DENIED)"
is "$("$TRY" "$CONF/permit" su abt_plain)" "open=PAM_SUCCESS close=PAM_SUCCESS close2=PAM_SUCCESS" \
    "unenrolled: the session stack succeeds"
is "$("$TRY" "$CONF/bogus" su abt_pam1)" "open=PAM_SYSTEM_ERR" "unknown module argument: PAM_SYSTEM_ERR"
is "$("$TRY" "$CONF/bogus" su abt_plain)" "open=PAM_SYSTEM_ERR" \
    "unknown module argument: PAM_SYSTEM_ERR for an unenrolled user too"
is "$("$TRY" "$CONF/alone" su abt_pam2)" "open=PAM_SYSTEM_ERR" \
    "agentbox-shell login shell without a policy section: PAM_SYSTEM_ERR"
is "$("$TRY" "$CONF/alone" su abt_ghost)" "open=PAM_SYSTEM_ERR" \
    "enrolled name missing from passwd: PAM_SYSTEM_ERR"
pam_policy <<EOF
[user:root]
project = $P
EOF
is "$("$TRY" "$CONF/alone" su root)" "open=PAM_SYSTEM_ERR" "root enrolled: PAM_SYSTEM_ERR (root cannot be confined)"
pam_policy <<EOF
[user:abt_pam1]
project = $P
network = sideways
EOF
is "$("$TRY" "$CONF/alone" su abt_pam1)" "open=PAM_SYSTEM_ERR" "bad policy: PAM_SYSTEM_ERR (never PAM_SESSION_ERR)"
is "$("$TRY" "$CONF/permit" su abt_plain)" "open=PAM_SUCCESS close=PAM_SUCCESS close2=PAM_SUCCESS" \
    "bad policy: a user it does not name (shell not agentbox-shell) is not locked out"
is "$("$TRY" "$CONF/alone" su root)" "open=PAM_PERM_DENIED" "bad policy: root is let through (PAM_IGNORE)"
chmod 0666 "$PAM_ROOT/etc/agentbox/agentbox.conf"
good_policy
chmod 0666 "$PAM_ROOT/etc/agentbox/agentbox.conf"
is "$("$TRY" "$CONF/alone" su abt_pam1)" "open=PAM_SYSTEM_ERR" "world-writable policy: PAM_SYSTEM_ERR"
chmod 0644 "$PAM_ROOT/etc/agentbox/agentbox.conf"

# agentbox-init is opened before the world is built: a path under /tmp (which the
# session replaces) still works; one that others could have written is refused.
install -m 0755 "$PAM_INIT" "$E2E_DIR/agentbox-init"
echo "session required $PAM_SO root=$PAM_ROOT init=$E2E_DIR/agentbox-init" > "$CONF/tmpinit/su"
is "$("$TRY" "$CONF/tmpinit" su abt_pam1)" "open=PAM_SUCCESS close=PAM_SUCCESS close2=PAM_SUCCESS" \
    "agentbox-init under /tmp: opened before /tmp is replaced"
chmod 0777 "$E2E_DIR/agentbox-init"
is "$("$TRY" "$CONF/tmpinit" su abt_pam1)" "open=PAM_SYSTEM_ERR" "world-writable agentbox-init: PAM_SYSTEM_ERR"

# A home that does not exist has nothing to mask: su logs in with HOME=/, so do we.
install -d -o abt_pam1 -g abt_pam1 /home/abt-proj
pam_policy <<EOF
[user:abt_pam1]
project = /home/abt-proj
mask = .env
EOF
mv /home/abt_pam1 /home/abt_pam1.away
is "$("$TRY" "$CONF/alone" su abt_pam1)" "open=PAM_SUCCESS close=PAM_SUCCESS close2=PAM_SUCCESS" \
    "enrolled user whose home does not exist: confined"
mv /home/abt_pam1.away /home/abt_pam1
good_policy

# The enrolled path and the refusal path under ASan/UBSan.
if [ -x "$TRY_SAN" ] && [ -f "$SAN_SO" ]; then
	out=$(AB_TRY_CMD="$INSIDE" ASAN_OPTIONS=detect_leaks=1 "$TRY_SAN" "$CONF/san" su abt_pam1 2>&1)
	is "$out" "open=PAM_SUCCESS cmd=0 close=PAM_SUCCESS close2=PAM_SUCCESS" \
	    "ASan/UBSan: enrolled open/close clean (no error, no leak)"
	pam_policy <<-EOF
	[user:abt_pam1]
	project = $P/missing
	EOF
	out=$(ASAN_OPTIONS=detect_leaks=1 "$TRY_SAN" "$CONF/san" su abt_pam1 2>&1)
	is "$out" "open=PAM_SYSTEM_ERR" "ASan/UBSan: refusal path clean"
else
	not_ok "sanitized module or pam_try_san not built"
fi
finish
