#!/bin/bash
# agentbox.conf(5) lists the policy keys exactly as the key table (AB_POLICY_KEYS in
# policy/internal.h) has them: the same keys in the same order under KEYS, each headed
# by its name and value syntax, its entry opening with the table's one-line doc.  The
# table comes from "policy-check --keys" (NAME TAB ARG TAB SECTIONS TAB MERGE TAB DOC).
. "$(dirname "$0")/../lib.sh"

CHECK="$BUILD/tests/policy-check"
MAN="$TOP/man/agentbox.conf.5"
[ -x "$CHECK" ] || skip_all "$CHECK not built (make $CHECK)"

# The page's keys: "NAME TAB ARG TAB DOC" for each top-level .TP entry under .SH KEYS
# (the .TP lists inside .RS ... .RE are a key's values, not keys).  The header line's
# macro arguments are joined as roff joins them, fonts and escapes removed; DOC is the
# entry's first line.
page_keys() {
	perl -ne '
		sub text { my $s = shift; $s =~ s/\\f[BIRP]//g; $s =~ s/\\-/-/g;
			$s =~ s/\\e/\\/g; return $s }
		if (/^\.SH\s+"?([^"\n]*)/) { $in = ($1 eq "KEYS"); next }
		next unless $in;
		if (/^\.RS/) { $depth++; next }
		if (/^\.RE/) { $depth--; next }
		if ($depth == 0 && /^\.TP/) { $want = 1; next }
		chomp;
		if ($want == 1) {
			s/^\.[A-Z]+\s+//;
			my $h = "";
			while (/\G\s*(?:"([^"]*)"|(\S+))/gc) { $h .= defined $1 ? $1 : $2 }
			$h = text($h);
			($name, $arg) = $h =~ /^(\S+) ?(.*)$/;
			$want = 2;
			next;
		}
		if ($want == 2) { print "$name\t$arg\t", text($_), "\n"; $want = 0 }
	' "$MAN"
}

table=$("$CHECK" --keys); rc=$?
is "$rc" 0 "policy-check --keys: exit 0"
[ -n "$table" ] || not_ok "policy-check --keys printed no keys"
page=$(page_keys)

# Keys of [defaults] and [user:NAME] are the ones the KEYS section documents.
want=$(printf '%s\n' "$table" |
    awk -F'\t' '$3 ~ /\[defaults\]|\[user:NAME\]/ { print $1 "\t" $2 "\t" $5 }')
names() { printf '%s\n' "$1" | cut -f1 | tr '\n' ' '; }
is "$(names "$page")" "$(names "$want")" "KEYS lists the table's keys, in its order"
while IFS=$'\t' read -r name arg doc; do
	[ -n "$name" ] || continue
	got=$(printf '%s\n' "$page" | awk -F'\t' -v k="$name" '$1 == k')
	is "$got" "$name"$'\t'"$arg"$'\t'"$doc" \
	    "$name: header '$name $arg' and first line as in the table"
done <<< "$want"

# A key of any other section kind is documented somewhere in the page too.  (Not a
# pipeline into the loop: ok/not_ok must count in this shell, not a subshell.)
while read -r name; do
	[ -n "$name" ] || continue
	if grep -qE "^\.B[IR]? $name( |\$)" "$MAN"; then ok "$name: documented"
	else not_ok "$name: not documented in agentbox.conf(5)"; fi
done < <(printf '%s\n' "$table" | awk -F'\t' '$3 !~ /\[defaults\]|\[user:NAME\]/ { print $1 }')

# A list's syntax ends in " ..." and its lines add up; a scalar's last line wins.
while IFS=$'\t' read -r name arg sections merge doc; do
	[ -n "$name" ] || continue
	case "$arg" in
	*" ...") is "$merge" append "$name: a list ($arg) appends" ;;
	*) is "$merge" last "$name: a single value ($arg): the last wins" ;;
	esac
done <<< "$table"
finish
