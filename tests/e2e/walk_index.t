#!/bin/bash
# The walk index (maskd/walkindex.h, pam_module/walkplan.c): agentbox-maskd keeps which
# directories of a user's trees hold something to mask or protect, and a login walks
# only those, not the whole project (issue 12 item 4, issue 14).  Each test here changes
# the tree between two logins, from outside the session, in a way a stale plan would
# miss, and asserts that the next login masks (EACCES: the login-time mask, not the live
# enforcer's EPERM) or protects (EROFS) it, or walks everything again.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
E2E_NO_INSTALL=1 e2e_enter_private_world "$@"
pam_setup
U=abt_windex1
pam_user "$U" "$PAM_WORLD_SHELL"
pam_stack su
H=/home/$U
P=$H/proj			# a project inside the home (/home is this world's tmpfs)
STASH=/home/abt-windex-stash	# outside every tree, on the same filesystem
# A second agent: one project through a bind mount of a directory of the filesystem
# the first agent's home is on (/home), one on a filesystem of its own (/srv3).
U2=abt_windex2
pam_user "$U2" "$PAM_WORLD_SHELL"
P2=/srv2/p
Q2=/srv3/q
mkdir -p /home/abt-windex-vol/p/src/a /srv2 /srv3 || e2e_die "mkdir"
mount -t tmpfs -o mode=0755 abt-windex-srv2 /srv2 && mkdir -p "$P2" &&
    mount --bind /home/abt-windex-vol/p "$P2" || e2e_die "bind mount of $P2"
defer "umount -l /srv2"
mount -t tmpfs -o mode=0755 abt-windex-srv3 /srv3 && mkdir -p "$Q2/src/b" ||
    e2e_die "tmpfs /srv3"
defer "umount -l /srv3 2>/dev/null"
chown -R "$U2:" /home/abt-windex-vol "$Q2"
pam_policy <<EOF
[user:$U]
project = $P
read = /usr /bin /sbin /lib /lib64 /etc
mask = .env *.pem id_rsa* secrets/ cfg/*.key deploy/*.key
protect = .envrc **/.git/hooks/
network = none

[user:$U2]
project = $P2
project = $Q2
read = /usr /bin /sbin /lib /lib64 /etc
mask = .env
network = none
EOF

# 2,000 plain files in 40 directories, two levels deep, and a few things to mask.
for i in $(seq 1 20); do
	for j in 1 2; do
		mkdir -p "$P/src/m$i/d$j"
		for k in $(seq 1 50); do : > "$P/src/m$i/d$j/f$k.c"; done
	done
done
mkdir -p "$P/.git/hooks" "$P/cfg"
echo SECRET-ENV > "$P/.env"
echo SECRET-KEY > "$P/cfg/site.key"
echo hook > "$P/.git/hooks/pre-commit"
mkdir -p "$STASH"
chown -R "$U:" "$H"
total=$(find "$H" -mindepth 1 | wc -l)

# login CMD: the session's output; LINE: its debug line (walk, entries walked)
login() {
	pam_authlog_since
	OUT=$(su "$U" -c "$1" 2>&1)
	LINE=$(pam_authlog_find "confined session of $U: " 5 | tail -1)
	WALKED=$(sed -n 's/.* \([0-9]*\) entries walked,.*/\1/p' <<<"$LINE")
	HOW=$(sed -n 's/.*, walk \([a-z]*\),.*/\1/p' <<<"$LINE")
}
# Reads (cat) every path given, one line each: PATH<TAB>READ:content or ERR:message
read_each='for f in "$@"; do out=$(cat -- "$f" 2>&1) && r=READ || r=ERR; printf "%s\t%s:%s\n" "$f" "$r" "$out"; done'
reads() { login "$(printf '%q ' bash -c "$read_each" x "$@")"; }
result() { printf '%s\n' "$OUT" | awk -F'\t' -v f="$1" '$1 == f { print $2 }'; }

## 1. The first login walks everything; the second walks by the plan, and masks the same
reads "$P/.env" "$P/cfg/site.key"
is "$HOW" "whole" "the first login of a user walks every tree (the index has no plan yet)"
is "$WALKED" "$total" "... all $total entries"
like "$(result "$P/.env")" "Permission denied" "... and masks .env"
reads "$P/.env" "$P/cfg/site.key" "$P/src/m1/d1/f1.c"
is "$HOW" "planned" "the next login walks by agentbox-maskd's plan"
check "$([ "${WALKED:-9999}" -lt 100 ]; echo $?)" "... reading $WALKED entries of $total"
like "$(result "$P/.env")" "Permission denied" "... .env still masked at login (EACCES: a mount)"
like "$(result "$P/cfg/site.key")" "Permission denied" "... cfg/site.key still masked"
like "$(result "$P/src/m1/d1/f1.c")" "READ:" "... a plain file still readable"
login "echo x > $P/.git/hooks/pre-commit"
like "$OUT" "Read-only file system" "... .git/hooks still protected"

## 2. Created between two logins, deep in a directory the plan left out
echo SECRET-PEM > "$P/src/m7/d2/server.pem"
mkdir "$P/src/m9/d1/secrets" && echo SECRET-DIR > "$P/src/m9/d1/secrets/token"
echo 'export X=1' > "$P/src/m3/.envrc"
mkdir -p "$P/src/m4/vendor/.git/hooks"
echo SECRET-SSH > "$STASH/id_rsa_new" && ln "$STASH/id_rsa_new" "$P/src/m5/d1/plain.txt"
chown -R "$U:" "$H"
reads "$P/src/m7/d2/server.pem" "$P/src/m9/d1/secrets/token"
is "$HOW" "planned" "after files were created: still a planned walk"
like "$(result "$P/src/m7/d2/server.pem")" "Permission denied" \
    "a *.pem created after the last login in a directory the plan left out is masked at login"
like "$(result "$P/src/m9/d1/secrets/token")" "Permission denied" \
    "a new secrets/ directory there is masked at login"
login "echo x >> $P/src/m3/.envrc"
like "$OUT" "Read-only file system" "a new .envrc there is protected at login"
login "touch $P/src/m4/vendor/.git/hooks/post-checkout"
like "$OUT" "Read-only file system" "a new nested .git/hooks/ there is protected at login"

## 3. A directory moved in from outside the trees, holding a secret: walked whole
mkdir -p "$STASH/keys" && echo SECRET-MOVED > "$STASH/keys/id_rsa"
chown -R "$U:" "$STASH"
mv "$STASH/keys" "$P/src/m11/d1/keys"
reads "$P/src/m11/d1/keys/id_rsa"
like "$(result "$P/src/m11/d1/keys/id_rsa")" "Permission denied" \
    "a directory moved into the project with an id_rsa inside: masked at the next login"
# An anchored pattern (deploy/*.key: the project's own deploy/) that starts to match
# because a directory was renamed: no name in it was created.
mkdir -p "$P/src/m12/conf" && echo SECRET-RENAMED > "$P/src/m12/conf/app.key"
chown -R "$U:" "$P/src/m12"
reads "$P/src/m12/conf/app.key"
like "$(result "$P/src/m12/conf/app.key")" "READ:SECRET-RENAMED" \
    "src/m12/conf/app.key is not masked (deploy/*.key)"
mv "$P/src/m12/conf" "$P/deploy"
reads "$P/deploy/app.key"
like "$(result "$P/deploy/app.key")" "Permission denied" \
    "... renamed to deploy/: masked at the next login (a renamed directory is walked whole)"

## 4. The project root replaced: the index forgets, the login walks everything
mv "$P" "$H/proj.old"
mkdir -p "$P/deep/er" && echo NEW-SECRET > "$P/deep/er/.env"
chown -R "$U:" "$P"
reads "$P/deep/er/.env"
is "$HOW" "whole" "the project's root replaced: the next login walks every tree"
like "$(result "$P/deep/er/.env")" "Permission denied" "... and masks the new tree's .env"
rm -rf "$H/proj.old"

## 5. A mount inside the project (another filesystem: the index sees none of its events)
reads "$P/deep/er/.env"
is "$HOW" "planned" "planned again"
mkdir -p "$P/deep/mnt"
mount -t tmpfs -o mode=0755 abt-windex-mnt "$P/deep/mnt" || e2e_die "tmpfs in the project"
defer "umount -l '$P/deep/mnt'"
mkdir -p "$P/deep/mnt/a/b" && echo MNT-SECRET > "$P/deep/mnt/a/b/.env"
reads "$P/deep/mnt/a/b/.env"
like "$(result "$P/deep/mnt/a/b/.env")" "Permission denied" \
    "a .env on a filesystem mounted inside the project is masked at login (mounts are walked whole)"

# ... and once unmounted, what lay under the mount point (never seen by the index: it was
# there before the mount, and an unmount makes no event) is walked whole too.
umount "$P/deep/mnt" || e2e_die "umount"
mkdir -p "$P/deep/under" && echo UNDER > "$P/deep/under/.env" && chown -R "$U:" "$P/deep/under"
mount -t tmpfs -o mode=0755 abt-windex-mnt2 "$P/deep/under" || e2e_die "tmpfs over deep/under"
reads "$P/deep/er/.env"
is "$HOW" "planned" "(a planned login, deep/under mounted over)"
umount "$P/deep/under" || e2e_die "umount deep/under"
reads "$P/deep/under/.env"
like "$(result "$P/deep/under/.env")" "Permission denied" \
    "a .env that lay under a mount the last login saw is masked at login once it is unmounted"
login "ln $P/deep/under/.env $P/deep/under/copy && cat $P/deep/under/copy"
unlike "$OUT" "UNDER" "... and cannot be read through a new link"

## 6. A masked file hard-linked from outside: still refused, as with a whole walk
echo LINKED > "$P/deep/er/server.pem" && chown "$U:" "$P/deep/er/server.pem"
login "echo IN"
is "$HOW" "planned" "(a planned login)"
ln "$P/deep/er/server.pem" "$STASH/outside-link"
login "echo IN"
unlike "$OUT" "IN" "a masked file with a hard link outside the trees still refuses the login"
rm -f "$STASH/outside-link"
login "echo IN"
like "$OUT" "IN" "... and the link gone, logins open again"

## 7. A name that comes while the login walks by its plan (a directory moved from one
# the plan skipped into another, by another session): the login asks again after its
# walk, and walks everything.  Made deterministic by a preload in su, where the module
# runs: the rename is done just before the module's "walkcheck" is sent.
cat > "$E2E_DIR/racer.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	static ssize_t (*real)(int, const void *, size_t, int);
	const char *from = getenv("WX_FROM"), *to = getenv("WX_TO"), *make = getenv("WX_MAKE");
	FILE *f;

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t, int))dlsym(RTLD_NEXT, "send");
	if (len > 10 && memcmp(buf, "walkcheck ", 10) == 0 && from != NULL && to != NULL) {
		if (make != NULL && (f = fopen(make, "w")) != NULL)
			fclose(f);
		(void)rename(from, to);
	}
	return real(fd, buf, len, flags);
}
EOF
cc -shared -fPIC -o "$E2E_DIR/racer.so" "$E2E_DIR/racer.c" -ldl || e2e_die "cc racer.so"
mkdir -p "$P/src/m14/box" "$P/src/m15" && echo RACED > "$P/src/m14/box/.env"
chown -R "$U:" "$P/src/m14" "$P/src/m15"
login "echo IN"	# deep/under and m14/box are in the plan now: move box elsewhere first
mv "$P/src/m14/box" "$P/src/m16" && chown "$U:" "$P/src/m16"
login "echo IN"
mkdir -p "$P/src/m17" && chown "$U:" "$P/src/m17"
login "echo IN"
is "$HOW" "planned" "(planned: src/m16/.env is in the plan, src/m17 is not)"
pam_authlog_since
OUT=$(WX_FROM="$P/src/m16" WX_TO="$P/src/m17/box" LD_PRELOAD="$E2E_DIR/racer.so" \
    su "$U" -c "cat $P/src/m17/box/.env" 2>&1)
LINE=$(pam_authlog_find "confined session of $U: " 5 | tail -1)
like "$LINE" "walk rewalked" "a directory moved between the plan and the walk's end: the login walks everything"
like "$OUT" "Permission denied" "... and masks the moved .env at login (EACCES)"
unlike "$OUT" "RACED" "... which it does not read"
# A name made in a directory the plan skipped, and that directory moved out of the
# trees before the check: the create resolves outside (where it is now), the move's old
# name is in a tree: the check says changed all the same.
mkdir -p "$P/src/m19/x" && chown -R "$U:" "$P/src/m19"
login "echo IN"; login "echo IN"
pam_authlog_since
OUT=$(WX_MAKE="$P/src/m19/x/.env" WX_FROM="$P/src/m19/x" WX_TO="$STASH/x" \
    LD_PRELOAD="$E2E_DIR/racer.so" su "$U" -c "echo IN" 2>&1)
LINE=$(pam_authlog_find "confined session of $U: " 5 | tail -1)
like "$LINE" "walk rewalked" "a directory with a new .env moved out of the trees while the login walked: it walks everything"
rm -rf "$STASH/x"

## 8. A directory name with a newline (the plan is text) costs whole walks, never a login
mkdir -p "$P/src/m18/evil
found /etc" && echo NL > "$P/src/m18/evil
found /etc/.env" && chown -R "$U:" "$P/src/m18"
for i in 1 2 3; do login "echo IN"; done
like "$OUT" "IN" "a masked file under a directory named with a newline: logins still open"
is "$HOW" "whole" "... and walk every tree (the index cannot carry that directory)"
rm -rf "$P/src/m18"
login "echo IN"; login "echo IN"
is "$HOW" "planned" "... until it is gone"

## 9. A project that is a bind mount of a directory on the home's filesystem (marked
# first, through /home): its events are resolved through its own mount too.
login2() {
	pam_authlog_since
	OUT=$(su "$U2" -c "$1" 2>&1)
	LINE=$(pam_authlog_find "confined session of $U2: " 5 | tail -1)
	HOW=$(sed -n 's/.*, walk \([a-z]*\),.*/\1/p' <<<"$LINE")
}
login2 "echo IN"; login2 "echo IN"
is "$HOW" "planned" "a project bind-mounted from the home's filesystem: planned walks"
echo BOUND > /home/abt-windex-vol/p/src/a/.env && chown "$U2:" /home/abt-windex-vol/p/src/a/.env
login2 "cat $P2/src/a/.env"
like "$OUT" "Permission denied" \
    "a .env made through the other path of a bind-mounted project is masked at its next login"
is "$HOW" "planned" "... by a planned walk"
## 10. agentbox-maskd holds no filesystem busy: a project's filesystem can be unmounted
echo Q > "$Q2/src/b/.env" && chown "$U2:" "$Q2/src/b/.env"
login2 "echo IN"
check "$(umount /srv3 >/dev/null 2>&1; echo $?)" \
    "a filesystem holding a project unmounts while no session runs (the index keeps no fd on it)"

## 11. The daemon restarted: it knows nothing, so the next login walks everything
pam_maskd_stop
pam_maskd_start || e2e_die "agentbox-maskd did not start again"
login "echo IN"
is "$HOW" "whole" "after agentbox-maskd restarted, the first login walks every tree"
login "echo IN"
is "$HOW" "planned" "... the one after walks by plan again"

## 12. Without the index (--walk-index 0), every login walks everything
pam_maskd_stop
pam_maskd_start --walk-index 0 || e2e_die "agentbox-maskd did not start again"
login "echo IN"
login "echo IN"
is "$HOW" "whole" "--walk-index 0: every login walks every tree"
pam_maskd_stop
pam_maskd_start || e2e_die "agentbox-maskd did not start again"

e2e_assert_host_clean "$U" "$(id -u "$U")"
e2e_assert_host_clean "$U2" "$(id -u "$U2")"
rm -rf "$STASH"
finish
