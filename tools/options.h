/*
 * Option parsing shared by every zkl command: the connection options (with
 * their ZKL_* environment defaults and secrets read from files or the
 * environment, never from argv), a small option scanner, and the options of
 * the commands that run a CMD (lock, elect).
 */
#ifndef ZKL_TOOLS_OPTIONS_H
#define ZKL_TOOLS_OPTIONS_H

#include <stdint.h>

/* Connection options. Secrets are heap copies, wiped by common_wipe(). */
struct common {
  const char *servers;
  int64_t session_timeout_ms; /* 0: library default */
  int64_t connect_timeout_ms;
  int64_t attempt_timeout_ms; /* one connection attempt; 0: a share of connect_timeout_ms */
  char *auth;                 /* "user:password" (secret) or NULL */
  const char *auth_file;
  int acl;
  const char *tls_ca, *tls_cert, *tls_key;
  const char *tls_key_password_file;
  char *tls_key_password;     /* secret */
  int tls_skip_hostname_check;
  const char *sasl_mechanism, *sasl_user, *sasl_keytab, *sasl_ccache, *sasl_host;
  const char *sasl_password_file;
  char *sasl_password;        /* secret */
};

/* Where a setting came from, for messages: FLAG, or VAR ("$ZKL_...") when
 * value is the environment's own (common_init keeps getenv's pointer; an
 * option's value points into argv). */
const char *origin(const char *value, const char *flag, const char *var);
/* Defaults from the environment (ZKL_SERVERS, ZKL_TLS_*, ZKL_SASL_*). */
void common_init(struct common *co);
/* After parsing: reads the secret files and environment secrets. */
void common_finish(struct common *co, const char *cmd);
/* Wipes and frees the secrets (the library has its own copies). */
void common_wipe(struct common *co);
extern const char common_help[];

/* A tiny option scanner: "--name value", "--name=value", flags. */
struct scan {
  int argc;
  char **argv;
  int i;
  const char *cmd;      /* for messages: "lock " */
  const char *name;     /* current option, without "=value" */
  const char *inline_v; /* value after '=', or NULL */
  char namebuf[64];
  int started;          /* next_option: past the first argument */
};

void scan_init(struct scan *s, int argc, char **argv, const char *cmd);
/* Splits argv[s->i] into name and inline value. */
void scan_split(struct scan *s);
int is(const struct scan *s, const char *name);
int is_help(const struct scan *s);
const char *value(struct scan *s);
void no_value(struct scan *s);
/* A yes/no flag: "--flag" is 1, "--flag=BOOL" takes BOOL (parse_bool);
 * anything else is a usage error naming the flag. */
int flag_value(struct scan *s);
int64_t duration_value(struct scan *s);
/* A whole number in [min, max]; the message names `what`. */
long count_value(struct scan *s, long min, long max, const char *what);
/* 1 if the current option is a connection option (consumed). */
int common_option(struct scan *s, struct common *co);
int is_option(const char *a);
/* The arguments of a command that takes one PATH and options: returns 1 for
 * each option the command judges itself (s->name, value(s) as usual; an
 * unknown one goes to unknown_option), 0 at the end. The PATH, --help
 * (printed, then exit 0) and the connection options are handled here. */
int next_option(struct scan *s, struct common *co, const char **path, const char *help);
void unknown_option(const struct scan *s);
/* Ends with a usage error unless `path` is an absolute ZooKeeper path. */
void require_path(const struct scan *s, const char *path);
/* Prints a command's help (a format with one %s: common_help). */
void show_help(const char *help);

/* Options of `zkl lock` and `zkl elect`. */
#define MAX_PATHS 64
struct run_opts {
  int kind;             /* ZKL_LOCK_* or ZKL_ELECTION_* */
  int leases;
  int64_t timeout_ms;   /* < 0: forever */
  int64_t grace_ms;
  int64_t max_hold_ms;  /* 0: none */
  int stop_on_suspend;
  int foreground;
  int rejoin;
  int revocable;
  const char *metrics_file;
  const char *id;
  const char *path;     /* the first PATH */
  const char *paths[MAX_PATHS];
  int npaths;
  char **cmd;
};

void parse_run(const char *sub, int argc, char **argv, struct common *co, struct run_opts *ro,
               int election, const char *help);

#endif
