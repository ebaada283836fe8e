/* The zkl commands: one file each under tools/cmd/, dispatched by main.c. */
#ifndef ZKL_TOOLS_CMDS_H
#define ZKL_TOOLS_CMDS_H

#include <stdint.h>

#include <zkl.h>

int cmd_lock(int argc, char **argv);
int cmd_elect(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_leader(int argc, char **argv);
int cmd_revoke(int argc, char **argv);
int cmd_write(int argc, char **argv);
int cmd_fence_check(int argc, char **argv);

/* status --kind K: ZKL_LOCK_* (> 0) or -ZKL_ELECTION_* (< 0); canonicalises
 * *kind ("election" -> "election-fair"); a bad K is a usage error. */
int parse_kind(const char *cmd, const char **kind);
/* Inspect options for a kind as parse_kind returns it, bounded by the
 * connect timeout (status, revoke, fence-check). */
zkl_inspect_options inspect_options(int kind, int64_t timeout_ms);

/* Help texts: printf formats with one %s (the connection options). */
extern const char lock_help[];
extern const char elect_help[];
extern const char status_help[];
extern const char leader_help[];
extern const char revoke_help[];
extern const char write_help[];
extern const char fence_check_help[];

#endif
