#!/bin/bash
# The Debian package: `dpkg-buildpackage -us -uc -b` builds agentbox_*.deb; lintian finds
# no error; installing it leaves a working host (module, shell, tools, default policy as
# a conffile, pam-auth-update profile); an enrolled user's su session is confined; purge
# leaves no file of the package behind.
#
# dpkg writes /var/lib/dpkg, /usr, /etc and /lib: the whole test runs in an overlay of
# the host (demo-overlay.sh), and the overlay's upper layer is the exact list of what
# the install, the session and the purge changed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/demo-overlay.sh"
ovl_enter "$@"

for c in dpkg-buildpackage dh lintian auditctl su; do
	command -v "$c" >/dev/null || skip_all "$c missing (tools/install-deps)"
done
auditctl -s 2>/dev/null | grep -q '^pid [1-9]' || skip_all "auditd is not running (tools/start-services)"
dpkg-query -W -f='${Status}' agentbox 2>/dev/null | grep -q 'ok installed' &&
	skip_all "agentbox is already installed as a package on this host"

U=abpkg-agent
PROJECT=/srv/abpkg/project
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
log=/tmp/abpkg.log

# 1. Build, as a user would, in a copy of the tree (ovl_enter made it on a tmpfs).
cd "$OVL_SRC" || ovl_die "cd $OVL_SRC"
t0=$(date +%s)
if DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b >"$log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b ($(( $(date +%s) - t0 )) s)"
else
	not_ok "dpkg-buildpackage -us -uc -b"
	tail -n 40 "$log" | sed 's/^/# /'
	finish
fi
deb=$(ls "$OVL_SRC"/../agentbox_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] && ok "built ${deb##*/}" || { not_ok "no agentbox_*.deb next to the tree"; finish; }

# 2. lintian: no error.  Warnings are listed for the report, not failed on.
lint=$(lintian --no-tag-display-limit "$deb" 2>&1)
errors=$(printf '%s\n' "$lint" | grep -E '^E: ' || true)
is "$errors" "" "lintian: no error"
printf '%s\n' "$lint" | grep -E '^[WI]: ' | sed 's/^/# lintian /'

# 3. Install.
out=$(dpkg -i "$deb" 2>&1)
check $? "dpkg -i ${deb##*/}"
printf '%s\n' "$out" | sed 's/^/# /'
for f in /usr/sbin/agentbox /usr/sbin/agentbox-shell /usr/sbin/agentbox-audit \
	 "/lib/$MULTIARCH/security/pam_agentbox.so" /usr/libexec/agentbox/agentbox-init \
	 /etc/agentbox/agentbox.conf /usr/share/pam-configs/agentbox \
	 /usr/share/man/man8/agentbox.8.gz /usr/share/man/man5/agentbox.conf.5.gz; do
	if [ -e "$f" ]; then ok "installed: $f"; else not_ok "missing after install: $f"; fi
done
like "$(dpkg-query -W -f='${Conffiles}' agentbox)" "/etc/agentbox/agentbox.conf" \
	"the default policy is a conffile"
out=$(agentbox check 2>&1)
check $? "agentbox check: the default policy is valid"
printf '%s\n' "$out" | sed 's/^/# /'

# The package's units start agentbox-maskd under systemd; no init system runs here, so
# the test starts the installed daemon as its unit would (every login with a mask
# needs it).  It runs in this world's private /run.
/usr/sbin/agentbox-maskd --daemon --foreground >/dev/null 2>&1 </dev/null &
maskd_pid=$!
defer "kill $maskd_pid 2>/dev/null"
i=0
while [ ! -S /run/agentbox-maskd/control ] && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
[ -S /run/agentbox-maskd/control ]; check $? "the installed agentbox-maskd takes sessions"

# 4. Enroll a user and run one confined session through su.
mkdir -p "$PROJECT" && printf 'SECRET=from-abpkg\n' > "$PROJECT/.env" && chmod 0644 "$PROJECT/.env"
out=$(agentbox enroll "$U" --project "$PROJECT" 2>&1)
check $? "agentbox enroll $U --project $PROJECT"
printf '%s\n' "$out" | sed 's/^/# /'
uid=$(id -u "$U" 2>/dev/null)
like "$(grep -h pam_agentbox /etc/pam.d/common-session /etc/pam.d/common-session-noninteractive 2>/dev/null)" \
	"pam_agentbox.so" "pam_agentbox.so is in the common session stacks"
out=$(su - "$U" -c 'grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status; pwd; cat .env' 2>&1)
diag "$out"
like "$out" "NoNewPrivs:"*"1" "su session: no_new_privs"
like "$out" "Seccomp:"*"2" "su session: seccomp filter"
like "$out" "$PROJECT" "su session: starts in the project"
unlike "$out" "SECRET=from-abpkg" "su session: the masked .env is not readable"
sleep 0.3
is "$(ps -e -o uid= | awk -v u="$uid" '$1 == u')" "" "nothing of the session outlived it"

# 5. Removal while a user is enrolled is refused: it would leave the user's logins
# unconfined (PAM line gone) or broken (login shell gone).
out=$(dpkg -r agentbox 2>&1)
rc=$?
[ $rc != 0 ] && ok "dpkg -r is refused while $U is enrolled" || not_ok "dpkg -r went through with $U enrolled"
like "$out" "agentbox unenroll" "the refusal says what to do"
like "$(dpkg-query -W -f='${Status}' agentbox 2>&1)" "install ok installed" "the package is still installed"

# 6. Unenroll and purge.
out=$(agentbox unenroll "$U" --remove-user 2>&1)
check $? "agentbox unenroll $U --remove-user"
printf '%s\n' "$out" | sed 's/^/# /'
rm -rf /srv/abpkg
kill "$maskd_pid" 2>/dev/null; wait "$maskd_pid" 2>/dev/null
out=$(dpkg --purge agentbox 2>&1)
check $? "dpkg --purge agentbox"
printf '%s\n' "$out" | sed 's/^/# /'
must_fail test -e /etc/agentbox
must_fail test -e /usr/share/pam-configs/agentbox
is "$(grep -rl pam_agentbox /etc/pam.d 2>/dev/null)" "" "no PAM stack names pam_agentbox after purge"
[ -n "$uid" ] && is "$(auditctl -l | grep -E -- "-F (a)?uid=$uid( |$)")" "" "no live audit rule for uid $uid"
# Every file the package, the enrolment or the session wrote is gone; dpkg's own
# database and logs record that it happened, and shadow's tools keep *- backups.
left=$(ovl_leftovers '^/var/log/|^/var/cache/|^/var/lib/dpkg/|^/etc/(passwd|group|shadow|gshadow|subuid|subgid)-$|^/etc/login\.defs$|^/etc/ld\.so\.cache$')
is "$left" "" "purge left no file behind"
finish
