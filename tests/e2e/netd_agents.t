#!/bin/bash
# The three agents' CLIs through the credential gateway, inside one proxy-mode box
# whose user has three credentials (all for the test's fake API host, each with its own
# header, so each gateway endpoint is used the way its agent uses it):
#   Claude Code  ANTHROPIC_BASE_URL, x-api-key           `claude -p`   POST /v1/messages
#   Codex CLI    a model provider, base_url = OPENAI_BASE_URL (.../v1),
#                Authorization: Bearer                   `codex exec`  POST /v1/responses
#   Gemini CLI   GOOGLE_GEMINI_BASE_URL, x-goog-api-key  `gemini -p`   POST /v1beta/models/...
# Each key variable in the box is a placeholder; each CLI prints the fake model's answer;
# the real key arrives at the upstream with its requests and no placeholder does; the key
# is nowhere in the box (environment, files, /proc) after all three ran; each gateway
# connection is on the record.  The CLIs come from the agents' npm cache
# (e2e_npm_agents_cache: filled from the registry on the host the first time); the box
# never reaches a registry.  Each agent's setup is the one docs/agents.md gives.
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
# Codex's and Gemini CLI's credentials as docs/agents.md writes them (but for the test's
# host), in a drop-in sorting after netd_enroll's: their gateways are :3130 and :3131.
extra=/etc/agentbox/policy.d/$U-netd2.conf
defer "rm -f '$extra'"
printf '%s\n' "[user:$U]" "credential = abt-$U-openai abt-$U-gemini" "" \
    "[credential:abt-$U-openai]" "host = api.example.test" "header = Authorization" \
    'prefix = "Bearer "' "file = /etc/agentbox/abt-$U.key" "env = OPENAI_API_KEY" \
    "base_url_env = OPENAI_BASE_URL" "base_path = /v1" "" \
    "[credential:abt-$U-gemini]" "host = api.example.test" "header = x-goog-api-key" \
    "file = /etc/agentbox/abt-$U.key" "env = GEMINI_API_KEY" \
    "base_url_env = GOOGLE_GEMINI_BASE_URL" > "$extra" && chmod 0644 "$extra" ||
	e2e_die "write $extra"
"$E2E_AGENTBOX" check >"$E2E_DIR/check2.log" 2>&1 ||
	{ sed 's/^/# /' "$E2E_DIR/check2.log"; e2e_die "agentbox check with three credentials"; }
home=$(getent passwd "$U" | cut -d: -f6)
[ -n "$home" ] && [ -d "$CACHE" ] || e2e_die "no home for $U or no npm cache"
mkdir -p "$home/.npm" && cp -a "$CACHE/." "$home/.npm/" && chown -R "$U:" "$home/.npm" ||
	e2e_die "copy the npm cache"
box() { netd_box "$U" "cd $PROJ && $1"; }
out=$(box "echo '{}' > package.json && npm install --offline --no-audit --no-fund $E2E_AGENT_PKGS 2>&1"); rc=$?
is "$rc" 0 "npm install --offline of the three agents' CLIs inside the proxy-mode box"
[ "$rc" = 0 ] || { diag "$out"; finish; }

env_out=$(box env)
like "$env_out" "ANTHROPIC_BASE_URL=http://127.0.0.1:3129" "ANTHROPIC_BASE_URL is the first gateway"
like "$env_out" "OPENAI_BASE_URL=http://127.0.0.1:3130/v1" "OPENAI_BASE_URL is the second, with base_path"
like "$env_out" "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:3131" "GOOGLE_GEMINI_BASE_URL is the third"
placeholders=()
for v in ANTHROPIC_API_KEY OPENAI_API_KEY GEMINI_API_KEY; do
	p=$(sed -n "s/^$v=//p" <<< "$env_out")
	like "$p" "placeholder" "$v is a placeholder ($p)"
	placeholders+=("$p")
done
# Spelled so that grep's own /proc/PID/cmdline does not match.
pat=$(sed 's/REAL/REA[L]/' <<< "$NETD_SECRET")

# agent_run NAME HEADER PREFIX PATH_ERE SCRIPT: run one CLI in the box; its answer, the
# requests the upstream got on PATH_ERE (HEADER: PREFIX and the real key; no
# placeholder), the record.
agent_run() {
	local name=$1 header=$2 prefix=$3 path=$4 script=$5 seen mark p leaked=""
	mark=$(wc -l < "$NETD_LOG")
	e2e_audit_since
	out=$(box "$script" 2>&1); rc=$?
	is "$rc" 0 "$name runs through the gateway"
	like "$out" "pong from the fake model API" "$name prints the fake model's answer"
	[ "$rc" = 0 ] || diag "$(tail -15 <<< "$out")"
	seen=$(tail -n +$((mark + 1)) "$NETD_LOG" | grep -E "\"path\": \"$path")
	like "$seen" "\"$header\": \"$prefix$NETD_SECRET\"" \
	    "$name: the real key arrived at the model API in $header"
	for p in "${placeholders[@]}"; do
		[ -n "$p" ] && [[ "$seen" == *"$p"* ]] && leaked=$p
	done
	is "$leaked" "" "$name: no placeholder reached the upstream"
	netd_rec "proto=gateway .*event=open .*host=\"api.example.test\"" >/dev/null &&
	    ok "$name: record of the gateway's connection" || not_ok "$name: no gateway record"
}

agent_run "claude -p" x-api-key "" /v1/messages "DISABLE_TELEMETRY=1 \
	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 timeout 120 node_modules/.bin/claude \
	-p 'say pong' </dev/null"

# Codex: a provider of its own pointing at the gateway (its built-in openai provider
# cannot be moved reliably), WebSockets off (that transport does not follow base_url and
# the gateway refuses upgrades), its own sandbox off (it needs a user namespace).
cat > "$home/codex-config.toml" <<'TOML' || e2e_die "codex config"
model_provider = "agentbox"
model = "gpt-test"

[model_providers.agentbox]
name = "OpenAI through agentbox"
base_url = "BASE_URL"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
supports_websockets = false
TOML
chown "$U:" "$home/codex-config.toml"
agent_run "codex exec" authorization "Bearer " /v1/responses "mkdir -p ~/.codex && \
	sed \"s|BASE_URL|\$OPENAI_BASE_URL|\" ~/codex-config.toml > ~/.codex/config.toml && \
	timeout 120 node_modules/.bin/codex exec --skip-git-repo-check \
	--sandbox danger-full-access 'say pong' </dev/null"

# Gemini CLI: API-key authentication chosen in its settings (not "Login with Google");
# --skip-trust: a headless run in a folder it was never told to trust.
echo '{"security":{"auth":{"selectedType":"gemini-api-key"}}}' > "$home/gemini-settings.json" &&
    chown "$U:" "$home/gemini-settings.json" || e2e_die "gemini settings"
agent_run "gemini -p" x-goog-api-key "" "/v1beta/models/[^\"]*:(streamG|g)enerateContent" \
	"mkdir -p ~/.gemini && cp ~/gemini-settings.json ~/.gemini/settings.json && \
	timeout 180 node_modules/.bin/gemini --skip-trust -p 'say pong' </dev/null"

out=$(box "grep -rlsE -- '$pat' \$HOME $PROJ /tmp /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null; echo end")
is "$out" "end" "the key is nowhere in the box after the three agents ran"
e2e_wait_uid_gone "$(id -u "$U")" 10
finish
