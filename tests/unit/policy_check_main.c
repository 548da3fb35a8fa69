/*
 * Test driver for admin/check.c until (and independently of) the agentbox binary:
 * "policy-check ARGS" runs "agentbox check ARGS".
 */
#include "../../admin/cmd.h"

int
main(int argc, char **argv)
{
	argv[0] = "check";
	return cmd_check(argc, argv);
}
