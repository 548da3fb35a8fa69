# tests/: unit tests that belong to no single component's fragment.

# pam_module/entry.c alone: which entry command lines run the agent's login shell.
ENTRY_TEST := $(B)/tests/test_entry
UNIT_TESTS += $(ENTRY_TEST)
$(ENTRY_TEST): tests/unit/test_entry.c pam_module/entry.c pam_module/sessfail.c \
		pam_module/module.h tests/tap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Itests -Ipam_module $(LDFLAGS) -o $@ tests/unit/test_entry.c \
	  pam_module/entry.c pam_module/sessfail.c
