// The ensemble's configuration as ZooKeeper 3.5+ publishes it in
// /zookeeper/config (dynamic reconfiguration), and the client server list it
// gives zkl_client_follow_ensemble. Plain parsing, no I/O: unit-tested in
// tests/ensemble_config_test.cc.
//
// The node's data is the server's QuorumVerifier in text, one key=value a
// line:
//   server.1=10.0.0.1:2888:3888:participant;10.0.0.1:2181
//   server.2=zk2:2888:3888|zk2b:2888:3888:observer;0.0.0.0:2181
//   server.3=10.0.0.3:2888:3888:participant;2181
//   version=100000003
// "server.N=" quorum address(es) ("|" between several, 3.6+), the role
// (participant when absent), and after ";" the client address "[host:]port"
// (a port alone, or 0.0.0.0, is the wildcard: every address of the server).
// A server whose configuration is static, 3.4-style ("server.N=host:p:p"
// plus clientPort), publishes its lines without the client part.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zkl {

struct EnsembleMember {
  int64_t id = 0;
  std::string quorum_host;  // the host of its (first) quorum address
  bool observer = false;
  std::string client_host;  // as written ("" with a port alone)
  int client_port = 0;      // 0: the line gives no client address
};

struct EnsembleConfig {
  uint64_t version = 0;  // "version=" (hex, as the server writes it); 0: none
  std::vector<EnsembleMember> members;  // ordered by id
};

// Parses the data of /zookeeper/config. false, with *why (for a log line),
// for data that is not such a configuration. Keys other than server.N and
// version (group.N, weight.N, ...) are skipped.
bool ParseEnsembleConfig(std::string_view data, EnsembleConfig *out, std::string *why);

// The client server list a configuration gives: "host:port,..." with every
// member, participants and observers alike (a client may use either), in
// the order of their ids. A member whose client address is the wildcard is
// reached at the host of its quorum address. "" with *why when a member
// has no client address (a static configuration: following it would drop
// the servers it does not describe) or the list is not a valid server list
// (ValidateServers).
std::string ClientServers(const EnsembleConfig &config, std::string *why);

// The same servers, whatever their order (and repetitions): "a:1,b:2" and
// "b:2,a:1" name one list.
bool SameServers(std::string_view a, std::string_view b);

}  // namespace zkl
