/* Small C helpers for the Go binding: they fill the versioned options
 * structs (so Go never lays out a C struct with Go pointers in it), carry
 * runtime/cgo.Handle values through void* user data, and read an event in
 * one call. Everything here is static inline; nothing is exported. */
#ifndef GOZKL_H
#define GOZKL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <zkl.h>

typedef struct {
  int type;
  int error;
  int session_state;
  uint64_t owner;
  uint64_t token;
  uintptr_t user;
  const char *data;
  size_t len;
} gozkl_event;

static inline void gozkl_decode(const zkl_event *ev, gozkl_event *out) {
  void *ud = NULL;
  out->type = zkl_event_type(ev);
  out->error = zkl_event_error(ev);
  out->session_state = zkl_event_session_state(ev);
  zkl_event_owner(ev, &out->owner);
  zkl_event_fencing_token(ev, &out->token);
  zkl_event_user_data(ev, &ud);
  out->user = (uintptr_t)ud;
  out->data = NULL;
  out->len = 0;
  zkl_event_data(ev, &out->data, &out->len);
}

static inline int gozkl_client_new(const char *servers, const char *chroot,
                                   int32_t session_timeout_ms,
                                   int32_t lost_after_ms,
                                   const char *digest, int32_t acl,
                                   zkl_client **out) {
  zkl_client_options o;
  int rc = zkl_client_options_init(&o, 1);
  if (rc != 0) return rc;
  o.servers = servers;
  o.chroot = chroot;
  if (session_timeout_ms > 0) o.session_timeout_ms = session_timeout_ms;
  o.lost_after_ms = lost_after_ms;
  o.digest_auth = digest;
  o.acl = acl;
  return zkl_client_new(&o, out);
}

static inline int gozkl_lock_new(zkl_client *c, const char *path, int32_t kind,
                                 int32_t max_leases, const void *data,
                                 size_t len, uintptr_t user, zkl_lock **out) {
  zkl_lock_options o;
  int rc = zkl_lock_options_init(&o, 1);
  if (rc != 0) return rc;
  o.kind = kind;
  o.max_leases = max_leases;
  o.data = data;
  o.data_len = len;
  o.user_data = (void *)user;
  return zkl_lock_new(c, path, &o, out);
}

static inline int gozkl_election_new(zkl_client *c, const char *path,
                                     int32_t kind, const char *id,
                                     uintptr_t user, zkl_election **out) {
  zkl_election_options o;
  int rc = zkl_election_options_init(&o, 1);
  if (rc != 0) return rc;
  o.kind = kind;
  o.id = id;
  o.user_data = (void *)user;
  return zkl_election_new(c, path, &o, out);
}

static inline int gozkl_observer_new(zkl_client *c, const char *path,
                                     int32_t kind, uintptr_t user,
                                     zkl_observer **out) {
  return zkl_observer_new(c, path, kind, NULL, (void *)user, out);
}

/* A close-on-exec duplicate of the event fd (it keeps O_NONBLOCK, which is
 * shared by the open file description), so Go can own and close its copy. */
static inline int gozkl_dup(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, 0); }

#endif
