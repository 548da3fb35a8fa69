#!/bin/bash
# Escape suite, class "kernel" (invariant 3: no path to kernel surface that undoes the
# box): io_uring, keyrings, bpf, perf, userfaultfd, rare socket families (module
# autoload), /sys and /proc/sys writes, cgroups, device nodes, i386 and x32 syscalls,
# memfd exec.  Entered through the test sshd (ssh command).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/e2e/lib-e2e.sh"
. "$TOP/tests/escape/lib-escape.sh"
esc_world "$@"

modules_before=$(cat /proc/modules 2>/dev/null | wc -l)

esc_begin kernel
attempt K01 "io_uring_setup"                       EPERM rec io_uring
attempt K02 "add_key to the session keyring"       EPERM rec add_key
attempt K03 "keyctl join a session keyring"        EPERM rec keyctl
attempt K04 "bpf map create"                       EPERM rec bpf
attempt K05 "perf_event_open"                      EPERM rec perf
attempt K06 "userfaultfd"                          EPERM rec userfaultfd
# Rare families: each could autoload a module with a history of bugs.
# AF number, socket type: appletalk, ax25, x25, decnet, rds, can, tipc, bluetooth, alg,
# vsock, kcm, xdp, llc, phonet, nfc, smc, qipcrtr, mctp.
for fam in "K07A 5 2" "K07B 3 5" "K07C 9 5" "K07D 12 5" "K07E 21 5" "K07F 29 3" \
    "K07G 30 5" "K07H 31 3" "K07I 38 5" "K07J 40 1" "K07K 41 2" "K07L 44 3" \
    "K07M 26 2" "K07N 35 2" "K07O 39 2" "K07P 43 1" "K07Q 42 2" "K07R 45 2"; do
	set -- $fam
	attempt "$1" "socket(family $2, type $3)" 'EPERM|EAFNOSUPPORT|EINVAL|ESOCKTNOSUPPORT|EPROTONOSUPPORT' 'rec?' socket "$2" "$3"
done
attempt K08 "write /proc/sys/kernel/hostname"      'EACCES|EROFS|EPERM' rec write /proc/sys/kernel/hostname esc
attempt K09 "write /proc/sys/kernel/core_pattern"  'EACCES|EROFS|EPERM' rec write /proc/sys/kernel/core_pattern '|/tmp/x'
attempt K10 "write /sys/kernel/mm/transparent_hugepage/enabled" 'EACCES|EROFS|EPERM|ENOENT' 'rec?' write /sys/kernel/mm/transparent_hugepage/enabled never
attempt K11 "move into the root cgroup"            'EACCES|EROFS|EPERM|ENOENT' 'rec?' write /sys/fs/cgroup/cgroup.procs 0
attempt K12 "create a cgroup"                      'EACCES|EROFS|EPERM|ENOENT' 'rec?' mkdir /sys/fs/cgroup/abt-esc
attempt K13 "read /dev/mem"                        'ENOENT|EACCES|EPERM' 'rec?' read /dev/mem
attempt K14 "read /dev/kmsg"                       'ENOENT|EACCES|EPERM' 'rec?' read /dev/kmsg
attempt K15 "read a block device (/dev/vda)"       'ENOENT|EACCES|EPERM' 'rec?' read /dev/vda
attempt K16 "mknod /dev/mem's numbers"             'EPERM|EACCES' rec mknod /tmp/esc-mem
attempt K17 "i386 syscall through int 0x80"        '!OK' 'rec?' int80
attempt K18 "x32 syscall (bit 30)"                 '!OK' rec x32
attempt K19 "init_module"                          EPERM rec init_module
attempt K20 "finit_module"                         'EPERM|EBADF' 'rec?' finit_module /dev/null
attempt K21 "kexec_load"                           EPERM rec kexec
attempt K22 "reboot (CAD off)"                     EPERM rec reboot
attempt K23 "swapon"                               EPERM rec swapon /tmp
attempt K24 "acct"                                 EPERM rec acct /tmp/acct
attempt K25 "memfd exec: runs, but still confined" OK - memfd-exec "$ESC"
attempt K26 "netlink audit socket"                 '!OK' 'rec?' socket 16 3 9
esc_run ssh
esc_check
esc_assert_confined
st=$(grep '^ESC K25 0 OK uid=' "$ESC_OUT" | head -n 1)
like "$st" "seccomp=2" "K25 a program exec'd from memfd is still under seccomp"
like "$st" "nnp=1" "K25 a program exec'd from memfd still has no_new_privs"
is "$(cat /proc/modules 2>/dev/null | wc -l)" "$modules_before" "K07 no kernel module was loaded by the socket attempts"

esc_assert_gone "$ESC_AGENT"
finish
