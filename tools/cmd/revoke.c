/*
 * zkl revoke: ask the holders of a lock (or the leader) to let go.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <zkl.h>

#include "../client.h"
#include "../options.h"
#include "../util.h"
#include "cmds.h"

const char revoke_help[] =
    "Usage: zkl revoke [OPTIONS] PATH\n"
    "\n"
    "Asks the holders of the lock PATH to let go, and prints how many were asked.\n"
    "Revocation is cooperative (as Apache Curator's Revoker, whose marker it\n"
    "writes into the holder's node): `zkl lock --revocable` holders stop their\n"
    "command and release; Curator holders made revocable run their listener;\n"
    "others do not notice. Waiters are not asked.\n"
    "\n"
    "Revoke options:\n"
    "  --holder NODE  ask only the holder with this node name (see\n"
    "                 `zkl status -v` or the \"node\" field of --json)\n"
    "  --kind K       the recipe of PATH, as for zkl status (default fair)\n"
    "\n"
    "%s"
    "\n"
    "Exit status: 0 asked (also when nobody held it: \"0 holders asked\"),\n"
    "1 --holder NODE is not a current holder, 125 error.\n"
    "Example:\n"
    "  zkl revoke /locks/backup\n";

int cmd_revoke(int argc, char **argv) {
  struct common co;
  common_init(&co);
  const char *path = NULL, *holder = NULL, *kind = "fair";
  struct scan s;
  scan_init(&s, argc, argv, "revoke ");
  while (next_option(&s, &co, &path, revoke_help)) {
    if (is(&s, "--holder")) {
      holder = value(&s);
      if (!holder[0] || strchr(holder, '/')) usage_error(s.cmd, "bad --holder '%s' (a node name)", holder);
    } else if (is(&s, "--kind")) {
      kind = value(&s);
    } else {
      unknown_option(&s);
    }
  }
  require_path(&s, path);
  int ikind = parse_kind(s.cmd, &kind);
  common_finish(&co, s.cmd);

  int sfd;
  zkl_client *c = connect_for_query(&co, &sfd);
  zkl_inspect_options io = inspect_options(ikind, co.connect_timeout_ms);
  int rc = zkl_revoke(c, path, &io, holder);
  char why[1200];
  if (rc < 0) why_failed(c, rc, why, sizeof why);
  zkl_client_destroy(c);
  if (rc == ZKL_ENOTFOUND && holder) {
    error_msg("%s is not a holder of %s", holder, path);
    return EXIT_NOLEADER;
  }
  if (rc == ZKL_EBADPATH) bad_path(path, rc);
  if (rc < 0) die(EXIT_ZKL, "cannot revoke %s: %s", path, why);
  printf("%d holder%s asked\n", rc, rc == 1 ? "" : "s");
  return 0;
}
