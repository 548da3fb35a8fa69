# lib/: libabutil.a, the helpers every program shares (lib/abutil.h): UTF-8, terminal-safe
# and JSON text, string vectors, the user-name rule, write_all.  libc only, in three
# flavours: normal (-fPIC, it ends up inside pam_agentbox.so), sanitized for the unit
# tests ($(B)/san/), and musl for the static agentbox-shell ($(B)/musl/, built with
# shell/build.mk's MUSL_CC and MUSL_CFLAGS).  Link it after the archives that use it
# (libabplan.a and libabpolicy.a do: string vectors, the user-name rule).

UTIL_SRCS      := lib/text.c lib/strv.c lib/names.c lib/io.c
UTIL_HDRS      := lib/abutil.h
UTIL_LIB       := $(B)/libabutil.a
UTIL_LIB_SAN   := $(B)/san/libabutil.a
UTIL_LIB_MUSL  := $(B)/musl/libabutil.a

UTIL_OBJS      := $(UTIL_SRCS:lib/%.c=$(B)/lib/%.o)
UTIL_SAN_OBJS  := $(UTIL_SRCS:lib/%.c=$(B)/san/lib/%.o)
UTIL_MUSL_OBJS := $(UTIL_SRCS:lib/%.c=$(B)/musl/lib/%.o)

$(B)/lib/%.o: lib/%.c $(UTIL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/san/lib/%.o: lib/%.c $(UTIL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -c -o $@ $<

# $(B)/musl/include is shell/build.mk's MUSL_INC (included later, so named here).
$(B)/musl/lib/%.o: lib/%.c $(UTIL_HDRS) | $(B)/musl/include
	@mkdir -p $(@D)
	$(MUSL_CC) $(MUSL_CFLAGS) -c -o $@ $<

# rm first: ar would otherwise keep members of objects that no longer exist.
$(UTIL_LIB): $(UTIL_OBJS)
	rm -f $@ && $(AR) rcs $@ $^
$(UTIL_LIB_SAN): $(UTIL_SAN_OBJS)
	rm -f $@ && $(AR) rcs $@ $^
$(UTIL_LIB_MUSL): $(UTIL_MUSL_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

ALL += $(UTIL_LIB)

$(B)/tests/test_lib: tests/unit/test_lib.c tests/tap.h $(UTIL_HDRS) $(UTIL_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Itests $(LDFLAGS) -o $@ $< $(UTIL_LIB_SAN)
UNIT_TESTS += $(B)/tests/test_lib
