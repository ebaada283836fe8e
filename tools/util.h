/*
 * Shared helpers of the zkl command: messages, time and durations, strings.
 * Built on the public C API (zkl.h) only.
 */
#ifndef ZKL_TOOLS_UTIL_H
#define ZKL_TOOLS_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit statuses (documented in --help and tools/README.md). */
#define EXIT_LOST 75       /* lock / leadership lost, revoked or held too long */
#define EXIT_TIMEOUT 124   /* --timeout passed before the lock was acquired */
#define EXIT_ZKL 125       /* zkl itself failed (usage, connection, ZooKeeper) */
#define EXIT_NOEXEC 126    /* CMD found but could not be executed */
#define EXIT_NOTFOUND 127  /* CMD not found */
#define EXIT_NOLEADER 1    /* `zkl leader`: there is no leader */

#define OWNER 1 /* the one owner token this process uses */

extern const char *prog;
extern int verbose;
/* zkl's own messages go here: the real stderr (fd 2 may be /dev/null, see
 * main.c). */
extern FILE *errf;
extern int err_fd;
extern pid_t zkl_pid;

void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* Prints the message and "Try 'zkl CMD --help'", exits 125. cmd: "lock " or NULL. */
void usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int64_t now_ms(void);  /* monotonic */
int64_t wall_ms(void); /* Unix time */
/* "500ms", "1.5s", "2m", "1h"; a plain number is seconds. -1 if malformed. */
int parse_duration(const char *s, int64_t *out);
/* A yes/no setting: 1, true, yes, on (any case) -> 1; 0, false, no, off ->
 * 0; anything else -> -1 (the caller says which setting was wrong). */
int parse_bool(const char *s);
/* The boolean environment variable NAME: `dflt` when unset or empty; dies
 * with a usage error naming NAME when it is neither yes nor no. */
int env_bool(const char *name, int dflt);
void format_duration(int64_t ms, char *buf, size_t len);
/* The poll(2) timeout until a monotonic deadline (-1: none). */
int poll_ms(int64_t deadline);

/* HOST:PID */
char *default_id(void);
void json_string(FILE *f, const char *s, size_t len);
/* Printable copy of node data (control bytes as '?'). */
void printable(const char *s, size_t len, char *out, size_t outlen);
/* The error for a path zkl_*_new refused. */
void bad_path(const char *path, int rc) __attribute__((noreturn));

#endif
