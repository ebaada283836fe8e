// zkl-expire-session: expires a ZooKeeper session for real (for the binding
// test suites, which have no ZooKeeper client of their own):
//
//   zkl-expire-session SERVERS SESSION_ID_HEX PASSWORD_HEX
//
// SESSION_ID_HEX is zkl_client_session_id in hex, PASSWORD_HEX the 16 bytes
// of zkl_client_session_password in hex. Exits 0 once the server reports
// the session expired, 1 otherwise (within 15 s).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "zk_harness.h"

int main(int argc, char **argv) {
  if (argc != 4 || std::string(argv[3]).size() != 32) {
    std::fprintf(stderr, "usage: zkl-expire-session SERVERS SESSION_ID_HEX PASSWORD_HEX(32 digits)\n");
    return 2;
  }
  int64_t id = static_cast<int64_t>(std::strtoull(argv[2], nullptr, 16));
  std::string hex = argv[3], passwd;
  for (size_t i = 0; i < hex.size(); i += 2) {
    passwd.push_back(static_cast<char>(std::strtoul(hex.substr(i, 2).c_str(), nullptr, 16)));
  }
  zkl_test::QuietZkClientLogs();
  bool expired = zkl_test::ExpireSession(argv[1], id, passwd);
  std::printf("%s\n", expired ? "expired" : "not expired");
  return expired ? 0 : 1;
}
