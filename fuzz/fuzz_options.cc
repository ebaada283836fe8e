// Options structs with arbitrary contents (but valid pointers): every
// constructor answers with a code, never a crash. The client points at a
// loopback port where nothing listens, so nothing leaves the machine.
#include <cstdint>
#include <cstring>
#include <string>

#include "zkl.h"

namespace {

struct Reader {
  const uint8_t *p;
  size_t n;
  template <typename T>
  T Get() {
    T v{};
    size_t k = n < sizeof v ? n : sizeof v;
    std::memcpy(&v, p, k);
    p += k;
    n -= k;
    return v;
  }
  std::string String(size_t max) {
    size_t len = Get<uint8_t>() % (max + 1);
    len = len < n ? len : n;
    std::string s(reinterpret_cast<const char *>(p), len);
    p += len;
    n -= len;
    return s;
  }
};

zkl_client *Client() {
  static zkl_client *c = [] {
    zkl_client_options o;
    zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
    o.servers = "127.0.0.1:1";
    zkl_client *out = nullptr;
    zkl_client_new(&o, &out);
    return out;
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Reader r{data, size};
  // Client options (not servers: a real address would be contacted).
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  co.version = r.Get<uint8_t>() % 3;
  co.servers = "127.0.0.1:1";
  std::string chroot = r.String(32), digest = r.String(32);
  co.chroot = r.Get<uint8_t>() & 1 ? chroot.c_str() : nullptr;
  co.digest_auth = r.Get<uint8_t>() & 1 ? digest.c_str() : nullptr;
  co.session_timeout_ms = r.Get<int32_t>();
  co.lost_after_ms = r.Get<int32_t>();
  co.acl = r.Get<int8_t>();
  zkl_client *c = nullptr;
  if (zkl_client_new(&co, &c) == ZKL_OK) zkl_client_destroy(c);

  // Lock options.
  zkl_lock_options lo;
  zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
  lo.version = r.Get<uint8_t>() % 3;
  lo.kind = r.Get<int8_t>();
  lo.max_leases = r.Get<int32_t>();
  std::string node_data = r.String(64);
  lo.data = node_data.data();
  lo.data_len = r.Get<uint8_t>() & 1 ? node_data.size() : r.Get<uint32_t>() % (2u << 20);
  if (lo.data_len > node_data.size()) lo.data = nullptr;  // never read past the buffer
  std::string path = r.String(64);
  zkl_lock *l = nullptr;
  if (zkl_lock_new(Client(), path.c_str(), &lo, &l) == ZKL_OK) zkl_lock_destroy(l);

  // Election options.
  zkl_election_options eo;
  zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
  eo.version = r.Get<uint8_t>() % 3;
  eo.kind = r.Get<int8_t>();
  std::string id = r.String(32);
  eo.id = r.Get<uint8_t>() & 1 ? id.c_str() : nullptr;
  zkl_election *e = nullptr;
  if (zkl_election_new(Client(), path.c_str(), &eo, &e) == ZKL_OK) zkl_election_destroy(e);
  return 0;
}
