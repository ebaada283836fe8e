/* Shared helpers of the zkl command (see util.h). */
#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <zkl.h>

const char *prog = "zkl";
int verbose = 0;
FILE *errf;
int err_fd = 2;
pid_t zkl_pid;

static void vmsg(const char *fmt, va_list ap) {
  char buf[2048];
  vsnprintf(buf, sizeof buf, fmt, ap);
  fprintf(errf, "%s: %s\n", prog, buf);
  fflush(errf);
}

void error_msg(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
}

void info(const char *fmt, ...) {
  if (!verbose) return;
  va_list ap;
  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
}

void die(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
  exit(status);
}

void usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
  fprintf(errf, "Try '%s %s--help' for more information.\n", prog, cmd ? cmd : "");
  exit(EXIT_ZKL);
}

char *xasprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) die(EXIT_ZKL, "out of memory");
  va_end(ap);
  return s;
}

int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int parse_bool(const char *s) {
  static const char *const yes[] = {"1", "true", "yes", "on"};
  static const char *const no[] = {"0", "false", "no", "off"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; ++i) {
    if (strcasecmp(s, yes[i]) == 0) return 1;
    if (strcasecmp(s, no[i]) == 0) return 0;
  }
  return -1;
}

int env_bool(const char *name, int dflt) {
  const char *v = getenv(name);
  if (v == NULL || v[0] == '\0') return dflt;
  int b = parse_bool(v);
  /* A security switch must never turn on (or off) by a typo: refuse. */
  if (b < 0) die(EXIT_ZKL, "$%s must be one of 1/0, true/false, yes/no, on/off (any case), not '%s'", name, v);
  return b;
}

int parse_duration(const char *s, int64_t *out) {
  if (!s || !(isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1])))) {
    return -1;
  }
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno != 0 || end == s) return -1;
  double mult;
  if (*end == '\0' || strcmp(end, "s") == 0) mult = 1000;
  else if (strcmp(end, "ms") == 0) mult = 1;
  else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0) mult = 60000;
  else if (strcmp(end, "h") == 0) mult = 3600000;
  else return -1;
  double ms = v * mult;
  if (!(ms >= 0) || ms > 1e12) return -1; /* also rejects NaN */
  *out = (int64_t)(ms + 0.5);
  return 0;
}

void format_duration(int64_t ms, char *buf, size_t len) {
  if (ms < 0) ms = 0;
  if (ms < 1000) snprintf(buf, len, "%" PRId64 "ms", ms);
  else if (ms < 60000) snprintf(buf, len, "%.1fs", (double)ms / 1000.0);
  else if (ms < 3600000) snprintf(buf, len, "%" PRId64 "m%02" PRId64 "s", ms / 60000, (ms / 1000) % 60);
  else snprintf(buf, len, "%" PRId64 "h%02" PRId64 "m", ms / 3600000, (ms / 60000) % 60);
}

int poll_ms(int64_t deadline) {
  if (deadline < 0) return -1;
  int64_t left = deadline - now_ms();
  if (left < 0) left = 0;
  if (left > 1000000) left = 1000000;
  return (int)left;
}

char *default_id(void) {
  char host[256];
  if (gethostname(host, sizeof host) != 0) strcpy(host, "localhost");
  host[sizeof host - 1] = '\0';
  return xasprintf("%s:%d", host, (int)getpid());
}

void json_string(FILE *f, const char *s, size_t len) {
  fputc('"', f);
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch == '\n') fputs("\\n", f);
    else if (ch == '\t') fputs("\\t", f);
    else if (ch < 0x20 || ch == 0x7f) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

void printable(const char *s, size_t len, char *out, size_t outlen) {
  size_t j = 0;
  for (size_t i = 0; i < len && j + 1 < outlen; i++) {
    unsigned char ch = (unsigned char)s[i];
    out[j++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
  }
  out[j] = '\0';
}

void bad_path(const char *path, int rc) {
  if (rc == ZKL_EBADPATH) {
    die(EXIT_ZKL, "bad path '%s': want an absolute ZooKeeper path like /locks/job (no trailing '/', "
        "empty, '.' or '..' segments, or control characters)", path);
  }
  die(EXIT_ZKL, "%s: %s", path, zkl_strerror(rc));
}
