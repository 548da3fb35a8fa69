#!/bin/bash
# The warm set (maskd/warm.c; issue 14, the login's fixed cost): a login's reader answers
# ahead what the same user's last login opened first outside its trees.  Real `su`
# logins through pam_agentbox and agentbox-maskd, with the project on the root
# filesystem (so the session's root mount is marked and its shell, loader and libraries
# are asked about): the first login answers nothing ahead, the next does and is asked
# fewer times; the masks hold the same in a warm login (a .env masked at login, a *.pem
# made during it: EPERM on the record with its ses); a path the last logins read, turned
# into a symlink to a masked file, is not followed ahead and reading through it is denied
# on the record; a file answered ahead, or cached by a first open, that the host moves into
# the project under a masked name is asked again and denied; with --warm 0 nothing is
# answered ahead.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
E2E_NO_INSTALL=1 e2e_enter_private_world "$@"
command -v auditctl >/dev/null || skip_all "auditctl missing"
# The trees on the root filesystem: the world's /home is a tmpfs, and a session's /tmp and
# /var/tmp are its own; /srv is the host's, in the world and in the session.
[ -d /srv ] || skip_all "no /srv"
W=$(mktemp -d /srv/abt-warm.XXXXXX) || e2e_die "scratch directory"
defer "rm -rf '$W'"
chmod 0755 "$W"
[ "$(stat -c %d /)" = "$(stat -c %d "$W")" ] || skip_all "/srv is not on the root filesystem"
pam_setup
U=h14_warm
pam_user $U "$PAM_WORLD_SHELL"
pam_stack su
UID_A=$(id -u $U)
P=$W/proj
OUT=$W/out	# outside every tree, on the root filesystem
install -d -m 0755 -o $U -g $U "$P" || e2e_die "project"
install -d -m 0755 "$OUT" || e2e_die "outside directory"
printf 'SECRET-0' > "$P/.env" && chown $U: "$P/.env"
printf 'plain' > "$OUT/lib.txt"
{ cat "$TOP/policy/agentbox.conf"; printf '[user:%s]\nproject = %s\n' $U "$P"; } | pam_policy
pam_maskd_try
pam_eperm_rule "$UID_A" || e2e_die "audit rule for uid $UID_A"

# login CMD: one login running CMD; its output in out, its session id in SES.
login() {
	out=$(su $U -c "cat /proc/self/sessionid; echo; $1" 2>&1)
	SES=$(head -1 <<<"$out")
	out=$(tail -n +2 <<<"$out")
}
# ended FIELD: FIELD's count in the daemon's "ses SES ended (...)" line of the last
# login (its reader writes it once pid 1 is gone: poll up to 5 s).
ended() {
	local i line=
	for i in $(seq 50); do
		line=$(grep -E "ses $SES ended \(" "$E2E_DIR/maskd/log" | tail -1)
		[ -n "$line" ] && break
		sleep 0.1
	done
	sed -nE "s/.*[(,] ?$1 ([0-9]+)[,)].*/\1/p" <<<"$line"
}

e2e_audit_since
login "cat $OUT/lib.txt"
is "$out" plain "login 1 reads a file outside its trees"
c1=$(ended cached) a1=$(ended allowed) w1=$(ended warm)
[ "${c1:-0}" -gt 0 ] && ok "login 1: its reader cached $c1 files" ||
    not_ok "login 1: nothing cached (${c1:-no ended line}): $(tail -3 "$E2E_DIR/maskd/log")"
is "$w1" 0 "login 1: nothing answered ahead (no earlier login of $U)"

login "cat $OUT/lib.txt"
is "$out" plain "login 2 reads the same file"
a2=$(ended allowed) w2=$(ended warm)
if [ "${w2:-0}" -gt 0 ] && [ "$w2" -le 64 ]; then ok "login 2: $w2 files answered ahead (at most 64)"
else not_ok "login 2: answered ahead: ${w2:-no ended line}"; fi
if [ -n "$a2" ] && [ "$a2" -lt "${a1:-0}" ]; then
	ok "login 2's reader was asked fewer times ($a2 opens against $a1)"
else not_ok "login 2's reader was asked $a2 times, login 1's $a1"; fi

# made_then_read WHAT FILE READ: FILE (a masked name) is made from outside 0.5 s into a
# login that reads READ 1.5 s in: EPERM, no secret, the kernel's event with its ses and
# READ's PATH record.
made_then_read() {
	( sleep 0.5; printf 'SECRET-%s' "$RANDOM" > "$2" ) &
	login "sleep 1.5; $TRY read $3"
	wait $!	# not the world's agentbox-maskd, also a child of this shell
	like "$out" "EPERM" "$1: denied (EPERM)"
	[[ $out != *SECRET* ]] || not_ok "$1: the secret leaked: $out"
	e2e_fan_event "$SES" "$3"
	check $? "$1: type=FANOTIFY resp=2 in the event of ses=$SES"
}

# The masks hold the same in a warm login.
login "$TRY read $P/.env"
like "$out" "EACCES" "a warm login: .env at login is masked"
[[ $out != *SECRET* ]] || not_ok "the secret leaked: $out"
made_then_read "a warm login: a *.pem made during it" "$P/late.pem" "$P/late.pem"

# A path the last logins read, now a symlink to a masked name (made during the login):
# the reader does not follow it ahead, and the read through it is judged at the target.
rm -f "$OUT/lib.txt" && ln -s "$P/later.env" "$OUT/lib.txt" || e2e_die "symlink"
made_then_read "a warm path turned into a symlink to a new .env" "$P/later.env" "$OUT/lib.txt"
for i in $(seq 50); do
	e2e_audit_records | grep -F "op=agentbox-mask ses=$SES " |
	    grep -qF " path=\"$P/later.env\" pattern=\"*.env\" " && break
	sleep 0.1
done
[ "$i" -lt 50 ] && ok "...and agentbox-maskd's record names the .env it reached, pattern *.env" ||
    not_ok "no op=agentbox-mask record of ses $SES for $P/later.env"

# An inode that joins S loses its cache mark: a file answered ahead, and one cached by
# the login's own first open, each moved by the host into the project under a masked
# name during the login, are asked again at their next open and denied.
rm -f "$OUT/lib.txt" && printf 'plain' > "$OUT/lib.txt" && printf 'plain' > "$OUT/own.txt"
login "cat $OUT/lib.txt"	# asked (the last set had the symlink): noted again
( sleep 0.5; mv "$OUT/lib.txt" "$P/moved.env"; mv "$OUT/own.txt" "$P/own.env" ) &
login "cat $OUT/own.txt >/dev/null; sleep 1.5; $TRY read $P/moved.env; $TRY read $P/own.env"
wait $!
[ "$(ended warm)" -gt 0 ] 2>/dev/null && ok "that login answered files ahead" ||
    not_ok "that login answered nothing ahead: $(ended warm)"
is "$(grep -c EPERM <<<"$out")" 2 \
    "moved into the project as .env: the file answered ahead and the one its first open cached are both denied" ||
    diag "$out"
e2e_fan_event "$SES" "$P/moved.env"
check $? "...on the record with ses=$SES"

# --warm 0: nothing answered ahead, even after logins.
rm -f "$OUT/lib.txt" && printf 'plain' > "$OUT/lib.txt"
pam_maskd_stop
pam_maskd_start --warm 0 || e2e_die "agentbox-maskd --warm 0"
login "cat $OUT/lib.txt"
login "cat $OUT/lib.txt"
is "$out" plain "--warm 0: the login reads as before"
is "$(ended warm)" 0 "--warm 0: a second login has nothing answered ahead"
e2e_wait_uid_gone "$UID_A" 5 && ok "no process of $U left" ||
    not_ok "processes of $U left: $(ps -o pid,stat,comm -u $UID_A | tr '\n' ' ')"
finish
