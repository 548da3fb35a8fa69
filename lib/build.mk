# lib/: libabutil.a, the helpers every program shares (lib/abutil.h): UTF-8, terminal-safe
# and JSON text, string vectors, the user-name rule, write_all.  libc only, in three
# flavours: normal (-fPIC, it ends up inside pam_agentbox.so), sanitized for the unit
# tests ($(B)/san/), and musl for the static agentbox-shell ($(B)/musl/).  Link it after
# the archives that use it (libabplan.a and libabpolicy.a do: string vectors, the
# user-name rule).

UTIL_SRCS      := $(sort $(wildcard lib/*.c))
UTIL_LIB       := $(B)/libabutil.a
UTIL_LIB_SAN   := $(B)/san/libabutil.a
UTIL_LIB_MUSL  := $(B)/musl/libabutil.a

$(UTIL_LIB):      $(UTIL_SRCS:%.c=$(B)/%.o)
$(UTIL_LIB_SAN):  $(UTIL_SRCS:%.c=$(B)/san/%.o)
$(UTIL_LIB_MUSL): $(UTIL_SRCS:%.c=$(B)/musl/%.o)

ALL += $(UTIL_LIB)
