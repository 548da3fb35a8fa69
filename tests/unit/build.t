#!/bin/bash
# The build itself: header dependencies in every flavour, quiet parsing on a machine
# without the packages, fragments that cannot go missing silently, one test registry.
# Builds a few objects in a scratch build directory (make B=DIR), never in build/.
. "$(dirname "$0")/../lib.sh"

# prove may run under make: its jobserver and flags are not ours.
unset MAKEFLAGS MFLAGS MAKELEVEL
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab-build.XXXXXX") || skip_all "mktemp"
defer "rm -rf '$tmp'"
mk() { make -s -C "$TOP" B="$tmp/b" "$@"; }

# 1. Touching a header rebuilds every object whose source includes it, in every flavour
# that source is compiled in (the compiler writes the lists: nobody keeps them by hand).
# source | flavours ("-" = normal, then san, musl, fuzz)
SOURCES="
pam_module/mask.c|- san
policy/pattern.c|- san musl fuzz
shell/landlock.c|- san musl
audit/group.c|- san fuzz
admin/util.c|- san
tests/unit/test_pam_prefilter.c|san
lib/text.c|- san musl fuzz
netd/hostcheck.c|- san fuzz
"
INC_DIRS="policy lib tests pam_module shell audit admin netd"

# The headers SRC names with #include "...", as paths in the tree (generated ones,
# which live in the build directory, are left out).
headers_of() {
	local src=$1 name d
	for name in $(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$TOP/$src"); do
		for d in "$(dirname "$src")" $INC_DIRS; do
			if [ -f "$TOP/$d/$name" ]; then
				realpath --relative-to="$TOP" "$TOP/$d/$name"
				break
			fi
		done
	done
}

pairs="" objs=""
while IFS='|' read -r src flavours; do
	[ -n "$src" ] || continue
	[ -f "$TOP/$src" ] || { diag "$src: gone (renamed?): not checked"; continue; }
	for f in $flavours; do
		case $f in
		musl) command -v musl-gcc >/dev/null || { diag "no musl-gcc: $src musl not checked"; continue; } ;;
		fuzz) command -v clang >/dev/null || { diag "no clang: $src fuzz not checked"; continue; } ;;
		esac
		if [ "$f" = - ]; then p=""; else p="$f/"; fi
		pairs="$pairs $src:$tmp/b/$p${src%.c}.o"
		objs="$objs $tmp/b/$p${src%.c}.o"
	done
done <<< "$SOURCES"

# shellcheck disable=SC2086
if mk -j2 $objs >"$tmp/build.log" 2>&1; then
	ok "scratch build of the objects checked below"
	for pair in $pairs; do
		src=${pair%%:*} obj=${pair#*:}
		# make -q on a missing object says "rebuild" whatever the header did.
		[ -f "$obj" ] || { not_ok "${obj#"$tmp"/b/} was not built"; continue; }
		hdrs=$(headers_of "$src")
		[ -n "$hdrs" ] || not_ok "$src: no header found to check (#include parsing broken?)"
		for h in $hdrs; do
			mk -q -W "$h" "$obj"
			case $? in
			1) ok "touching $h rebuilds ${obj#"$tmp"/b/}" ;;
			0) not_ok "touching $h leaves ${obj#"$tmp"/b/} stale" ;;
			*) not_ok "make -q -W $h ${obj#"$tmp"/b/} failed" ;;
			esac
		done
	done
	# shellcheck disable=SC2086
	mk -q $objs
	is "$?" 0 "a second make rebuilds nothing"
else
	not_ok "scratch build of the objects checked below"
	sed 's/^/# /' "$tmp/build.log" | tail -20
fi

# 2. Reading the makefiles asks pkg-config nothing: on a fresh machine `make check` and
# `make demo` install the packages first and must not print ~30 lines about them before.
out=$(PKG_CONFIG_PATH=/nonexistent PKG_CONFIG_LIBDIR=/nonexistent \
      make -n -C "$TOP" B="$tmp/nopkg" demo all check-unit 2>&1)
unlike "$out" "not found" "make -n with no packages prints nothing about them"
unlike "$out" "No package" "make -n with no packages: no pkg-config error"

# 3. A fragment cannot drop out silently: the Makefile includes them with plain include.
bad=$(grep -nE '^[[:space:]]*-include[[:space:]].*build\.mk' "$TOP/Makefile")
is "$bad" "" "every build.mk is included with plain include"

# 4. One registry: only tests/build.mk registers tests.
reg=$(cd "$TOP" && grep -lE '^[[:space:]]*(UNIT_TESTS|ROOT_TESTS)[[:space:]]*\+?=' \
      Makefile $(find . -name build.mk -not -path './build/*' | sed 's|^\./||') |
      grep -vxE 'Makefile|tests/build\.mk')
is "$reg" "" "tests are registered in tests/build.mk only"

finish
