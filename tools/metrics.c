/* Prometheus text of a zkl lock run's statistics (see metrics.h). */
#define _GNU_SOURCE
#include "metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Skips a JSON string starting at its opening quote; returns past it. */
static const char *skip_string(const char *p) {
  for (++p; *p && *p != '"'; ++p) {
    if (*p == '\\' && p[1]) ++p;
  }
  return *p ? p + 1 : p;
}

/* Finds `"key":` at depth 1 of the object at obj; returns the value's start. */
static const char *find_key(const char *obj, const char *key) {
  if (!obj || *obj != '{') return NULL;
  size_t klen = strlen(key);
  int depth = 0;
  for (const char *p = obj; *p;) {
    char ch = *p;
    if (ch == '"') {
      const char *end = skip_string(p);
      if (depth == 1 && (size_t)(end - p) == klen + 2 && strncmp(p + 1, key, klen) == 0) {
        const char *v = end;
        while (*v == ' ') ++v;
        if (*v == ':') {
          ++v;
          while (*v == ' ') ++v;
          return v;
        }
      }
      p = end;
      continue;
    }
    if (ch == '{' || ch == '[') ++depth;
    if ((ch == '}' || ch == ']') && --depth == 0) return NULL;
    ++p;
  }
  return NULL;
}

int json_number(const char *obj, const char *key, double *out) {
  const char *v = find_key(obj, key);
  if (!v) return -1;
  if (strncmp(v, "true", 4) == 0) { *out = 1; return 0; }
  if (strncmp(v, "false", 5) == 0) { *out = 0; return 0; }
  char *end;
  double d = strtod(v, &end);
  if (end == v) return -1;
  *out = d;
  return 0;
}

const char *json_object(const char *obj, const char *key) {
  const char *v = find_key(obj, key);
  return v && *v == '{' ? v : NULL;
}

/* Prometheus label value: \ " and newline escaped. */
static void label(FILE *f, const char *s) {
  for (; *s; ++s) {
    if (*s == '\\' || *s == '"') fputc('\\', f);
    if (*s == '\n') { fputs("\\n", f); continue; }
    fputc(*s, f);
  }
}

struct counter {
  const char *key, *name, *type, *help;
};

static const struct counter plain[] = {
    {"held", "zkl_lock_held", "gauge", "1 if the lock was held when the snapshot was taken"},
    {"acquisitions", "zkl_lock_acquisitions_total", "counter", "Acquisitions"},
    {"losses", "zkl_lock_losses_total", "counter", "Holds that ended by loss"},
    {"suspended_ms", "zkl_lock_suspended_milliseconds_total", "counter", "Time held but suspended"},
    {"revocations", "zkl_lock_revocations_total", "counter", "Revocation requests received"},
    {"proof_waits", "zkl_lock_proof_waits_total", "counter", "Acquires held back for the quorum's proof"},
};

static void histogram(FILE *f, const struct metrics_entry *e, size_t n, const char *key,
                      const char *name, const char *help) {
  fprintf(f, "# HELP %s %s\n# TYPE %s summary\n", name, help, name);
  static const char *const q[][2] = {{"p50", "0.5"}, {"p90", "0.9"}, {"p99", "0.99"}};
  for (size_t i = 0; i < n; i++) {
    const char *h = json_object(e[i].json, key);
    double v;
    for (size_t k = 0; k < 3; k++) {
      if (!h || json_number(h, q[k][0], &v) != 0) continue;
      fprintf(f, "%s{path=\"", name);
      label(f, e[i].path);
      fprintf(f, "\",quantile=\"%s\"} %.17g\n", q[k][1], v);
    }
    if (h && json_number(h, "count", &v) == 0) {
      fprintf(f, "%s_count{path=\"", name);
      label(f, e[i].path);
      fprintf(f, "\"} %.17g\n", v);
    }
  }
  fprintf(f, "# HELP %s_max %s (maximum)\n# TYPE %s_max gauge\n", name, help, name);
  for (size_t i = 0; i < n; i++) {
    const char *h = json_object(e[i].json, key);
    double v;
    if (!h || json_number(h, "max", &v) != 0) continue;
    fprintf(f, "%s_max{path=\"", name);
    label(f, e[i].path);
    fprintf(f, "\"} %.17g\n", v);
  }
}

/* {"a":1,"b":2} of every entry as NAME{path=..,LABEL="a"} 1 */
static void by_label(FILE *f, const struct metrics_entry *e, size_t n, const char *key,
                     const char *name, const char *lab, const char *const *fields, const char *help) {
  fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
  for (size_t i = 0; i < n; i++) {
    const char *o = json_object(e[i].json, key);
    double v;
    for (size_t k = 0; o && fields[k]; k++) {
      if (json_number(o, fields[k], &v) != 0) continue;
      fprintf(f, "%s{path=\"", name);
      label(f, e[i].path);
      fprintf(f, "\",%s=\"%s\"} %.17g\n", lab, fields[k], v);
    }
  }
}

int metrics_write(const char *file, const struct metrics_entry *e, size_t n, int exit_status) {
  char *tmp = xasprintf("%s.tmp.%d", file, (int)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    int err = errno;
    free(tmp);
    errno = err;
    return -1;
  }
  for (size_t c = 0; c < sizeof plain / sizeof plain[0]; c++) {
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", plain[c].name, plain[c].help, plain[c].name, plain[c].type);
    for (size_t i = 0; i < n; i++) {
      double v;
      if (json_number(e[i].json, plain[c].key, &v) != 0) continue;
      fprintf(f, "%s{path=\"", plain[c].name);
      label(f, e[i].path);
      fprintf(f, "\"} %.17g\n", v);
    }
  }
  static const char *const causes[] = {"session", "node", "auth", "max_hold", "revoked", "closed", NULL};
  static const char *const failures[] = {"timeout", "canceled", "other", NULL};
  by_label(f, e, n, "losses_by_cause", "zkl_lock_losses_by_cause_total", "cause", causes,
           "Losses by cause");
  by_label(f, e, n, "acquire_failures", "zkl_lock_acquire_failures_total", "reason", failures,
           "Acquires that failed");
  histogram(f, e, n, "wait_ms", "zkl_lock_wait_milliseconds", "Time from acquire to held");
  histogram(f, e, n, "hold_ms", "zkl_lock_hold_milliseconds", "Time held");
  fprintf(f, "# HELP zkl_lock_run_exit_status Exit status of this zkl lock run\n"
             "# TYPE zkl_lock_run_exit_status gauge\n");
  for (size_t i = 0; i < n; i++) {
    fputs("zkl_lock_run_exit_status{path=\"", f);
    label(f, e[i].path);
    fprintf(f, "\"} %d\n", exit_status);
  }
  int bad = ferror(f);
  if (fclose(f) != 0 || bad || rename(tmp, file) != 0) {
    int err = errno ? errno : EIO;
    unlink(tmp);
    free(tmp);
    errno = err;
    return -1;
  }
  free(tmp);
  return 0;
}
