#!/bin/bash
# Escape suite, class "paths" (invariant 2: no path name reaches what the policy hides).
# Alternate names for masked and unreadable files, from inside a session entered with su.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"

# Pre-existing names the agent will try (made by the developer, before login).
esc_as_dev "mkdir -p $P/sub" || e2e_die "setup"

esc_begin paths
attempt P01 "read .env by its name"               EACCES rec read "$P/.env"
attempt P02 "read .env via /proc/self/root"        EACCES rec read "/proc/self/root$P/.env"
attempt P03 "read .env via /proc/self/cwd"         EACCES rec read "/proc/self/cwd/.env"
raw "ln -sf $P/.env /tmp/esc-link; ln -sf /proc/self/root$P/.env /tmp/esc-link2"
attempt P04 "read .env through a symlink the agent planted in /tmp" EACCES rec read /tmp/esc-link
attempt P05 "read .env via a .. spelling"          EACCES rec read "$P/sub/../src/../.env"
attempt P06 "read .env via // and /./ spellings"    EACCES rec read "//home//$ESC_DEV/./proj//.env"
attempt P08 "make a new hardlink to .env"         '!OK' 'rec?' link "$P/.env" "$P/docs/env-link"
attempt P09 "rename .env out from under its mask"  '!OK' 'rec?' rename "$P/.env" "$P/docs/env-moved"
attempt P10 "copy .env"                            EACCES rec copy "$P/.env" /tmp/env-copy
raw "tar cf /tmp/p.tar -C $P . 2>/dev/null; if grep -qa ABTSECRET /tmp/p.tar; then echo 'ESC P11 0 OK SECRET-LEAKED in tar'; else echo 'ESC P11 0 OK archive has no secret'; fi"
expect P11 "tar the whole project" OK -
attempt P12 "read the case variant .ENV"           EACCES rec read "$P/.ENV"
attempt P13 "read the editor backup key.pem~"     EACCES rec read "$P/key.pem~"
attempt P14 "read the vim swap file .env.swp"     EACCES rec read "$P/.env.swp"
attempt P15 "O_PATH open of .env re-opened via /proc/self/fd" EACCES rec opath "$P/.env"
attempt P16 "openat2 of .env"                      EACCES rec openat2 "$P/.env"
attempt P17 "file handle of .env (name_to_handle_at/open_by_handle_at)" 'EPERM|EACCES' rec handle "$P/.env"
attempt P18 "read .env via /proc/1/root (the session's pid 1)" 'EACCES|EPERM|ENOENT' 'rec?' read "/proc/1/root$P/.env"
attempt P19 "list /proc/1/map_files"               'EACCES|EPERM|ENOENT' 'rec?' readdir /proc/1/map_files
attempt P20 "list a masked directory (secrets/)"   EACCES rec readdir "$P/secrets"
attempt P21 "read a file under a masked directory" EACCES rec read "$P/secrets/db.txt"
attempt P22 "read the developer's ssh key"         EACCES rec read "$DH/.ssh/id_ed25519"
attempt P23 "read the developer's world-readable notes (outside the read set)" EACCES rec read "$DH/notes.txt"
attempt P24 "read /etc/shadow"                     EACCES rec read /etc/shadow
attempt P25 "read certs/server.pem (*.pem)"        EACCES rec read "$P/certs/server.pem"
attempt P26 "read deploy.key (*.key)"              EACCES rec read "$P/deploy.key"
attempt P27 "read .env.local (.env.*)"             EACCES rec read "$P/.env.local"
raw "ln -sf $DH/notes.txt $P/docs/dev-notes"
attempt P28 "symlink in the project to the developer's notes" EACCES rec read "$P/docs/dev-notes"
attempt P29 "read .env via nested magic links"     EACCES rec read "/proc/self/root/proc/self/root$P/.env"
attempt_sh P30 "list the agent's masked ~/.ssh"    EACCES rec 'readdir "$HOME/.ssh"'
attempt_sh P31 "read the agent's own ssh key"      EACCES rec 'read "$HOME/.ssh/id_ed25519"'
esc_run su
esc_check
esc_assert_confined

# P07: a hardlink to .env that the developer made before login (another name for the
# same inode, not matching any pattern): masked through that name too, or the login is
# refused naming it.
esc_as_dev "ln $P/.env $P/docs/notes-link.txt" || e2e_die "hardlink setup"
esc_begin paths-hardlink
attempt P07 "read .env through a developer's pre-existing hardlink" EACCES rec read "$P/docs/notes-link.txt"
esc_run su
if grep -q '^ESC-END' "$ESC_OUT"; then
	esc_check
else
	# Refused: acceptable only with a reason in the auth log that names the file.
	if grep -qs "notes-link.txt" /var/log/auth.log; then
		ok "P07 login refused with the hardlink named in the auth log"
	else
		not_ok "P07 login failed without naming the hardlink"
		diag "$(tail -n 3 "$ESC_OUT")"
	fi
fi
rm -f "$P/docs/notes-link.txt"

esc_assert_gone "$ESC_AGENT"
finish
