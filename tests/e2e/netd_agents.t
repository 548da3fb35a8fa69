#!/bin/bash
# An agent's CLI through the credential gateway: Claude Code inside a
# proxy-mode box, ANTHROPIC_BASE_URL set by the shell to the gateway (127.0.0.1:3129),
# ANTHROPIC_API_KEY a placeholder; `claude -p` gets its answer from the fake Messages
# API of the test's upstream, the real key arrives there and is nowhere in the box.
# The CLIs come from the agents' npm cache (e2e_npm_agents_cache: filled from the
# registry on the host the first time); the box never reaches a registry.
# Codex and Gemini CLI are not tried here: the fake upstream has no Responses API or
# generateContent API yet (docs/agents.md gives their base-URL setup).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-e2e.sh"
. "$(dirname "$0")/lib-netd.sh"
e2e_enter_private_world "$@"
e2e_npm_agents_cache
CACHE=$E2E_NPM_CACHE
netd_setup

U=abt_ng1
PROJ=/home/abt_ng1-proj
NETD_CRED_ENV=ANTHROPIC_API_KEY NETD_CRED_BASE_ENV=ANTHROPIC_BASE_URL \
    netd_enroll "$U" "$PROJ" || e2e_die "enroll $U with network = proxy"
home=$(getent passwd "$U" | cut -d: -f6)
mkdir -p "$home/.npm" && cp -a "$CACHE/." "$home/.npm/" && chown -R "$U:" "$home/.npm" ||
	e2e_die "copy the npm cache"
box() { netd_box "$U" "cd $PROJ && $1"; }
out=$(box "echo '{}' > package.json && npm install --offline --no-audit --no-fund @anthropic-ai/claude-code 2>&1"); rc=$?
is "$rc" 0 "npm install --offline of Claude Code inside the proxy-mode box"
[ "$rc" = 0 ] || { diag "$out"; finish; }

env_out=$(box env)
like "$env_out" "ANTHROPIC_BASE_URL=http://127.0.0.1:3129" "ANTHROPIC_BASE_URL is the gateway"
placeholder=$(sed -n 's/^ANTHROPIC_API_KEY=//p' <<< "$env_out")
like "$placeholder" "placeholder" "ANTHROPIC_API_KEY is a placeholder"
mark=$(wc -l < "$NETD_LOG")
e2e_audit_since
out=$(box "DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	timeout 120 node_modules/.bin/claude -p 'say pong' 2>&1"); rc=$?
is "$rc" 0 "claude -p runs through the gateway"
like "$out" "pong from the fake model API" "claude prints the fake model's answer"
seen=$(tail -n +$((mark + 1)) "$NETD_LOG" | grep '"path": "/v1/messages')
like "$seen" "\"x-api-key\": \"$NETD_SECRET\"" "the real key arrived at the model API"
unlike "$seen" "$placeholder" "the placeholder did not"
netd_rec "proto=gateway .*host=\"api.example.test\"" >/dev/null &&
    ok "record: the gateway's connection" || not_ok "no gateway record"
# Spelled so that grep's own /proc/PID/cmdline does not match.
pat=$(sed 's/REAL/REA[L]/' <<< "$NETD_SECRET")
out=$(box "grep -rlsE -- '$pat' \$HOME $PROJ /tmp /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null; echo end")
is "$out" "end" "the key is nowhere in the box after the agent ran"
e2e_wait_uid_gone "$(id -u "$U")" 10
finish
