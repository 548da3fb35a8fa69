# policy/: the policy language (filled in by the policy work)
