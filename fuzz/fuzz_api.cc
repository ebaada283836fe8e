// A stateful target: random sequences of API calls on a few handle slots,
// including misuse (use after destroy, double release, wrong owner, NULLs,
// foreign pointers). Every call must return a code; none may crash, hang or
// leak. The client points at a loopback port where nothing listens.
#include <cstdint>
#include <cstring>

#include "zkl.h"

namespace {

zkl_client *NewClient() {
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  o.servers = "127.0.0.1:1";
  zkl_client *c = nullptr;
  zkl_client_new(&o, &c);
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 512) return 0;
  zkl_client *client = NewClient();
  zkl_lock *locks[4] = {};
  zkl_election *elections[2] = {};
  zkl_observer *observer = nullptr;
  static const char *paths[] = {"/fuzz/a", "/fuzz/b", "bad//path", "/fuzz/a/b"};
  for (size_t i = 0; i + 1 < size; i += 2) {
    uint8_t op = data[i], arg = data[i + 1];
    zkl_lock *l = locks[arg % 4];
    switch (op % 24) {
      case 0: {
        zkl_lock_options o;
        zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
        o.kind = 1 + arg % 7;
        o.max_leases = arg % 3;
        zkl_lock *n = nullptr;
        if (zkl_lock_new(client, paths[(arg >> 3) % 4], &o, &n) == ZKL_OK) {
          if (locks[arg % 4]) zkl_lock_destroy(locks[arg % 4]);
          locks[arg % 4] = n;
        }
        break;
      }
      case 1: zkl_lock_destroy(l); break;  // may be a destroyed handle next time
      case 2: zkl_lock_acquire(l, arg % 3, arg % 4); break;
      case 3: zkl_lock_try_acquire(l, arg % 3); break;
      case 4: zkl_lock_acquire_async(l, arg % 3, arg % 8); break;
      case 5: zkl_lock_cancel(l); break;
      case 6: zkl_lock_release(l, arg % 3); break;
      case 7: zkl_lock_release_async(l, arg % 3); break;
      case 8: zkl_lock_is_held(l); break;
      case 9: {
        uint64_t t;
        zkl_lock_fencing_token(l, arg & 1 ? &t : nullptr);
        break;
      }
      case 10: zkl_client_dispatch(client, arg % 4); break;
      case 11: {
        zkl_event *ev = nullptr;
        if (zkl_client_next_event(client, &ev) == ZKL_OK) {
          uint64_t v;
          const char *d;
          size_t len;
          zkl_lock *which;
          zkl_event_type(ev);
          zkl_event_error(ev);
          zkl_event_fencing_token(ev, &v);
          zkl_event_data(ev, &d, &len);
          zkl_event_lock(ev, &which);
          zkl_event_free(ev);
        }
        break;
      }
      case 12: zkl_client_wait(client, arg % 3); break;
      case 13: zkl_client_wakeup(client); break;
      case 14: {
        zkl_election_options o;
        zkl_election_options_init(&o, ZKL_ELECTION_OPTIONS_VERSION);
        o.kind = 1 + arg % 3;
        o.id = arg & 1 ? "fuzzer" : nullptr;
        zkl_election *e = nullptr;
        if (zkl_election_new(client, paths[(arg >> 2) % 4], &o, &e) == ZKL_OK) {
          if (elections[arg % 2]) zkl_election_destroy(elections[arg % 2]);
          elections[arg % 2] = e;
        }
        break;
      }
      case 15: zkl_election_acquire_async(elections[arg % 2], -1); break;
      case 16: zkl_election_release(elections[arg % 2]); break;
      case 17: zkl_election_acquire(elections[arg % 2], arg % 3); break;
      case 18: zkl_election_destroy(elections[arg % 2]); break;
      case 19:
        if (!observer) {
          zkl_observer_options oo;
          zkl_observer_options_init(&oo, ZKL_OBSERVER_OPTIONS_VERSION);
          oo.kind = 1 + arg % 3;
          zkl_observer_new(client, paths[arg % 4], &oo, &observer);
        }
        break;
      case 20: {
        char buf[8];
        zkl_observer_leader(observer, arg & 1 ? buf : nullptr, arg % 9);
        break;
      }
      case 21: zkl_observer_destroy(observer); break;  // dangling on purpose
      case 22: zkl_lock_hold_count(reinterpret_cast<zkl_lock *>(static_cast<uintptr_t>(arg) * 8)); break;
      case 23:
        if (arg % 16 == 0) zkl_client_close(client);
        break;
    }
  }
  for (auto *l : locks) zkl_lock_destroy(l);
  for (auto *e : elections) zkl_election_destroy(e);
  zkl_observer_destroy(observer);
  zkl_client_destroy(client);
  return 0;
}
