#!/bin/bash
# Learning mode in real confined sessions (issue 16 item 2; agentbox.conf(5) "learn";
# docs/audit-records.md "Learning records").  A user enrolled with --learn runs a
# command that reads /srv/h16learn/x and writes /var/lib/h16learn/out, outside the home
# and the projects, twice, and then tries its project's masked .env.  In learning mode
# both get through and each path and access is recorded once, as agentbox-learn records
# of that session (nothing the policy allows is recorded); the masked .env is still
# denied, with its record, and so is another project's world-readable .env outside
# every tree (Landlock's read set no longer stands in front of it: masks hold outside
# the trees where the policy grants no read), while a mask-matching name under /opt (read
# set) is read as when enforcing; the start record says learn=yes and doctor warns.  Without
# learn = yes the same command is refused again by Landlock.  A session's records name
# only the session's own opens: root's reads of the same paths outside are not recorded.
# A learning record that cannot stay whole (agentbox-maskd --learn-max 2) says so, and
# the review and suggest say it is incomplete.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
e2e_enter_private_world "$@"

U=h16learn_a
PROJ=/home/h16learn_a-project
AA=${AGENTBOX_AUDIT:-$BUILD/tests/agentbox-audit-san}
[ ! -e /var/lib/h16learn ] || e2e_die "/var/lib/h16learn exists on the host: not ours to use"

mount -t tmpfs -o mode=0755 h16learn-srv /srv || e2e_die "tmpfs /srv"
mkdir -p /srv/h16learn && echo 'tool data' > /srv/h16learn/x && chmod 0644 /srv/h16learn/x
# Another project's secret, world-readable, in no tree of the agent's: Landlock's read
# set keeps an enforcing session from it; a learning session has only the masks.
echo 'OTHER_CLIENT_KEY=s3cret' > /srv/h16learn/.env && chmod 0644 /srv/h16learn/.env
# A mask-matching name where the policy grants reading (/opt): read in both modes.
[ ! -e /opt/h16learn ] || e2e_die "/opt/h16learn exists on the host: not ours to use"
mkdir -p /opt/h16learn || e2e_die "mkdir /opt/h16learn"
defer "rmdir /opt/h16learn"
mount -t tmpfs -o mode=0755 h16learn-opt /opt/h16learn || e2e_die "tmpfs /opt/h16learn"
defer "umount -l /opt/h16learn"
echo 'PUBLIC CA' > /opt/h16learn/ca.pem && chmod 0644 /opt/h16learn/ca.pem
mkdir /var/lib/h16learn || e2e_die "mkdir /var/lib/h16learn"
defer "rmdir /var/lib/h16learn"
mount -t tmpfs -o mode=0755 h16learn-state /var/lib/h16learn || e2e_die "tmpfs state"
defer "umount -l /var/lib/h16learn"
mkdir -p "$PROJ" && chmod 0755 "$PROJ"
echo 'API_KEY=secret' > "$PROJ/.env"
# Not in $(...): the defers e2e_enroll registers (unenroll, the uid's audit rules) must be
# this shell's, or the rules outlive the test.
e2e_enroll_retry "$U" --project "$PROJ" --learn > "$E2E_DIR/enroll.out" 2>&1
chown -R "$U" "$PROJ" /var/lib/h16learn
home=$(getent passwd "$U" | cut -d: -f6)
[ -d "$home" ] || { mkdir -p "$home" && chown "$U:" "$home"; } || e2e_die "home $home"
like "$(cat /etc/agentbox/policy.d/$U.conf)" "learn = yes" "enroll --learn writes learn = yes"
like "$(cat "$E2E_DIR/enroll.out")" "$U learns: files outside its read and write sets" \
	"and says what learning allows"

CMD="cat /srv/h16learn/x > $PROJ/read.out; cat /srv/h16learn/x > /dev/null;
echo state > /var/lib/h16learn/out; echo again >> /var/lib/h16learn/out; cat $PROJ/.env;
cat /srv/h16learn/.env; cat /opt/h16learn/ca.pem > $PROJ/pem.out"
run() {
	e2e_audit_since
	su "$U" -c "$CMD" > "$E2E_DIR/$1.out" 2>&1
	rc=$?
	sleep 1	# the session end record, and auditd's flush
	e2e_audit_records > "$E2E_DIR/$1.log"
	ses=$(grep -F "user=\"$U\"" "$E2E_DIR/$1.log" |
		sed -n 's/.*op=agentbox-session-start ses=\([0-9]*\) .*/\1/p' | tail -1)
}
# learn_recs SES: the learning records of session SES, as "ACCESS PATH" lines, sorted.
learn_recs() {
	grep "op=agentbox-learn ses=$1 " "$E2E_DIR/$2.log" |
		sed -n 's/.* access=\([a-z]*\) path="\([^"]*\)".*/\1 \2/p' | sort
}

# 1. Learning: through, recorded, masks hold.
run learn
[ -n "$ses" ] && ok "session $ses started" || not_ok "no session start record of $U"
like "$(grep "op=agentbox-session-start ses=$ses " "$E2E_DIR/learn.log")" " learn=yes" \
	"the start record says learn=yes"
is "$(cat "$PROJ/read.out" 2>/dev/null)" "tool data" "learning: /srv/h16learn/x is read"
is "$(cat /var/lib/h16learn/out 2>/dev/null)" "state
again" "learning: /var/lib/h16learn/out is written"
unlike "$(cat "$E2E_DIR/learn.out")" "API_KEY" "learning: the masked .env is still not readable"
"$AA" --json --session "$ses" --input "$E2E_DIR/learn.log" > "$E2E_DIR/learn.json" 2>/dev/null
like "$(cat "$E2E_DIR/learn.json")" "\"kind\":\"dac\",\"access\":\"EACCES\",\"path\":\"$PROJ/.env\"" \
	"learning: the masked .env's denial is on the record"
unlike "$(cat "$E2E_DIR/learn.out")" "OTHER_CLIENT_KEY" \
	"learning: another project's .env, outside every tree and the read set, is masked too"
like "$(cat "$E2E_DIR/learn.json")" '"kind":"dac","access":"EPERM","path":"/srv/h16learn/.env"' \
	"learning: and its denial (agentbox-maskd, EPERM) is on the record"
is "$(cat "$PROJ/pem.out" 2>/dev/null)" "PUBLIC CA" \
	"learning: a mask-matching name the read set grants (/opt) is read, as when enforcing"
recs=$(learn_recs "$ses" learn)
sed 's/^/# learn: /' <<<"$recs"
# /var/lib is in the default read set: its file's open is no would-be denial, its write is.
is "$recs" "read /srv/h16learn/x
write /var/lib/h16learn/out" \
	"each path and access outside the policy recorded once, and nothing else"
like "$(grep "op=agentbox-learn ses=$ses " "$E2E_DIR/learn.log" | head -1)" \
	"uid=$(id -u "$U") pid=[0-9]* access=[a-z]* path=\"[^\"]*\" comm=\"" \
	"a learning record carries uid, pid, access, path and comm"
unlike "$(cat "$E2E_DIR/learn.log")" "op=agentbox-learn-lost" "no learning record lost"
"$AA" --json --kind learn --session "$ses" --input "$E2E_DIR/learn.log" \
	> "$E2E_DIR/learnkind.json" 2>/dev/null
is "$(grep -c . "$E2E_DIR/learnkind.json")" 2 "agentbox-audit --kind learn lists the two would-be denials"
like "$(head -1 "$E2E_DIR/learnkind.json")" '"learn":true' \
	"as Landlock's, marked learn"
like "$("$AA" sessions --session "$ses" --input "$E2E_DIR/learn.log" 2>/dev/null)" "\[learning\]" \
	"agentbox-audit sessions marks the session [learning]"
"$AA" suggest --session "$ses" --input "$E2E_DIR/learn.log" > "$E2E_DIR/suggest.conf" \
	2> "$E2E_DIR/suggest.err"
sed 's/^/# | /' "$E2E_DIR/suggest.conf"
is "$(grep -v '^#' "$E2E_DIR/suggest.conf" | grep -v '^$')" "[user:$U]
read = /srv/h16learn
write = /var/lib/h16learn" "suggest over the learning session proposes exactly its two lines"
like "$(cat "$E2E_DIR/suggest.conf")" "# CAREFUL: it holds /srv/h16learn/.env, which a mask matches" \
	"and warns that its read line uncovers the masked .env outside the trees"
# agentbox run in a learning box: the command gets through, and its summary says what an
# enforcing session would have refused.
rm -f /var/lib/h16learn/run.out
runout=$("$E2E_AGENTBOX" run -u "$U" -C "$PROJ" -- sh -c \
	'cat /srv/h16learn/x > /var/lib/h16learn/run.out' 2>&1); rrc=$?
sed 's/^/# run: /' <<<"$runout"
is "$rrc" 0 "agentbox run in a learning box: the command's own status (0)"
is "$(cat /var/lib/h16learn/run.out 2>/dev/null)" "tool data" "agentbox run: it wrote outside its policy"
like "$runout" "of them 2 let through by learning (learn = yes)" "agentbox run counts what learning let through"
like "$runout" "learning: allowed and recorded, enforcing would refuse it" \
	"agentbox run's summary says what an enforcing session would refuse"
doc=$("$E2E_AGENTBOX" doctor 2>&1)
like "$doc" "warn  user $U: learning" "agentbox doctor warns while $U learns"
# --ephemeral puts the trees on overlayfs, which fanotify cannot mark: a learning login
# there would run without Landlock's files and unrecorded, so it is refused, and says why.
authoff=$(stat -c %s /var/log/auth.log)
must_fail "$E2E_AGENTBOX" run -u "$U" -C "$PROJ" --ephemeral -- true
sleep 1	# rsyslog writes asynchronously
like "$(tail -c +$((authoff + 1)) /var/log/auth.log)" \
	"a learning session needs its trees marked, and fanotify cannot mark overlayfs" \
	"with one auth-log line saying why"

# 2. Root outside reads the same paths: not the session's, never recorded.
e2e_audit_since
su "$U" -c "sleep 2" >/dev/null 2>&1 &
spid=$!
sleep 1
cat /srv/h16learn/x /var/lib/h16learn/out > /dev/null
wait $spid
sleep 1
e2e_audit_records > "$E2E_DIR/outside.log"
is "$(grep -c "op=agentbox-learn " "$E2E_DIR/outside.log")" 0 \
	"root's reads outside the session are not recorded"

# 3. Enforcing again: the same command is refused by Landlock.
sed -i '/^learn = yes$/d; /^# Learning:/d' /etc/agentbox/policy.d/$U.conf
rm -f /var/lib/h16learn/out "$PROJ/read.out" "$PROJ/pem.out"
run enforce
[ ! -s /var/lib/h16learn/out ] && ok "enforcing: nothing written to /var/lib/h16learn" ||
	not_ok "enforcing: /var/lib/h16learn/out written"
"$AA" --json --session "$ses" --input "$E2E_DIR/enforce.log" > "$E2E_DIR/enforce.json" 2>/dev/null
like "$(cat "$E2E_DIR/enforce.json")" '"kind":"landlock","access":"fs.read_file","path":"/srv/h16learn/x"' \
	"enforcing: the read is a Landlock denial again"
unlike "$(cat "$E2E_DIR/enforce.log")" "op=agentbox-learn " "enforcing: no learning record"
like "$(grep "op=agentbox-session-start ses=$ses " "$E2E_DIR/enforce.log")" "ses=$ses " \
	"enforcing: its start record is there"
unlike "$(grep "op=agentbox-session-start ses=$ses " "$E2E_DIR/enforce.log")" "learn=" \
	"enforcing: the start record does not say learn"
like "$(cat "$E2E_DIR/enforce.json")" '"kind":"landlock","access":"fs.read_file","path":"/srv/h16learn/.env"' \
	"enforcing: the other project's .env is Landlock's"
is "$(cat "$PROJ/pem.out" 2>/dev/null)" "PUBLIC CA" "enforcing: the /opt name is read too"

# 4. Enforcing with suggest's lines: the command gets through, the masks still hold.
install -m 0644 -o root -g root "$E2E_DIR/suggest.conf" /etc/agentbox/policy.d/$U-suggest.conf
defer "rm -f /etc/agentbox/policy.d/$U-suggest.conf"
rm -f /var/lib/h16learn/out "$PROJ/read.out"
run suggested
is "$(cat "$PROJ/read.out" 2>/dev/null)" "tool data" "with suggest's lines: /srv/h16learn/x is read"
is "$(cat /var/lib/h16learn/out 2>/dev/null)" "state
again" "with suggest's lines: /var/lib/h16learn/out is written"
unlike "$(cat "$E2E_DIR/suggested.out")" "API_KEY" "with suggest's lines: the project's .env is still masked"
"$AA" --json --session "$ses" --input "$E2E_DIR/suggested.log" > "$E2E_DIR/suggested.json" 2>/dev/null
unlike "$(grep -v '/srv/h16learn/.env' "$E2E_DIR/suggested.json")" '"kind":"landlock"' \
	"with suggest's lines: no Landlock denial of the command's own paths"

# 5. A learning record that cannot stay whole says so: agentbox-maskd restarted with room
# for two recorded paths; a session reads four outside its policy.
mkdir -p /srv/h16learn2 && for f in a b c d; do echo "$f" > /srv/h16learn2/$f; done
chmod -R a+rX /srv/h16learn2
printf 'learn = yes\n' >> /etc/agentbox/policy.d/$U.conf
kill "$E2E_MASKD_PID" && while kill -0 "$E2E_MASKD_PID" 2>/dev/null; do sleep 0.05; done
rm -f /run/agentbox-maskd/control
E2E_MASKD_ARGS="--learn-max 2" _e2e_maskd_start || e2e_die "agentbox-maskd --learn-max 2"
CMD="cat /srv/h16learn2/a /srv/h16learn2/b /srv/h16learn2/c /srv/h16learn2/d > $PROJ/four.out"
run full
is "$(tr -d '\n' < "$PROJ/four.out" 2>/dev/null)" "abcd" "the session still reads all four"
is "$(learn_recs "$ses" full)" "read /srv/h16learn2/a
read /srv/h16learn2/b" "the first two are recorded"
like "$(grep "op=agentbox-learn-lost ses=$ses " "$E2E_DIR/full.log")" "reason=table-full" \
	"then one agentbox-learn-lost record says the table is full"
like "$("$AA" sessions --session "$ses" --input "$E2E_DIR/full.log" 2>/dev/null)" \
	"learning record incomplete: table-full" "agentbox-audit sessions says the record is incomplete"
"$AA" suggest --session "$ses" --input "$E2E_DIR/full.log" > "$E2E_DIR/full.conf" 2>/dev/null
is "$?" 1 "suggest over it: exit 1 (not known complete)"
like "$(cat "$E2E_DIR/full.conf")" "# INCOMPLETE: the learning record of session $ses is incomplete (table-full)" \
	"and its header says so"
finish
