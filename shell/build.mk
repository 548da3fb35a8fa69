# shell/: agentbox-shell, the unprivileged half.
#
# agentbox-shell is linked static-pie: no ld.so runs before confinement, so LD_PRELOAD,
# LD_LIBRARY_PATH or LD_AUDIT handed over by su -m, sudo -E or sshd AcceptEnv cannot run
# code in it.  It needs only the plan parser (the plan library's sources, no external
# deps) and the BPF programs seccomp_gen made with libseccomp.

# seccomp.c (the deny table) needs libseccomp and runs at build time only: seccomp_gen
# compiles it to one BPF program per network mode in $(B)/shell/seccomp_bpf.h, which
# seccomp_load.c loads.  agentbox-shell itself links no libseccomp.
SHELL_RT_SRCS  := $(filter-out shell/seccomp.c shell/seccomp_gen.c,$(sort $(wildcard shell/*.c)))
SHELL_OBJS     := $(SHELL_RT_SRCS:%.c=$(B)/%.o)
SHELL_LIB_OBJS := $(filter-out $(B)/shell/main.o,$(SHELL_OBJS))
SHELL_BPF      := $(B)/shell/seccomp_bpf.h
SECCOMP_LIBS    = $(call pkg,--libs libseccomp)
SECCOMP_STATIC  = $(call pkg,--static --libs libseccomp)
$(call objs-in,shell): CPPFLAGS_DIR = -Ishell -I$(B)/shell
$(call objs-in,shell): PKG_CFLAGS_DIR = $(call pkg,--cflags libseccomp)

$(B)/shell/seccomp_gen: $(B)/shell/seccomp_gen.o $(B)/shell/seccomp.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SECCOMP_LIBS)

$(SHELL_BPF): $(B)/shell/seccomp_gen
	$< > $@.tmp && mv $@.tmp $@

$(B)/shell/seccomp_load.o $(B)/san/shell/seccomp_load.o $(B)/musl/shell/seccomp_load.o: $(SHELL_BPF)

# agentbox-shell itself is built against musl (musl-gcc, Debian's musl-tools), not
# glibc: it runs at every login, and a static glibc's start-up probes the CPU with ~150
# cpuid instructions, each a trap to the hypervisor on a VM (1.2 ms a process on the
# reference VM; musl probes nothing).  The same sources, the plan library recompiled.
# (The musl flavour's flags and UAPI header links are the Makefile's.)
SHELL_MUSL_OBJS := $(SHELL_RT_SRCS:%.c=$(B)/musl/%.o) $(POLICY_PLAN_SRCS:%.c=$(B)/musl/%.o)

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

ALL += $(B)/agentbox-shell

.PHONY: install-shell uninstall-shell
install-shell: $(B)/agentbox-shell
	install -D -m 0755 $(B)/agentbox-shell $(DESTDIR)$(SBINDIR)/agentbox-shell
uninstall-shell:
	rm -f $(DESTDIR)$(SBINDIR)/agentbox-shell
INSTALL += install-shell
UNINSTALL += uninstall-shell
