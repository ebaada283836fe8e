/* Small C helpers for the Go binding: they read an event in one call, carry
 * runtime/cgo.Handle values through void* user data, and give the client a
 * log callback so that log lines are queued as ZKL_EVENT_LOG events (the
 * binding uses the pull form, zkl_client_next_event, where the callback
 * itself is never called). Everything here is static inline; nothing is
 * exported. Options structs are filled from Go with C memory only. */
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
  int log_level;
  uint64_t owner;
  uint64_t token;
  uint64_t request_id;
  uintptr_t user;
  const char *data;
  size_t len;
  const char *component;
} gozkl_event;

static inline void gozkl_decode(const zkl_event *ev, gozkl_event *out) {
  void *ud = NULL;
  out->type = zkl_event_type(ev);
  out->error = zkl_event_error(ev);
  out->session_state = zkl_event_session_state(ev);
  out->owner = 0;
  out->token = 0;
  out->request_id = 0;
  zkl_event_owner(ev, &out->owner);
  zkl_event_fencing_token(ev, &out->token);
  zkl_event_request_id(ev, &out->request_id);
  zkl_event_user_data(ev, &ud);
  out->user = (uintptr_t)ud;
  out->data = NULL;
  out->len = 0;
  zkl_event_data(ev, &out->data, &out->len);
  out->log_level = 0;
  out->component = NULL;
  if (out->type == ZKL_EVENT_LOG) zkl_event_log(ev, &out->log_level, &out->component);
}

/* Never called in the pull form; its presence makes zkl queue log lines. */
static void gozkl_log_noop(int level, const char *component, const char *message,
                           void *user_data) {
  (void)level; (void)component; (void)message; (void)user_data;
}

static inline void gozkl_set_log(zkl_client_options *o, int32_t level) {
  o->log_cb = gozkl_log_noop;
  o->log_level = level;
}

static inline void gozkl_set_user(void **slot, uintptr_t user) { *slot = (void *)user; }

/* A close-on-exec duplicate of the event fd (it keeps O_NONBLOCK, which is
 * shared by the open file description), so Go can own and close its copy. */
static inline int gozkl_dup(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, 0); }

#endif
