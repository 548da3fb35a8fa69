#!/bin/bash
# agentbox-audit suggest on a real confined session (issue 16 item 4, its suggest part):
# a command that reads /srv/h16sug/x and writes /var/lib/h16sug/out, outside the home and
# the projects, is denied both, with its records; suggest over that session proposes
# exactly "read = /srv/h16sug" and "write = /var/lib/h16sug", and lists the masked .env
# the same command tried as not suggested; with the drop-in installed as it is,
# `agentbox check` passes, the same command succeeds, and the masked file is still
# denied with its record.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
e2e_enter_private_world "$@"

U=h16sug_a
PROJ=/home/h16sug_a-project
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
[ -x "$AA" ] || skip_all "build first"
[ ! -e /var/lib/h16sug ] || e2e_die "/var/lib/h16sug exists on the host: not ours to use"

# /srv and the tool's state directory are the test's own (tmpfs in this mount namespace;
# the empty mount point on the host is removed again).
mount -t tmpfs -o mode=0755 h16sug-srv /srv || e2e_die "tmpfs /srv"
mkdir -p /srv/h16sug && echo 'tool data' > /srv/h16sug/x && chmod 0644 /srv/h16sug/x
mkdir /var/lib/h16sug || e2e_die "mkdir /var/lib/h16sug"
defer "rmdir /var/lib/h16sug"
mount -t tmpfs -o mode=0755 h16sug-state /var/lib/h16sug || e2e_die "tmpfs /var/lib/h16sug"
defer "umount -l /var/lib/h16sug"
mkdir -p "$PROJ" && chmod 0755 "$PROJ"
echo 'API_KEY=secret' > "$PROJ/.env"
e2e_enroll_retry "$U" --project "$PROJ"
chown -R "$U" "$PROJ" /var/lib/h16sug
home=$(getent passwd "$U" | cut -d: -f6)
[ -d "$home" ] || { mkdir -p "$home" && chown "$U:" "$home"; } || e2e_die "home $home"

CMD="cat /srv/h16sug/x > $PROJ/read.out; echo state > /var/lib/h16sug/out; cat $PROJ/.env"
# run LABEL: the command in a new confined session; its records go to $E2E_DIR/LABEL.log
# and its session id to $ses.
run() {
	e2e_audit_since
	su "$U" -c "$CMD" > "$E2E_DIR/$1.out" 2>&1
	rc=$?
	sleep 1	# the session end record, and auditd's flush
	e2e_audit_records > "$E2E_DIR/$1.log"
	ses=$(grep -F "user=\"$U\"" "$E2E_DIR/$1.log" |
		sed -n 's/.*op=agentbox-session-start ses=\([0-9]*\) .*/\1/p' | tail -1)
}

# 1. Denied, each with its record.
run denied
[ -n "$ses" ] && ok "session $ses started" || not_ok "no session start record of $U"
[ "$rc" != 0 ] && ok "the command fails in the box (exit $rc)" || not_ok "the command succeeded unconfined"
[ ! -s /var/lib/h16sug/out ] && ok "nothing written to /var/lib/h16sug" || not_ok "/var/lib/h16sug/out written"
"$AA" --json --session "$ses" --input "$E2E_DIR/denied.log" > "$E2E_DIR/denied.json" 2>/dev/null
like "$(cat "$E2E_DIR/denied.json")" '"kind":"landlock","access":"fs.read_file","path":"/srv/h16sug/x"' \
	"the read of /srv/h16sug/x is on the record (Landlock)"
like "$(cat "$E2E_DIR/denied.json")" '"kind":"landlock","access":"fs.make_reg","path":"/var/lib/h16sug' \
	"the write to /var/lib/h16sug is on the record (Landlock)"
like "$(cat "$E2E_DIR/denied.json")" "\"kind\":\"dac\",\"access\":\"EACCES\",\"path\":\"$PROJ/.env\"" \
	"the masked .env is on the record"

# 2. Exactly those lines; the masked file as a reason.
"$AA" suggest --session "$ses" --input "$E2E_DIR/denied.log" > "$E2E_DIR/suggest.conf" \
	2> "$E2E_DIR/suggest.err"
src=$?
sed 's/^/# | /' "$E2E_DIR/suggest.conf"
is "$src" 0 "suggest: complete record, exit 0"
is "$(grep -v '^#' "$E2E_DIR/suggest.conf" | grep -v '^$')" "[user:$U]
read = /srv/h16sug
write = /var/lib/h16sug" "suggest proposes exactly read = /srv/h16sug and write = /var/lib/h16sug"
like "$(cat "$E2E_DIR/suggest.conf")" "masked: $U's mask patterns hide it" \
	"the masked .env is listed as not suggested, and why"
"$AA" suggest --session "$ses" --input "$E2E_DIR/denied.log" > "$E2E_DIR/suggest2.conf" 2>/dev/null
cmp -s "$E2E_DIR/suggest.conf" "$E2E_DIR/suggest2.conf" && ok "a second run gives the same file" ||
	not_ok "a second run gives another file"

# 3. Installed as it is: valid, and the same command now gets through -- but not to .env.
install -m 0644 -o root -g root "$E2E_DIR/suggest.conf" /etc/agentbox/policy.d/$U-suggest.conf
defer "rm -f /etc/agentbox/policy.d/$U-suggest.conf"
# agentbox check over this user's files alone (the host's policy.d may name projects of
# other users that this private world's empty /home or tmpfs /srv do not have: check
# rightly reports those too).  The real load is the login below.
croot=$E2E_DIR/checkroot
mkdir -p "$croot/etc/agentbox/policy.d" && chmod -R 0755 "$croot"
cp /etc/agentbox/agentbox.conf "$croot/etc/agentbox/"
cp /etc/agentbox/policy.d/$U.conf /etc/agentbox/policy.d/$U-suggest.conf "$croot/etc/agentbox/policy.d/"
chk=$("$E2E_AGENTBOX" check --root "$croot" --user "$U" 2>&1); crc=$?
is "$crc" 0 "agentbox check accepts the drop-in as it is"
like "$chk" "/srv/h16sug" "and reads its lines"
run allowed
is "$(cat "$PROJ/read.out" 2>/dev/null)" "tool data" "with the drop-in: /srv/h16sug/x is read"
is "$(cat /var/lib/h16sug/out 2>/dev/null)" "state" "with the drop-in: /var/lib/h16sug/out is written"
unlike "$(cat "$E2E_DIR/allowed.out")" "API_KEY" "the masked .env is still not readable"
"$AA" --json --session "$ses" --input "$E2E_DIR/allowed.log" > "$E2E_DIR/allowed.json" 2>/dev/null
like "$(cat "$E2E_DIR/allowed.json")" "\"kind\":\"dac\",\"access\":\"EACCES\",\"path\":\"$PROJ/.env\"" \
	"and its denial is on the record"
unlike "$(cat "$E2E_DIR/allowed.json")" '"kind":"landlock"' "no Landlock denial left"
out=$("$AA" suggest --session "$ses" --input "$E2E_DIR/allowed.log" 2>/dev/null)
is "$(grep -v '^#' <<<"$out" | grep -v '^$')" "[user:$U]" "suggest over the new session: nothing more to add"
finish
