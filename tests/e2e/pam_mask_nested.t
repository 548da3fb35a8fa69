#!/bin/bash
# Nested trees: a project inside the home, and a second project inside the first, are
# walked once, inside the enclosing tree (pam_module/mask.c, enter_nested_root), with
# every entry matched relative to each tree that holds it, as separate walks would:
# anchored patterns ("/top", "cfg/key.txt", "proj/only-home.txt") apply relative to the
# tree they are read from, and only there.  A project outside the home is walked on its
# own.  The module's debug line proves the single walk (entries walked).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-pam.sh"
E2E_NO_INSTALL=1 e2e_enter_private_world "$@"
pam_setup
U=abt_nest1
pam_user "$U" "$PAM_WORLD_SHELL"
pam_stack su
H=/home/$U
P=$H/proj		# a project inside the home
Q=$P/inner		# a project inside that project
O=/srv/abt-nest-out	# a project outside the home
mkdir -p /srv && mount -t tmpfs -o mode=0755 abt-nest-srv /srv || e2e_die "tmpfs /srv"
defer "umount -l /srv"

pam_policy <<EOF
[user:$U]
project = $P
project = $Q
project = $O
read = /usr /bin /sbin /lib /lib64 /etc
mask = /top cfg/key.txt proj/only-home.txt /proj/secret.txt
protect = /locked/
network = none
EOF

masked=(
	"$H/top"			# /top, relative to the home
	"$P/top"			# /top, relative to proj
	"$Q/top"			# /top, relative to inner
	"$O/top"			# /top, relative to the outside project
	"$H/cfg/key.txt"		# cfg/key.txt, each tree's own
	"$P/cfg/key.txt"
	"$Q/cfg/key.txt"
	"$O/cfg/key.txt"
	"$P/only-home.txt"		# proj/only-home.txt: the home's pattern into proj
	"$P/secret.txt"			# /proj/secret.txt: anchored, from the home (admin.t:
					# enroll's ACL denies the same file)
)
readable=(
	"$P/sub/top"			# /top is anchored: not at depth 2 of any tree
	"$P/sub/cfg/key.txt"		# cfg/key.txt is anchored too
	"$Q/only-home.txt"		# only-home.txt is proj/..., from the home only
	"$O/only-home.txt"
	"$H/notes.txt"
	"$P/sub/secret.txt"		# /proj/secret.txt is anchored
	"$Q/secret.txt"
)
for f in "${masked[@]}" "${readable[@]}"; do
	mkdir -p "$(dirname "$f")" && echo "content of $f" > "$f"
done
mkdir -p "$H/locked" "$P/locked" "$Q/locked" "$P/sub/locked"
chown -R "$U:" "$H" "$O"
# What one walk of each of the two outer trees visits, counted before anything is added.
want=$(( $(find "$H" -mindepth 1 | wc -l) + $(find "$O" -mindepth 1 | wc -l) ))

check=/usr/local/lib/abt-pam/nest-check.sh
cat > "$check" <<'EOF'
#!/bin/bash
for f in "$@"; do
	out=$(cat -- "$f" 2>&1) && r=READ || r=ERR
	printf '%s\t%s:%s\n' "$f" "$r" "$out"
done
EOF
chmod 0755 "$check"
pam_authlog_since
out=$(su "$U" -c "$(printf '%q ' "$check" "${masked[@]}" "${readable[@]}")" 2>&1)
for f in "${masked[@]}"; do
	line=$(printf '%s\n' "$out" | awk -F'\t' -v f="$f" '$1 == f')
	like "$line" "ERR:" "masked: $f"
	like "$line" "Permission denied" "... EACCES: $f"
done
for f in "${readable[@]}"; do
	line=$(printf '%s\n' "$out" | awk -F'\t' -v f="$f" '$1 == f')
	like "$line" "READ:content of $f" "not masked: $f"
done

# protect = /locked/: each tree's own top-level locked/, and not proj/sub/locked.
for d in "$H/locked" "$P/locked" "$Q/locked"; do
	out=$(su "$U" -c "touch $d/x" 2>&1)
	like "$out" "Read-only file system" "protected: $d"
done
out=$(su "$U" -c "touch $P/sub/locked/x && echo wrote" 2>&1)
is "$out" "wrote" "not protected: $P/sub/locked"

# One walk of the home (proj and inner inside it) and one of the outside project: the
# entries walked are the entries of those two trees, each counted once.
line=$(pam_authlog_find "confined session of $U: " 5 | head -1)
walked=$(sed -n 's/.* \([0-9]*\) entries walked,.*/\1/p' <<<"$line")
is "$walked" "$want" "nested projects walked once: $walked entries (home + outside project)"
e2e_assert_host_clean "$U" "$(id -u "$U")"
finish
