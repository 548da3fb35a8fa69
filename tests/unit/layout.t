#!/bin/bash
# The maps a newcomer reads first name what the tree has: every path in the README's
# layout and in pam_module/README.md's file table exists, and every top-level
# directory of the tree is in the layout.  Read from the documents, so a renamed or
# added file shows up here until the documents follow.
. "$(dirname "$0")/../lib.sh"

# The README's layout: the code block under "## Layout...", rows "dir/   text", a row
# continued on lines that start with spaces.  Prints "dir<TAB>text", one per row line.
layout_rows() {
	awk '/^## Layout/ { sec = 1; next }
	     sec && /^```/ { if (inb) exit; inb = 1; next }
	     inb && /^[^ ]/ { dir = $1; sub(/^[^ ]+ +/, ""); print dir "\t" $0; next }
	     inb && /^ / { sub(/^ +/, ""); print dir "\t" $0 }' "$TOP/README.md"
}

# Words in a description that name files: they have a "/" or a source-like suffix
# (man page names, "agentbox.conf(5)", are not files).
path_words() {
	sed -E 's/[A-Za-z0-9_.-]+\([0-9]\)//g' | tr -s ' ,;:()' '\n' | sed 's/\.$//' |
	    grep -E '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]*)*$' |
	    grep -E '/|\.(c|h|md|sh|t|conf|map)$' || true
}

rows=$(layout_rows)
[ -n "$rows" ] || not_ok "README.md: no layout block found under '## Layout'"
dirs=""
while IFS=$'\t' read -r dir text; do
	[ -n "$dir" ] || continue
	case " $dirs " in
	*" ${dir%/} "*) ;;
	*)	dirs="$dirs ${dir%/}"
		if [ -d "$TOP/$dir" ]; then ok "README layout: $dir exists"
		else not_ok "README layout names $dir, which the tree lacks"; fi ;;
	esac
	for w in $(printf '%s\n' "$text" | path_words); do
		if [ -e "$TOP/$dir$w" ]; then ok "README layout: $dir$w exists"
		elif [ -e "$TOP/$w" ]; then ok "README layout: $w exists"
		else not_ok "README layout names $w under $dir, which the tree lacks"; fi
	done
done <<< "$rows"

# Every top-level directory is on the map (the build directory is not the tree's).
if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	top=$(git -C "$TOP" ls-files | sed -n 's|^\([^/.][^/]*\)/.*|\1|p' | sort -u)
else
	top=$(cd "$TOP" && find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' ! -name build |
	    sed 's|^\./||' | sort)
fi
for d in $top; do
	case " $dirs " in
	*" $d "*) ok "README layout has $d/" ;;
	*) not_ok "$d/ is not in the README's layout" ;;
	esac
done

# pam_module/README.md: the first cell of each row of its file table, `file`.
files=$(sed -nE 's/^\| *`([^`]+)` *\|.*/\1/p' "$TOP/pam_module/README.md")
[ -n "$files" ] || not_ok "pam_module/README.md: no file table found"
for f in $files; do
	if [ -e "$TOP/pam_module/$f" ]; then ok "pam_module/README.md: $f exists"
	else not_ok "pam_module/README.md names $f, which pam_module/ lacks"; fi
done

finish
