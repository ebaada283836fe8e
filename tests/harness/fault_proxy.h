// A TCP fault-injection proxy for ZooKeeper client connections (tests only).
//
// Listens on 127.0.0.1 (a free port) and forwards every accepted client
// connection to one of the upstream servers (127.0.0.1:PORT, round robin over
// a comma-separated list, skipping upstreams that refuse).  Typical use: one
// proxy per ZooKeeper server, and the client's connect string lists the
// proxies.  All I/O runs in one thread with poll(); the control methods are
// thread-safe and synchronous: when they return, the proxy thread has applied
// them (DropAll() has closed the connections, SetBlackhole(true) has stopped
// forwarding, ...).
//
// The client->server and server->client streams are parsed as ZooKeeper
// frames (4-byte big-endian length prefix; the first frame in each direction
// is the ConnectRequest/ConnectResponse, later client frames start with the
// RequestHeader {int32 xid, int32 type}, server frames with the ReplyHeader
// {int32 xid, int64 zxid, int32 err}).  A connection whose first bytes are not
// a plausible frame (e.g. a four-letter word) is passed through raw.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace zkl_test {

class FaultProxy {
 public:
  struct Stats {
    uint64_t accepted = 0;           // client connections accepted
    uint64_t active = 0;             // client connections currently open
    uint64_t upstream_failures = 0;  // client connections closed: no upstream reachable
    uint64_t dropped = 0;            // connections closed by DropAll()
    uint64_t cut = 0;                // connections cut by CutAfterNextCreate()
    uint64_t blackhole_closed = 0;   // clients that gave up while blackholed
    uint64_t discarded = 0;          // bytes read and thrown away by SetDropping(true)
    uint64_t requests = 0;           // client request frames forwarded (after connect)
    uint64_t creates = 0;            // create-type requests forwarded (incl. multi with a create)
    uint64_t bytes_to_server = 0;
    uint64_t bytes_to_client = 0;
  };

  FaultProxy();
  ~FaultProxy();  // Stop()
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // upstream: "127.0.0.1:PORT" or "127.0.0.1:P1,127.0.0.1:P2,..." (a ZooKeeper
  // connect string; "localhost" is accepted; anything not on 127.0.0.0/8 is
  // rejected).  listen_port 0 picks a free port.  Throws std::runtime_error.
  void Start(const std::string& upstream, int listen_port = 0);
  void Stop();  // closes everything and joins the thread; idempotent.

  int port() const;
  std::string connect() const;  // "127.0.0.1:PORT"

  // Closes all current client connections abruptly (RST to the client, FIN to
  // the server).  The proxy keeps accepting new connections.
  void DropAll();

  // On: stop forwarding in both directions without closing anything; new
  // connections are accepted but stalled (not connected upstream until the
  // blackhole is lifted).  A client that gives up meanwhile is closed (its
  // unforwarded bytes are lost, as in a partition).  Off: resume.
  void SetBlackhole(bool on);

  // On: a silent drop.  Bytes in both directions are read and thrown away;
  // every connection stays open (a close or reset by either side is not passed
  // on until the drop ends), and new connections are accepted, connected
  // upstream, and their bytes thrown away too.  Chunks still queued for
  // sending (SetDelayMs) are thrown away as well.  Off: forwarding resumes
  // with whatever bytes come next, so a stream that lost bytes is corrupt
  // mid-frame: such a connection is passed through raw from then on (no
  // framing, so CutAfterNext* no longer sees its requests), and the endpoints
  // decide what to make of it.  SetBlackhole(true) takes precedence while on.
  void SetDropping(bool on);

  // Adds `ms` of latency to every chunk forwarded from now on (both ways).
  void SetDelayMs(int ms);

  // One-shot: forwards the next create-type request (create, create2,
  // createContainer, createTTL, or a multi containing one) of any connection
  // to the server, then forwards nothing more from that client, and when the
  // server's reply to that xid arrives, swallows it and closes the client
  // connection: the create succeeded on the server but the client sees a
  // connection loss.  (Closes after 10 s without a reply, or when the server
  // closes.)
  void CutAfterNextCreate();
  bool cut_armed() const;  // true until a create has been caught

  // One-shot, the same for the next plain delete request, and then the proxy
  // stays blackholed (SetBlackhole(false) lifts it): the delete succeeded on
  // the server, the client saw a connection loss and cannot retry until the
  // test has acted meanwhile.
  void CutAfterNextDeleteThenBlackhole();

  Stats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zkl_test
