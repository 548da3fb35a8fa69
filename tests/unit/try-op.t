#!/bin/bash
# try-op itself, unconfined: exit codes are the errno, 0 on success, 254 on bad usage.
. "$(dirname "$0")/../lib.sh"
T="$BUILD/try-op"
[ -x "$T" ] || skip_all "build/try-op not built (make)"

out=$("$T" list); rc=$?
is "$rc" 0 "try-op list exits 0"
like "$out" "tiocsti" "try-op list names tiocsti"
"$T" no-such-op >/dev/null 2>&1; is "$?" 254 "unknown op is a usage error (254)"
"$T" open >/dev/null 2>&1; is "$?" 254 "missing argument is a usage error (254)"
"$T" true >/dev/null; is "$?" 0 "true succeeds"
"$T" open /nonexistent/agentbox >/dev/null; is "$?" 2 "open of a missing path exits ENOENT (2)"
out=$("$T" open /nonexistent/agentbox); is "$out" "open: ENOENT (No such file or directory)" "message names the errno"
tmp=$(mktemp -d); defer "rm -rf '$tmp'"
"$T" write "$tmp/f" >/dev/null; is "$?" 0 "write creates a file"
is "$(cat "$tmp/f")" "x" "write wrote x"
"$T" clone3 >/dev/null; rc=$?
# Unconfined, clone3(NULL, 0) is EINVAL: the confined ENOSYS really comes from our filter.
is "$rc" 22 "clone3 with size 0 is EINVAL without a filter"
"$T" exec /bin/sh -c 'exit 7' >/dev/null; is "$?" 7 "exec returns the child's status"
"$T" x32 >/dev/null 2>&1; rc=$?
case $rc in 38|159) ok "x32 getpid unconfined: rc $rc (ENOSYS: kernel without x32)" ;; *) not_ok "x32 rc $rc" ;; esac
finish
