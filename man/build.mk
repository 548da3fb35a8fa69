# man/: the manual pages (roff).  Installed by `make install` into $(MANDIR).
MAN8 := man/agentbox.8 man/agentbox-shell.8 man/pam_agentbox.8 man/agentbox-audit.8 \
        man/agentbox-netd.8 man/agentbox-maskd.8
MAN5 := man/agentbox.conf.5

INSTALL   += install-man
UNINSTALL += uninstall-man

.PHONY: install-man uninstall-man
install-man:
	install -d $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5
	install -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/

uninstall-man:
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8))) \
	      $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
