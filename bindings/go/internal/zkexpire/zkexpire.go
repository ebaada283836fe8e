// Package zkexpire expires a ZooKeeper session for real, for the binding's
// tests: it attaches a second connection to the session (same id and
// password, through libzookeeper_mt) and closes it, which ends the session
// on the server. The original client then learns on reconnect that its
// session expired.
package zkexpire

/*
#cgo LDFLAGS: -lzookeeper_mt
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <zookeeper/zookeeper.h>

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int state;
} zkexp_waiter;

static void zkexp_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx) {
  (void)zh; (void)path;
  if (type != ZOO_SESSION_EVENT) return;
  zkexp_waiter *w = (zkexp_waiter *)ctx;
  pthread_mutex_lock(&w->mu);
  w->state = state;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

static int zkexp_terminal(int s) {
  return s == ZOO_CONNECTED_STATE || s == ZOO_EXPIRED_SESSION_STATE || s == ZOO_AUTH_FAILED_STATE;
}

// Connects as the session and closes the handle. Returns the state reached:
// ZOO_CONNECTED_STATE (then the close ended the session), ZOO_EXPIRED_SESSION_STATE
// (it was already gone), or 0 on timeout / failure.
static int zkexp_attach_and_close(const char *hosts, int64_t id, const char *passwd,
                                  int timeout_ms) {
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  clientid_t cid;
  memset(&cid, 0, sizeof cid);
  cid.client_id = id;
  memcpy(cid.passwd, passwd, sizeof cid.passwd);
  zkexp_waiter w;
  pthread_mutex_init(&w.mu, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&w.cv, &attr);
  pthread_condattr_destroy(&attr);
  w.state = 0;
  zhandle_t *zh = zookeeper_init(hosts, zkexp_watcher, 10000, &cid, &w, 0);
  int result = 0;
  if (zh != NULL) {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) { deadline.tv_sec++; deadline.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&w.mu);
    while (!zkexp_terminal(w.state)) {
      if (pthread_cond_timedwait(&w.cv, &w.mu, &deadline) != 0) break;
    }
    result = zkexp_terminal(w.state) ? w.state : 0;
    pthread_mutex_unlock(&w.mu);
    if (result == ZOO_CONNECTED_STATE && zoo_client_id(zh)->client_id != id) result = 0;
    zookeeper_close(zh);
  }
  pthread_cond_destroy(&w.cv);
  pthread_mutex_destroy(&w.mu);
  return result;
}

static int zkexp_connected(void) { return ZOO_CONNECTED_STATE; }
static int zkexp_expired(void) { return ZOO_EXPIRED_SESSION_STATE; }
*/
import "C"

import (
	"errors"
	"time"
	"unsafe"
)

// Expire ends the session (id, password) on the servers. It repeats the
// attach-and-close until the server answers that the session is expired:
// the original client may win the session back in between by reconnecting.
func Expire(servers string, id uint64, password []byte, timeout time.Duration) error {
	if len(password) < 16 {
		return errors.New("zkexpire: password must be 16 bytes")
	}
	hosts := C.CString(servers)
	defer C.free(unsafe.Pointer(hosts))
	pw := C.CBytes(password[:16])
	defer C.free(pw)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		left := time.Until(deadline).Milliseconds()
		st := C.zkexp_attach_and_close(hosts, C.int64_t(id), (*C.char)(pw), C.int(left))
		switch st {
		case C.zkexp_expired():
			return nil
		case C.zkexp_connected():
			continue // closed it; confirm with the next attach
		default:
			return errors.New("zkexpire: could not attach to the session")
		}
	}
	return errors.New("zkexpire: timed out")
}
