/*
 * zkl — run a command while holding a ZooKeeper lock or while elected leader,
 * and show who holds a lock and who waits.
 *
 * Built on the public C API (zkl.h) only. One thread: a poll(2) loop over the
 * client's event fd and a signalfd (SIGCHLD tells when the command ends).
 * This file: the command table. Each command lives in tools/cmd/; shared
 * option parsing in options.c, the client in client.c, child supervision
 * (lock, elect) in supervise.c. See `zkl --help` and tools/README.md.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zkl.h>

#include "cmd/cmds.h"
#include "options.h"
#include "util.h"

struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *help;
};

static const struct command commands[] = {
    {"lock", cmd_lock, lock_help},
    {"elect", cmd_elect, elect_help},
    {"status", cmd_status, status_help},
    {"leader", cmd_leader, leader_help},
    {"revoke", cmd_revoke, revoke_help},
    {"write", cmd_write, write_help},
    {"fence-check", cmd_fence_check, fence_check_help},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const char main_help[] =
    "Usage: zkl COMMAND [OPTIONS] ...\n"
    "\n"
    "Distributed locks and leader election on ZooKeeper, for shell users.\n"
    "\n"
    "Commands:\n"
    "  lock PATH... -- CMD... run CMD while holding the lock PATH (several: all)\n"
    "  elect PATH -- CMD...   run CMD only while elected leader of PATH\n"
    "  status PATH            who holds the lock PATH and who waits\n"
    "  leader PATH            the current leader of the election PATH\n"
    "  revoke PATH            ask the holders of PATH to let go\n"
    "  write PATH --put N=V   take the lock PATH, write PATH/N = V guarded by it\n"
    "  fence-check PATH TOKEN is TOKEN the fencing token of a holder of PATH?\n"
    "  help [COMMAND]         this help, or a command's (as zkl COMMAND --help)\n"
    "  version, --version     print the versions of zkl and libzkl\n"
    "\n"
    "Run 'zkl COMMAND --help' for a command's options and exit statuses.\n"
    "\n"
    "%s"
    "\n"
    "Exit status of lock/elect: CMD's status; 75 CMD was stopped (lock or\n"
    "leadership lost, revoked, --max-hold); 124 lock timeout; 125 zkl error;\n"
    "126/127 CMD not executable/found.\n"
    "Environment: ZKL_SERVERS (default servers); ZKL_AUTH, ZKL_AUTH_FILE, ZKL_TLS_*,\n"
    "ZKL_SASL_* (see above); ZKL_ZOOKEEPER_LOG=1 shows the ZooKeeper C client's\n"
    "own log lines on stderr.\n";

/*
 * The ZooKeeper C client prints its own error lines (e.g. every refused
 * connection attempt) on stderr. So zkl keeps the real stderr on another fd
 * for its own messages and CMD, and points fd 2 at /dev/null, unless
 * ZKL_ZOOKEEPER_LOG is on (a strict boolean: anything but yes/no words is
 * an error).
 */
static void quiet_zookeeper_log(void) {
  errf = stderr;
  if (env_bool("ZKL_ZOOKEEPER_LOG", 0)) return;
  int fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
  int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f || devnull < 0 || dup2(devnull, 2) < 0) {
    if (f) fclose(f);
    else if (fd >= 0) close(fd);
    if (devnull >= 0) close(devnull);
    return;
  }
  close(devnull);
  setvbuf(f, NULL, _IOLBF, 0);
  errf = f;
  err_fd = fd;
}

static const struct command *find(const char *name) {
  for (size_t i = 0; i < NCOMMANDS; i++) {
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  }
  return NULL;
}

static void unknown(const char *name) __attribute__((noreturn));
static void unknown(const char *name) {
  char list[200] = "";
  for (size_t i = 0; i < NCOMMANDS; i++) {
    strcat(list, commands[i].name);
    strcat(list, ", ");
  }
  usage_error(NULL, "unknown command '%s' (%shelp, version)", name, list);
}

int main(int argc, char **argv) {
  zkl_pid = getpid();
  quiet_zookeeper_log();
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2) {
    fprintf(errf, main_help, common_help);
    return EXIT_ZKL;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
    if (strcmp(cmd, "help") == 0 && argc > 2) {
      const struct command *c = find(argv[2]);
      if (!c) unknown(argv[2]);
      show_help(c->help);
      return 0;
    }
    printf(main_help, common_help);
    return 0;
  }
  if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
    printf("zkl %d.%d.%d (libzkl %s)\n", ZKL_VERSION_MAJOR, ZKL_VERSION_MINOR, ZKL_VERSION_PATCH,
           zkl_version_string());
    return 0;
  }
  const struct command *c = find(cmd);
  if (!c) unknown(cmd);
  return c->run(argc - 2, argv + 2);
}
