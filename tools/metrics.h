/*
 * `zkl lock --metrics-file`: the run's own lock statistics (zkl_lock_stats
 * JSON, read with a minimal scanner) in the Prometheus text format.
 */
#ifndef ZKL_TOOLS_METRICS_H
#define ZKL_TOOLS_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* The value of number field `key` directly inside the JSON object that
 * starts at `obj` ('{'); sub-objects are skipped. 0 found, -1 not. */
int json_number(const char *obj, const char *key, double *out);
/* The object value of field `key` directly inside `obj`, or NULL. */
const char *json_object(const char *obj, const char *key);

struct metrics_entry {
  const char *path;
  char *json; /* zkl_lock_stats document of the handle (zkl_free'd by the caller) */
};

/* Writes FILE atomically (FILE.tmp, then rename): one block of metrics per
 * entry, labelled by path, and the run's exit status. 0, or -1 with errno. */
int metrics_write(const char *file, const struct metrics_entry *e, size_t n, int exit_status);

#endif
