# shell/: agentbox-shell, the unprivileged half (issue 4), and tests/try-op.
#
# agentbox-shell is linked static-pie: no ld.so runs before confinement, so LD_PRELOAD,
# LD_LIBRARY_PATH or LD_AUDIT handed over by su -m, sudo -E or sshd AcceptEnv cannot run
# code in it.  It needs only the plan parser (the plan library's sources, no external
# deps) and the BPF programs seccomp_gen made with libseccomp.

# seccomp.c (the deny table) needs libseccomp and runs at build time only: seccomp_gen
# compiles it to one BPF program per network mode in $(B)/shell/seccomp_bpf.h, which
# seccomp_load.c loads.  agentbox-shell itself links no libseccomp.
SHELL_RT_SRCS  := $(filter-out shell/seccomp.c shell/seccomp_gen.c,$(wildcard shell/*.c))
SHELL_OBJS     := $(SHELL_RT_SRCS:shell/%.c=$(B)/shell/%.o)
SHELL_LIB_OBJS := $(filter-out $(B)/shell/main.o,$(SHELL_OBJS))
SHELL_HDRS     := $(wildcard shell/*.h) policy/policy.h $(UTIL_HDRS) $(B)/config.h
SHELL_BPF      := $(B)/shell/seccomp_bpf.h
SECCOMP_CFLAGS := $(shell pkg-config --cflags libseccomp)
SECCOMP_LIBS   := $(shell pkg-config --libs libseccomp)
SECCOMP_STATIC := $(shell pkg-config --static --libs libseccomp)

$(B)/shell/%.o: shell/%.c $(SHELL_HDRS) | $(B)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SECCOMP_CFLAGS) -Ishell -I$(B)/shell -c -o $@ $<

$(B)/shell/seccomp_gen: $(B)/shell/seccomp_gen.o $(B)/shell/seccomp.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SECCOMP_LIBS)

$(SHELL_BPF): $(B)/shell/seccomp_gen
	$< > $@.tmp && mv $@.tmp $@

$(B)/shell/seccomp_load.o $(B)/san/shell/seccomp_load.o: $(SHELL_BPF)

# agentbox-shell itself is built against musl (musl-gcc, Debian's musl-tools), not
# glibc: it runs at every login, and a static glibc's start-up probes the CPU with ~150
# cpuid instructions, each a trap to the hypervisor on a VM (1.2 ms a process on the
# reference VM; musl probes nothing).  The same sources, the plan library recompiled.
# musl-gcc's specs leave out the kernel's UAPI headers (linux/landlock.h ...): a
# directory of links to them comes first.  musl has no _FORTIFY_SOURCE: the flag would
# only claim checks that are not there, so it is dropped.
MUSL_CC     ?= musl-gcc
MUSL_INC    := $(B)/musl/include
MUSL_CFLAGS := $(filter-out -D_FORTIFY_SOURCE=% -fPIC,$(CFLAGS)) -fPIE -isystem $(MUSL_INC)
SHELL_MUSL_OBJS := $(SHELL_RT_SRCS:shell/%.c=$(B)/musl/shell/%.o) \
                   $(POLICY_PLAN_SRCS:policy/%.c=$(B)/musl/policy/%.o)

$(MUSL_INC):
	@command -v $(MUSL_CC) >/dev/null || { echo "$(MUSL_CC) missing: sudo make deps" >&2; exit 1; }
	mkdir -p $@
	ln -sfn /usr/include/linux $@/linux
	ln -sfn /usr/include/asm-generic $@/asm-generic
	ln -sfn /usr/include/$(shell $(CC) -dumpmachine)/asm $@/asm

$(B)/musl/shell/%.o: shell/%.c $(SHELL_HDRS) | $(MUSL_INC)
	@mkdir -p $(@D)
	$(MUSL_CC) $(MUSL_CFLAGS) -Ishell -I$(B)/shell -c -o $@ $<
$(B)/musl/shell/seccomp_load.o: $(SHELL_BPF)

$(B)/musl/policy/%.o: policy/%.c $(POLICY_HDRS) | $(MUSL_INC)
	@mkdir -p $(@D)
	$(MUSL_CC) $(MUSL_CFLAGS) -c -o $@ $<

# Linked by hand: Debian's musl-gcc.specs always names the dynamic loader and Scrt1.o,
# so `musl-gcc -static-pie` gives a PIE that /lib/ld-musl-x86_64.so.1 loads, and that
# loader honours LD_PRELOAD.  rcrt1.o is musl's self-relocating start for static-pie.
# The check after the link refuses any binary with a program interpreter.
MUSL_LIB := /usr/lib/$(shell $(CC) -dumpmachine | sed 's/-gnu$$/-musl/')
$(B)/agentbox-shell: $(SHELL_MUSL_OBJS) $(UTIL_LIB_MUSL)
	$(CC) -static-pie -nostdlib $(LDFLAGS) -o $@ $(MUSL_LIB)/rcrt1.o $(MUSL_LIB)/crti.o \
	  $(shell $(CC) -print-file-name=crtbeginS.o) $(SHELL_MUSL_OBJS) $(UTIL_LIB_MUSL) \
	  $(MUSL_LIB)/libc.a \
	  $(shell $(CC) -print-libgcc-file-name) $(shell $(CC) -print-file-name=crtendS.o) \
	  $(MUSL_LIB)/crtn.o
	@if readelf -lW $@ | grep -q INTERP; then \
	  echo "$@: has a program interpreter; it must be static" >&2; rm -f $@; exit 1; fi

# try-op runs inside confined sessions: static too, so it needs nothing from the world.
$(B)/try-op: tests/try-op.c | $(B)
	$(CC) $(CFLAGS) -static-pie $(LDFLAGS) -o $@ $<

# Test driver: applies the shell's mechanisms to a plan described on the command line
# (no PAM world needed) and execs a command; shell/ objects without main.c, plus the
# table (seccomp.o) for --export-seccomp.
$(B)/tests/shell-apply: tests/unit/shell-apply.c $(SHELL_LIB_OBJS) $(B)/shell/seccomp.o $(PLAN_LIB) $(UTIL_LIB) | $(B)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SECCOMP_CFLAGS) -Ishell -static-pie $(LDFLAGS) -o $@ $< \
	  $(SHELL_LIB_OBJS) $(B)/shell/seccomp.o $(PLAN_LIB) $(UTIL_LIB) $(SECCOMP_STATIC)

# Unit tests of env.c and plan_check.c, with the sanitizers (separate objects).
$(B)/san/shell/%.o: shell/%.c $(SHELL_HDRS) | $(B)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(SECCOMP_CFLAGS) -Ishell -I$(B)/shell -c -o $@ $<

SHELL_PLAN_SAN := $(or $(PLAN_LIB_SAN),$(PLAN_LIB))
$(B)/tests/test_shell: tests/unit/test_shell.c $(SHELL_LIB_OBJS:$(B)/shell/%=$(B)/san/shell/%) $(SHELL_PLAN_SAN) \
    $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(SECCOMP_CFLAGS) -Ishell -Itests $(LDFLAGS) -o $@ $< \
	  $(SHELL_LIB_OBJS:$(B)/shell/%=$(B)/san/shell/%) $(SHELL_PLAN_SAN) $(UTIL_LIB_SAN) $(SECCOMP_LIBS)

ALL += $(B)/try-op
ROOT_TEST_DEPS += $(B)/try-op
ifneq ($(PLAN_LIB),)
ALL += $(B)/agentbox-shell
ROOT_TEST_DEPS += $(B)/agentbox-shell $(B)/tests/shell-apply
UNIT_TESTS += $(B)/tests/test_shell tests/unit/shell-confine.t
# The .t drives these; prove only runs what UNIT_TESTS names, so build them first.
tests/unit/shell-confine.t: $(B)/tests/shell-apply $(B)/try-op
endif
UNIT_TESTS += tests/unit/try-op.t
tests/unit/try-op.t: $(B)/try-op

.PHONY: install-shell uninstall-shell
install-shell: $(B)/agentbox-shell
	install -D -m 0755 $(B)/agentbox-shell $(DESTDIR)$(SBINDIR)/agentbox-shell
uninstall-shell:
	rm -f $(DESTDIR)$(SBINDIR)/agentbox-shell
INSTALL += install-shell
UNINSTALL += uninstall-shell

ROOT_TESTS += tests/e2e/shell.t
ROOT_TESTS += tests/e2e/shell-agents.t
