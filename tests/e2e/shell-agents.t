#!/bin/bash
# Real agents start inside a confined session: npm install of
# @anthropic-ai/claude-code, @openai/codex and @google/gemini-cli into the project, then
# each one's --version and --help as the agent, and whether its own sandbox works
# nested (recorded in docs/agents.md).  The npm tarballs are cached in a test-owned
# directory (AB_NPM_CACHE, default /var/cache/agentbox-tests/npm) filled from the
# registry the first time, so later runs install offline.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
e2e_enter_private_world "$@"

U=abt_sh2
PROJ=/home/abt_sh2-agents
PKGS=$E2E_AGENT_PKGS
e2e_npm_agents_cache
CACHE=$E2E_NPM_CACHE

mkdir -p "$PROJ" && chmod 0755 "$PROJ"
e2e_enroll_retry "$U" --project "$PROJ"
home=$(getent passwd "$U" | cut -d: -f6)
uid=$(id -u "$U")
# npm's default cache is ~/.npm: give the agent its own copy of the tarballs.
mkdir -p "$home/.npm" && cp -a "$CACHE/." "$home/.npm/" && chown -R "$U:" "$home/.npm" ||
	e2e_die "copy the npm cache"
as() { su "$U" -c "$1"; }

out=$(as "echo '{}' > package.json && npm install --offline --no-audit --no-fund $PKGS 2>&1"); rc=$?
is "$rc" 0 "npm install --offline of the three agents inside the box"
[ "$rc" = 0 ] || diag "$out"

for a in claude codex gemini; do
	out=$(as "timeout 120 node_modules/.bin/$a --version 2>&1"); rc=$?
	is "$rc" 0 "$a --version runs confined ($(echo "$out" | tail -1))"
	out=$(as "timeout 120 node_modules/.bin/$a --help 2>&1"); rc=$?
	is "$rc" 0 "$a --help runs confined"
	like "$out" "sage" "$a --help prints its usage"
done
# State directories in the agent's home are writable.
out=$(as 'mkdir -p ~/.claude ~/.codex ~/.gemini && touch ~/.claude/t ~/.codex/t ~/.gemini/t && echo state-ok')
is "$out" "state-ok" "the agents' state directories in HOME are writable"

## Their own sandboxes, nested (docs/agents.md records the outcome)
out=$(as 'timeout 60 node_modules/.bin/codex sandbox -- /bin/echo codex-sandbox-ok 2>&1'); rc=$?
if [ "$rc" = 0 ] && [ "${out##*$'\n'}" = codex-sandbox-ok ]; then
	ok "codex's own Linux sandbox works nested inside agentbox"
else
	ok "codex's own Linux sandbox does not start nested (rc $rc): turn it off (docs/agents.md)"
	diag "$(echo "$out" | tail -3)"
fi
out=$(as 'timeout 60 node_modules/.bin/codex sandbox -- /bin/cat /srv/agentbox-nothing 2>&1; /usr/bin/unshare -U true 2>&1'); rc=$?
like "$out" "Operation not permitted" "user namespaces (bubblewrap, Claude Code's sandbox) are denied inside"
# Logout killed every session process; unenroll removes the rules: nothing is left.
"$E2E_AGENTBOX" unenroll "$U" --remove-user >/dev/null 2>&1
check $? "unenroll $U"
e2e_assert_host_clean "$U" "$uid"
finish
