#!/bin/bash
# Every option and subcommand a program accepts is documented in its man page, and every
# option a page documents is one the program accepts; options the
# README shows on agentbox and agentbox-audit command lines exist too.
#
# What a program accepts is read from two places, so neither can drift alone:
#   - its source: getopt_long tables ({"name", ..._argument}), getopt optstrings, and
#     "--name" / "-x" string literals compared against argv;
#   - its --help output, when the program has one.
# A page documents an option when its roff source (fonts and escapes stripped) has the
# option as a word; the options a page *claims* are the ones in its OPTIONS section.
. "$(dirname "$0")/../lib.sh"

# name | page | source directory | built program (relative to build/, "" = none) | has --help
PROGRAMS="
agentbox|man/agentbox.8|admin|agentbox|yes
agentbox-audit|man/agentbox-audit.8|audit|agentbox-audit|yes
agentbox-shell|man/agentbox-shell.8|shell|agentbox-shell|no
agentbox-netd|man/agentbox-netd.8|netd|agentbox-netd|no
agentbox-maskd|man/agentbox-maskd.8|maskd|agentbox-maskd|no
"

# The roff source as plain words: fonts, escapes and quotes removed.
page_text() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' \
	    -e 's/\\&//g' -e 's/\\ / /g' -e 's/"//g' "$1"
}

# Options in the OPTIONS section of a page, one per line.
page_options() {
	page_text "$1" | awk '/^\.SH / { in_opt = ($2 == "OPTIONS") ; next } in_opt' |
	    grep -oE -- '(^|[^A-Za-z0-9-])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[^-]+//' | sort -u
}

# Options the source of DIR accepts, one per line.
source_options() {
	local dir=$1
	{
		# getopt_long tables: { "json", no_argument, ... }
		grep -hoE '\{ *"[a-z][a-z0-9-]*" *, *(no|required|optional)_argument' "$dir"/*.c 2>/dev/null |
		    sed -E 's/^\{ *"([^"]*)".*/--\1/'
		# getopt / getopt_long optstrings: the letters of "+hc:" (":" and "+" dropped).
		grep -hoE 'getopt(_long)? *\([^,]+, *[^,]+, *"[^"]*"' "$dir"/*.c 2>/dev/null |
		    sed -E 's/.*"([^"]*)"$/\1/' | tr -d ':+' | grep -oE '[A-Za-z]' | sed 's/^/-/'
		# Literal comparisons with argv: strcmp(argv[1], "--version").  Only those:
		# other "-x" literals are arguments to programs the tool runs (useradd ...).
		grep -hoE 'strn?cmp *\(argv\[[^]]+\], *"--?[A-Za-z][A-Za-z0-9-]*"' "$dir"/*.c 2>/dev/null |
		    sed -E 's/.*"(-[^"]*)"$/\1/'
	} | sort -u
}

# Options a --help output mentions, one per line.
help_options() {
	grep -oE -- '(^|[^A-Za-z0-9-])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[^-]+//' | sort -u
}

documents() {	# documents PAGE OPTION: the page has OPTION as a word
	page_text "$1" | grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|\$)"
}

echo "$PROGRAMS" | while IFS='|' read -r name page dir bin has_help; do
	[ -n "$name" ] || continue
	if [ ! -d "$TOP/$dir" ] || ! ls "$TOP/$dir"/*.c >/dev/null 2>&1; then
		echo "not ok - $name: no source in $dir/ (the page documents a program this tree lacks)"
		continue
	fi
	accepted=$(source_options "$TOP/$dir")
	if [ "$has_help" = yes ]; then
		prog="$BUILD/$bin"
		if [ ! -x "$prog" ]; then
			echo "not ok - $name: $prog not built (run make first)"
		else
			help=$("$prog" --help 2>&1)
			echo "ok - $name --help prints something"
			accepted=$(printf '%s\n%s\n' "$accepted" "$(printf '%s\n' "$help" | help_options)" | sort -u)
		fi
	fi
	printf '%s\n' "$accepted" > "${TMPDIR:-/tmp}/man-options.$$.$name"
	for opt in $accepted; do
		if documents "$TOP/$page" "$opt"; then
			echo "ok - $name: $opt is in ${page##*/}"
		else
			echo "not ok - $name: $opt is accepted but not documented in ${page##*/}"
		fi
	done
	for opt in $(page_options "$TOP/$page"); do
		if printf '%s\n' "$accepted" | grep -qxF -- "$opt"; then
			echo "ok - ${page##*/} documents $opt and $name accepts it"
		else
			echo "not ok - ${page##*/} documents $opt but $name does not accept it"
		fi
	done
done > "${TMPDIR:-/tmp}/man-options.$$"
while IFS= read -r line; do
	case $line in
	"ok - "*)     ok "${line#ok - }" ;;
	"not ok - "*) not_ok "${line#not ok - }" ;;
	esac
done < "${TMPDIR:-/tmp}/man-options.$$"
rm -f "${TMPDIR:-/tmp}/man-options.$$"

# The README, too, may only show options the programs accept: every "--option" on a
# line that runs agentbox or agentbox-audit.
for name in agentbox agentbox-audit; do
	acc="${TMPDIR:-/tmp}/man-options.$$.$name"
	[ -s "$acc" ] || continue
	for opt in $(grep -E 'agentbox (enroll|unenroll|check|doctor|sessions)' "$TOP/README.md" |
	    grep -vE "agentbox-audit" |
	    grep -oE -- '(^|[^A-Za-z0-9-])--[a-z][a-z0-9-]*' | sed -E 's/^[^-]//' | sort -u); do
		[ "$name" = agentbox ] || break
		if grep -qxF -- "$opt" "$acc"; then
			ok "README: agentbox $opt exists"
		else
			not_ok "README shows agentbox $opt, which agentbox does not accept"
		fi
	done
	if [ "$name" = agentbox-audit ]; then
		for opt in $(grep -E "agentbox-audit" "$TOP/README.md" |
		    grep -oE -- '(^|[^A-Za-z0-9-])--[a-z][a-z0-9-]*' | sed -E 's/^[^-]//' | sort -u); do
			if grep -qxF -- "$opt" "$acc"; then
				ok "README: agentbox-audit $opt exists"
			else
				not_ok "README shows agentbox-audit $opt, which agentbox-audit does not accept"
			fi
		done
	fi
done
rm -f "${TMPDIR:-/tmp}/man-options.$$".*

# Subcommands: agentbox's come from admin/cmd.h (one cmd_NAME per subcommand).
if [ -f "$TOP/admin/cmd.h" ]; then
	for c in $(grep -oE 'cmd_[a-z]+\(' "$TOP/admin/cmd.h" | sed -E 's/cmd_|\(//g'); do
		if page_text "$TOP/man/agentbox.8" | awk '/^\.SH / { in_c = ($2 == "COMMANDS"); next } in_c' |
		    grep -qE "^\.(B|BI|BR) +$c( |\$)"; then
			ok "agentbox $c is in the COMMANDS of agentbox.8"
		else
			not_ok "agentbox $c has no entry in the COMMANDS of agentbox.8"
		fi
	done
fi

# agentbox-audit's commands: the words main.c compares argv[optind] with.
if [ -f "$TOP/audit/main.c" ]; then
	for c in $(grep -oE 'strcmp\(argv\[optind\], *"[a-z]+"' "$TOP/audit/main.c" | sed -E 's/.*"([a-z]+)"/\1/'); do
		if page_text "$TOP/man/agentbox-audit.8" | awk '/^\.SH / { in_c = ($2 == "COMMANDS"); next } in_c' |
		    grep -qE "^\.(B|BI|BR) +$c( |\$)"; then
			ok "agentbox-audit $c is in the COMMANDS of agentbox-audit.8"
		else
			not_ok "agentbox-audit $c has no entry in the COMMANDS of agentbox-audit.8"
		fi
	done
fi

# The PAM module: every argument the source compares against argv is documented.
if ls "$TOP"/pam_module/*.c >/dev/null 2>&1; then
	args=$(grep -hoE 'strn?cmp\(argv\[[a-z0-9]+\], *"[^"]+"' "$TOP"/pam_module/*.c |
	    sed -E 's/.*"([^"]+)"/\1/' | sed 's/=$//' | sort -u)
	for a in $args; do
		if documents "$TOP/man/pam_agentbox.8" "$a"; then
			ok "pam_agentbox argument $a is in pam_agentbox.8"
		else
			not_ok "pam_agentbox argument $a is not documented in pam_agentbox.8"
		fi
	done
	[ -n "$args" ] || ok "pam_agentbox takes no module argument (none compared against argv)"
else
	not_ok "pam_agentbox: no source in pam_module/"
fi
finish
