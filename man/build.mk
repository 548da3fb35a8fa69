# man/: the manual pages (roff).  Installed by `make install` into $(MANDIR).
MAN8 := man/agentbox.8 man/agentbox-shell.8 man/pam_agentbox.8 man/agentbox-audit.8 \
        man/agentbox-netd.8
MAN5 := man/agentbox.conf.5

INSTALL   += install-man
UNINSTALL += uninstall-man
UNIT_TESTS += tests/unit/man-options.t tests/unit/man-render.t

.PHONY: install-man uninstall-man
install-man:
	install -d $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5
	install -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/

uninstall-man:
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8))) \
	      $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))

# The demo and the Debian package are tested end to end as root (in an overlay of the
# host, see tests/e2e/demo-overlay.sh).  filter-out: tests/build.mk may list them too.
ROOT_TESTS += $(filter-out $(ROOT_TESTS),tests/e2e/demo.t tests/e2e/package.t)

# man-options.t runs each program's --help: build them first (check-unit builds only
# what UNIT_TESTS names).
tests/unit/man-options.t: $(B)/agentbox $(B)/agentbox-audit
