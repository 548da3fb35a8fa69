#!/usr/bin/env python3
"""Generate a large audit log for bench/review: agent denials mixed with host noise.

    bench/review-gen.py OUT SIZE_MB [SEED]

Record shapes are copied from logs recorded on Debian 12 with kernel 6.18 (auditd 3.0.9,
log_format = ENRICHED): Landlock UNKNOWN[1423]/[1424] + SYSCALL/CWD/PATH/PROCTITLE, SECCOMP,
DAC denials caught by the per-uid exit rules (key "agentbox"), agentbox session records,
and host noise (execve by other users, PAM records, cron, config changes).  Serials are
contiguous, as auditd writes them.  Prints the expected answer on stdout as
"denials=N landlock=N seccomp=N dac=N sessions=N" for the agent uid 2001.
"""
import random
import sys

GS = "\x1d"
out_path, size_mb = sys.argv[1], int(sys.argv[2])
rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
target = size_mb * 1024 * 1024
AG_UID, AG = 2001, "agent1"
t = 1796000000.0
serial = 1000
ses = 100
counts = {"landlock": 0, "seccomp": 0, "dac": 0}
sessions = 0
proj = "/home/agent1/proj"


def hx(s):
    return s.encode().hex().upper()


def stamp():
    return "msg=audit(%.3f:%d):" % (t, serial)


def ids(uid, auid, s):
    return ("auid=%d uid=%d gid=%d euid=%d suid=%d fsuid=%d egid=%d sgid=%d fsgid=%d"
            % (auid, uid, uid, uid, uid, uid, uid, uid, uid), s)


def enr(uid):
    name = AG if uid == AG_UID else ("root" if uid == 0 else "user%d" % uid)
    return (' AUID="%s" UID="%s" GID="%s" EUID="%s" SUID="%s" FSUID="%s" EGID="%s" SGID="%s"'
            ' FSGID="%s"' % ((name,) * 9))


def syscall(nr, name, ok, exitv, uid, auid, s, pid, comm, exe, key, items):
    idp, _ = ids(uid, auid, s)
    return ("type=SYSCALL %s arch=c000003e syscall=%d success=%s exit=%d a0=ffffff9c "
            "a1=7ffd62bd9090 a2=80000 a3=0 items=%d ppid=%d pid=%d %s tty=pts0 ses=%d "
            'comm="%s" exe="%s" key=%s%sARCH=x86_64 SYSCALL=%s%s'
            % (stamp(), nr, "yes" if ok else "no", exitv, items, pid - 1, pid, idp, s, comm,
               exe, key, GS, name, enr(uid)))


def path_rec(name, nametype="NORMAL", item=0):
    v = hx(name) if " " in name else '"%s"' % name
    return ("type=PATH %s item=%d name=%s inode=%d dev=fe:00 mode=0100644 ouid=0 ogid=0 "
            "rdev=00:00 nametype=%s cap_fp=0 cap_fi=0 cap_fe=0 cap_fver=0 cap_frootid=0%s"
            'OUID="root" OGID="root"' % (stamp(), item, v, rnd.randrange(1, 10**7), nametype, GS))


def cwd(d):
    return 'type=CWD %s cwd="%s"' % (stamp(), d)


def proctitle(argv):
    return "type=PROCTITLE %s proctitle=%s" % (stamp(), "00".join(hx(a) for a in argv))


def noise_exec():
    uid = rnd.choice([0, 1000, 1002, 33])
    prog = rnd.choice(["/usr/bin/ls", "/usr/bin/grep", "/usr/bin/python3.11", "/usr/bin/git",
                       "/usr/sbin/cron", "/usr/bin/find"])
    pid = rnd.randrange(2000, 60000)
    comm = prog.rsplit("/", 1)[1][:15]
    return [syscall(59, "execve", True, 0, uid, uid, rnd.randrange(1, 50), pid, comm, prog,
                    '"exec"', 2),
            "type=EXECVE %s argc=2 a0=\"%s\" a1=\"--color=auto\"" % (stamp(), comm),
            cwd("/home/user%d" % uid),
            path_rec(prog), path_rec("/lib64/ld-linux-x86-64.so.2", item=1),
            proctitle([comm, "--color=auto"])]


def noise_pam():
    pid = rnd.randrange(2000, 60000)
    typ = rnd.choice(["USER_ACCT", "CRED_ACQ", "USER_START", "USER_END", "CRED_DISP"])
    return ["type=%s %s pid=%d uid=0 auid=4294967295 ses=4294967295 msg='op=PAM:%s "
            'grantors=pam_permit acct="root" exe="/usr/sbin/cron" hostname=? addr=? '
            "terminal=cron res=success'%sUID=\"root\" AUID=\"unset\""
            % (typ, stamp(), pid, "accounting" if typ == "USER_ACCT" else "session_open", GS)]


def noise_other():
    return ["type=SERVICE_START %s pid=1 uid=0 auid=4294967295 ses=4294967295 msg='unit=apt-daily "
            'comm="systemd" exe="/usr/lib/systemd/systemd" hostname=? addr=? terminal=? '
            "res=success'%sUID=\"root\" AUID=\"unset\"" % (stamp(), GS)]


def agent_landlock(s, dom):
    f = rnd.choice([".env", "secrets/api key.txt", "../other/.ssh/id_rsa", ".git/hooks/pre-commit"])
    p = "%s/%s" % (proj, f)
    pv = hx(p) if " " in p else '"%s"' % p
    pid = rnd.randrange(3000, 9000)
    counts["landlock"] += 1
    return ["type=UNKNOWN[1423] %s domain=%x blockers=fs.read_file path=%s dev=\"vda\" ino=%d"
            % (stamp(), dom, pv, rnd.randrange(1, 10**7)),
            syscall(257, "openat", False, -13, AG_UID, AG_UID, s, pid, "node", "/usr/bin/node",
                    '"agentbox"', 1),
            cwd(proj), path_rec(p), proctitle(["node", "agent.js"])]


def agent_dac(s):
    p = rnd.choice(["/etc/shadow", "/root/.bash_history", "/var/log/auth.log"])
    counts["dac"] += 1
    return [syscall(257, "openat", False, -13, AG_UID, AG_UID, s, rnd.randrange(3000, 9000),
                    "cat", "/usr/bin/cat", '"agentbox"', 1),
            cwd(proj), path_rec(p), proctitle(["cat", p])]


def agent_seccomp(s):
    counts["seccomp"] += 1
    nr = rnd.choice([101, 272, 425, 165])
    return ["type=SECCOMP %s auid=%d uid=%d gid=%d ses=%d pid=%d comm=\"python3\" "
            'exe="/usr/bin/python3.11" sig=0 arch=c000003e syscall=%d compat=0 ip=0x7f0 '
            "code=0x50001%sAUID=\"%s\" UID=\"%s\" GID=\"%s\" ARCH=x86_64 SYSCALL=unknown-syscall(-1)"
            % (stamp(), AG_UID, AG_UID, AG_UID, s, rnd.randrange(3000, 9000), nr, GS, AG, AG, AG)]


def session(op, s):
    extra = ('tty="ssh" rhost="10.0.0.5" digest=%s network=none masks=3 protects=2 ' % ("ab" * 32)
             if op == "start" else "")
    return ["type=TRUSTED_APP %s pid=4000 uid=0 auid=%d ses=%d msg='op=agentbox-session-%s ses=%d "
            'user=%s uid=%d service="sshd" %sinit_pid=4001%s exe="/usr/sbin/sshd" '
            "hostname=10.0.0.5 addr=10.0.0.5 terminal=ssh res=success'"
            % (stamp(), AG_UID, s, op, s, AG, AG_UID, extra, " reason=logout" if op == "end" else "")]


written = 0
in_session = 0
dom = 0x1d5d5f000
with open(out_path, "w", encoding="latin1", newline="\n") as f:
    while written < target:
        r = rnd.random()
        if in_session == 0 and r < 0.002:
            ses += 1
            sessions += 1
            dom += 1
            in_session = rnd.randrange(200, 2000)
            lines = session("start", ses)
        elif in_session > 0 and r < 0.02:
            in_session -= 1
            k = rnd.random()
            lines = (agent_landlock(ses, dom) if k < 0.5 else agent_dac(ses) if k < 0.8
                     else agent_seccomp(ses))
            if in_session == 0:
                lines += [l.replace(stamp(), stamp()) for l in []]
        elif in_session > 0 and r < 0.021:
            in_session = 0
            lines = session("end", ses)
        elif r < 0.6:
            lines = noise_exec()
        elif r < 0.95:
            lines = noise_pam()
        else:
            lines = noise_other()
        data = "\n".join(lines) + "\n"
        f.write(data)
        written += len(data)
        serial += 1
        t += rnd.random() * 0.01
total = sum(counts.values())
print("denials=%d landlock=%d seccomp=%d dac=%d sessions=%d serials=%d..%d"
      % (total, counts["landlock"], counts["seccomp"], counts["dac"], sessions, 1000, serial - 1))
