# tests/escape: the adversarial suite (issue 7).  Root tests run attempts inside real
# confined sessions; the attack program is built with the normal flags (it runs inside
# the box, as the agent, where sanitizer runtimes would only add noise).
ESC_BIN := $(B)/escape/esc

$(ESC_BIN): tests/escape/esc.c tests/escape/esc_compat.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/escape $(LDFLAGS) -o $@ tests/escape/esc.c

ROOT_TESTS     += $(sort $(wildcard tests/escape/*.t) $(wildcard tests/e2e/*load*.t))
ROOT_TEST_DEPS += $(ESC_BIN)
