/*
 * The module alone, without root: it loads, exports pam_sm_* and nothing else (the
 * policy archive and the helpers linked into it stay internal), and through
 * pam_start_confdir() with service files in a temporary directory it gives the exact
 * return codes that need no privilege:
 *   unknown module argument                 PAM_SYSTEM_ERR (open and close)
 *   no policy at all (user not enrolled)    PAM_IGNORE, and the stack succeeds
 *   an unsafe policy (not root-owned)       PAM_SYSTEM_ERR (or, as root, malformed)
 * Usage: test_pam_load [MODULE]   (default: the build tree's, compiled in)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <security/pam_appl.h>
#include <security/pam_modules.h>

#include "tap.h"

typedef int (*sm_fn)(pam_handle_t *, int, int, const char **);

static const char *module;
static char dir[64];

static int
no_conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	(void)n; (void)msg; (void)resp; (void)data;
	return PAM_CONV_ERR;
}

/* Names of the symbols MODULE defines in its dynamic symbol table, space separated. */
static int
exported(const char *path, char *out, size_t outlen)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	struct stat st;
	size_t i, j;
	void *map;
	int fd;

	out[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 || fstat(fd, &st) == -1)
		return -1;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	eh = map;
	sh = (const Elf64_Shdr *)((const char *)map + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym;
		const char *strtab;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		sym = (const Elf64_Sym *)((const char *)map + sh[i].sh_offset);
		strtab = (const char *)map + sh[sh[i].sh_link].sh_offset;
		for (j = 0; j < sh[i].sh_size / sizeof(*sym); j++) {
			if (sym[j].st_shndx == SHN_UNDEF || sym[j].st_name == 0)
				continue;
			if (ELF64_ST_BIND(sym[j].st_info) == STB_LOCAL)
				continue;
			if (out[0] != '\0')
				strncat(out, " ", outlen - strlen(out) - 1);
			strncat(out, strtab + sym[j].st_name, outlen - strlen(out) - 1);
		}
	}
	munmap(map, (size_t)st.st_size);
	return 0;
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) == EOF) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

/* A service file "svc" in the temp dir: our line with ARGS, then LINE2 (may be ""). */
static void
service(const char *args, const char *line2)
{
	char path[128], text[1024];

	snprintf(path, sizeof(path), "%s/svc", dir);
	snprintf(text, sizeof(text), "session required %s %s\n%s", module, args, line2);
	write_file(path, text);
}

static int
stack_open(const char *user, int *close_rc)
{
	struct pam_conv conv = { no_conv, NULL };
	pam_handle_t *pamh = NULL;
	int rc;

	if (pam_start_confdir("svc", user, &conv, dir, &pamh) != PAM_SUCCESS)
		return -1;
	rc = pam_open_session(pamh, 0);
	*close_rc = pam_close_session(pamh, 0);
	pam_end(pamh, rc);
	return rc;
}

/*
 * The module's own verdict: a stack of our line alone.  Calling pam_sm_* directly is
 * no good (libpam refuses pam_set_data from the application, and pam_modutil loops on
 * it), so the stack's result is mapped back: a lone required module that returns
 * PAM_IGNORE leaves the stack with no verdict, which libpam reports as PAM_PERM_DENIED.
 */
static int
verdict(const char *args, const char *user, int closing)
{
	struct pam_conv conv = { no_conv, NULL };
	pam_handle_t *pamh = NULL;
	int rc;

	service(args, "");
	if (pam_start_confdir("svc", user, &conv, dir, &pamh) != PAM_SUCCESS)
		return -1;
	rc = closing ? pam_close_session(pamh, 0) : pam_open_session(pamh, 0);
	pam_end(pamh, rc);
	return rc == PAM_PERM_DENIED ? PAM_IGNORE : rc;
}

int
main(int argc, char **argv)
{
	char names[4096], root[128], path[256];
	sm_fn open_fn, close_fn;
	int rc, close_rc;
	void *so;

	if (argc > 2) {
		printf("Bail out! usage: test_pam_load [MODULE]\n");
		return 1;
	}
	module = argc == 2 ? argv[1] : AB_PAM_SO;
	snprintf(dir, sizeof(dir), "/tmp/test_pam_load.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}

	/* Loading and exports. */
	so = dlopen(module, RTLD_NOW | RTLD_LOCAL);
	ok(so != NULL, "dlopen %s (RTLD_NOW: no undefined symbol)", module);
	if (so == NULL) {
		diag("%s", dlerror());
		return done_testing();
	}
	open_fn = (sm_fn)dlsym(so, "pam_sm_open_session");
	close_fn = (sm_fn)dlsym(so, "pam_sm_close_session");
	ok(open_fn != NULL && close_fn != NULL, "pam_sm_open_session and pam_sm_close_session");
	ok(dlsym(so, "ab_policy_load") == NULL, "the policy archive is not exported");
	ok(dlsym(so, "ab_mask_apply") == NULL && dlsym(so, "ab_reaper_start") == NULL,
	    "internal steps are not exported");
	ok(exported(module, names, sizeof(names)) == 0 &&
	    (strcmp(names, "pam_sm_close_session pam_sm_open_session") == 0 ||
	    strcmp(names, "pam_sm_open_session pam_sm_close_session") == 0),
	    "exactly pam_sm_open_session and pam_sm_close_session exported (got: %s)", names);

	/* Unknown argument: refused whoever the user is, open and close. */
	ok(verdict("bogus=1", "nobody", 0) == PAM_SYSTEM_ERR,
	    "open_session with an unknown argument: PAM_SYSTEM_ERR");
	ok(verdict("bogus=1", "nobody", 1) == PAM_SYSTEM_ERR,
	    "close_session with an unknown argument: PAM_SYSTEM_ERR");
	service("bogus=1", "session required pam_permit.so\n");
	ok(stack_open("nobody", &close_rc) == PAM_SYSTEM_ERR,
	    "a stack with an unknown argument refuses the session");

	/* No policy: nobody is enrolled, the module steps aside. */
	snprintf(root, sizeof(root), "root=%s/none", dir);
	ok(verdict(root, "nobody", 0) == PAM_IGNORE,
	    "no policy, unenrolled user: open_session PAM_IGNORE");
	ok(verdict(root, "nobody", 1) == PAM_IGNORE,
	    "no policy, unenrolled user: close_session PAM_IGNORE");
	service(root, "session required pam_permit.so\n");
	rc = stack_open("nobody", &close_rc);
	ok(rc == PAM_SUCCESS && close_rc == PAM_SUCCESS,
	    "unenrolled user: the session stack succeeds (open %d, close %d)", rc, close_rc);

	/* A policy the loader must not trust (ours, not root's, unless we are root) or,
	 * as root, a malformed one: a user it names is refused; "nobody" (not named, shell
	 * not agentbox-shell) is let through. */
	snprintf(root, sizeof(root), "root=%s/bad", dir);
	snprintf(path, sizeof(path), "%s/bad", dir);
	mkdir(path, 0755);
	strcat(path, "/etc");
	mkdir(path, 0755);
	strcat(path, "/agentbox");
	mkdir(path, 0755);
	strcat(path, "/agentbox.conf");
	write_file(path, "[user:abt_pam1]\nno_such_key = 1\n[user:nobody]\nproject = /\n");
	ok(verdict(root, "nobody", 0) == PAM_SYSTEM_ERR,
	    "bad policy naming the user: open_session PAM_SYSTEM_ERR for a non-root user");
	service(root, "session required pam_permit.so\n");
	ok(stack_open("nobody", &close_rc) == PAM_SYSTEM_ERR, "bad policy: the stack refuses");
	write_file(path, "[user:abt_pam1]\nno_such_key = 1\n");
	rc = verdict(root, "nobody", 0);
	ok(rc == PAM_IGNORE, "bad policy not naming the user: PAM_IGNORE, no host-wide "
	    "lock-out (got %d)", rc);

	dlclose(so);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
