#!/bin/bash
# Every man page renders without a single groff or man warning.
. "$(dirname "$0")/../lib.sh"

command -v groff >/dev/null || skip_all "groff missing (apt-get install groff-base)"
pages=("$TOP"/man/*.[1-8])
[ -e "${pages[0]}" ] || { not_ok "no man pages under $TOP/man"; finish; }
for p in "${pages[@]}"; do
	name=${p##*/}
	out=$(groff -ww -z -man "$p" 2>&1)
	is "$out" "" "groff -ww -z -man $name: no warning"
	if command -v man >/dev/null; then
		out=$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
		is "$out" "" "man -l $name: renders without warning"
	fi
	# The NAME line is what apropos/whatis index: "name \- description".
	like "$(sed -n '/^\.SH NAME/{n;p}' "$p")" '\-' "$name: NAME line has 'name \\- description'"
done
finish
