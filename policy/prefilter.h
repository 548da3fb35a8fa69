/*
 * prefilter: a cheap necessary condition for a mask/protect pattern to match a name,
 * so that the general gitignore matcher (policy/pattern.c) runs only where it can
 * succeed.  Internal to policy/: used by the mask set (maskset.c), the one decision
 * the walks share; tested against ab_pattern_match by tests/unit/test_pam_prefilter.c.
 */
#ifndef AB_POLICY_PREFILTER_H
#define AB_POLICY_PREFILTER_H

#include <stddef.h>

/*
 * A cheap necessary condition per pattern, so that the general matcher runs only on
 * names that can match (a 50,000-file node_modules times ~85 default patterns was
 * millions of full gitignore matches per login).  The walk only asks about an entry
 * whose parents did not match (a matching directory is masked, not entered), so the
 * pattern's last component must match the entry's own name: a literal last component
 * must equal it; otherwise the name must start with the literal text before the first
 * '*', '?', '[' and end with the literal text after the last '*', '?' or class-closing
 * ']'; and, when the part between those holds no '[' class, its longest literal run
 * must appear in the name between them ("*.tfstate.*" needs ".tfstate.": without it,
 * that one pattern sent every name to the matcher, 1.5 us each, three quarters of a
 * login's walk).  A last component with a '\' escape, or "**", is not filtered.
 * With AB_PATTERN_CASEFOLD (policy.h) the literal text is compared in either ASCII case,
 * as the matcher does.
 */
struct prefilter {
	const char	*pat;
	const char	*pre, *suf;	/* into pat; NULL: no filter */
	size_t		 npre, nsuf;
	const char	*mid;		/* into pat: a literal run between them; NULL: none */
	size_t		 nmid;
	int		 literal;	/* the last component has no special byte */
	int		 fold;		/* AB_PATTERN_CASEFOLD */
};

/* Fill F for PAT (kept, not copied), to be matched with FLAGS (AB_PATTERN_*). */
void	ab_prefilter_make(struct prefilter *f, const char *pat, unsigned int flags);
/* 0 only if PAT cannot match an entry called NAME, of length LEN (whose parents did
 * not match). */
int	ab_prefilter_pass(const struct prefilter *f, const char *name, size_t len);
/* The bytes a name F passes may start and end with: FIRST[b] and LAST[b] set to 1 for
 * each such byte b (both cases under AB_PATTERN_CASEFOLD; every byte where F does not
 * say), the rest left alone.  The mask set indexes its patterns by them. */
void	ab_prefilter_ends(const struct prefilter *f, unsigned char first[256],
	    unsigned char last[256]);

#endif /* AB_POLICY_PREFILTER_H */
