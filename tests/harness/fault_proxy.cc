#include "fault_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace zkl_test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxFrame = 64u << 20;       // larger "frames" => not ZooKeeper: raw mode
constexpr size_t kMaxBuffered = 8u << 20;     // per direction, then stop reading
constexpr auto kCutReplyTimeout = std::chrono::seconds(10);
constexpr auto kSyncTimeout = std::chrono::seconds(10);

// ZooKeeper OpCode values.
constexpr int32_t kOpCreate = 1;
constexpr int32_t kOpDelete = 2;
constexpr int32_t kOpSetData = 5;
constexpr int32_t kOpCheck = 13;
constexpr int32_t kOpMulti = 14;
constexpr int32_t kOpCreate2 = 15;
constexpr int32_t kOpCreateContainer = 19;
constexpr int32_t kOpCreateTtl = 21;

bool IsCreateOp(int32_t t) {
  return t == kOpCreate || t == kOpCreate2 || t == kOpCreateContainer || t == kOpCreateTtl;
}

uint32_t Be32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}

// Minimal jute reader for the multi request body.
class Reader {
 public:
  Reader(const char* p, size_t n) : p_(p), n_(n) {}
  bool I32(int32_t* v) {
    if (n_ - off_ < 4 || off_ > n_) return false;
    *v = static_cast<int32_t>(Be32(p_ + off_));
    off_ += 4;
    return true;
  }
  bool U8(uint8_t* v) {
    if (off_ >= n_) return false;
    *v = static_cast<uint8_t>(p_[off_++]);
    return true;
  }
  bool Skip(size_t k) {
    if (n_ - off_ < k) return false;
    off_ += k;
    return true;
  }
  bool Buffer() {  // ustring/buffer: int32 length (-1 = null) + bytes
    int32_t len;
    if (!I32(&len)) return false;
    return len < 0 || Skip(static_cast<size_t>(len));
  }
  bool I32() {
    int32_t v;
    return I32(&v);
  }

 private:
  const char* p_;
  size_t n_;
  size_t off_ = 0;
};

// Does a multi request body (after the RequestHeader) contain a create op?
bool MultiHasCreate(const char* p, size_t n) {
  Reader r(p, n);
  for (int guard = 0; guard < 100000; ++guard) {
    int32_t type, err;
    uint8_t done;
    if (!r.I32(&type) || !r.U8(&done) || !r.I32(&err) || done != 0) return false;
    if (IsCreateOp(type)) return true;
    bool ok;
    switch (type) {
      case kOpDelete:
      case kOpCheck:
        ok = r.Buffer() && r.I32();  // path, version
        break;
      case kOpSetData:
        ok = r.Buffer() && r.Buffer() && r.I32();  // path, data, version
        break;
      default:
        return false;  // unknown op: cannot skip it
    }
    if (!ok) return false;
  }
  return false;
}

void SetNoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void CloseAbruptly(int fd) {
  if (fd < 0) return;
  linger l{1, 0};  // RST instead of FIN
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  close(fd);
}

struct Chunk {
  Clock::time_point due;
  std::string data;
  size_t off = 0;
};

// One direction of a proxied connection.
struct Flow {
  std::string in;            // read, not yet a complete frame
  std::deque<Chunk> out;     // to be written to the destination
  size_t out_bytes = 0;
  bool first_frame = true;   // next frame is ConnectRequest/ConnectResponse
  bool raw = false;          // not ZooKeeper framing: pass bytes through
  bool eof = false;          // the source closed

  bool HasDue(Clock::time_point now) const { return !out.empty() && out.front().due <= now; }
};

struct Conn {
  int cfd = -1;  // client side
  int sfd = -1;  // server side
  bool connecting = false;        // sfd connect() in progress
  bool awaiting_upstream = false; // accepted while blackholed: not connected yet
  size_t upstream_start = 0;
  size_t upstream_tries = 0;
  Flow c2s, s2c;
  bool cut_wait = false;  // create forwarded; waiting for its reply to swallow
  int32_t cut_xid = 0;
  bool blackhole_after_cut = false;  // the cut request was a delete
  Clock::time_point cut_deadline{};
  bool lost_bytes = false;  // SetDropping threw bytes of it away: raw from then on
  bool dead = false;
};

struct Upstream {
  sockaddr_in addr{};
  std::string text;
};

std::vector<Upstream> ParseUpstreams(const std::string& spec) {
  std::vector<Upstream> out;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    // Strip spaces and a chroot suffix ("host:port/chroot" only on the last).
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (auto slash = item.find('/'); slash != std::string::npos) item.resize(slash);
    if (item.empty()) continue;
    auto colon = item.rfind(':');
    if (colon == std::string::npos) throw std::runtime_error("FaultProxy: bad upstream '" + item + "'");
    std::string host = item.substr(0, colon);
    int port = std::atoi(item.substr(colon + 1).c_str());
    if (host == "localhost") host = "127.0.0.1";
    Upstream u;
    u.addr.sin_family = AF_INET;
    u.addr.sin_port = htons(static_cast<uint16_t>(port));
    if (port <= 0 || port > 65535 || inet_pton(AF_INET, host.c_str(), &u.addr.sin_addr) != 1 ||
        (ntohl(u.addr.sin_addr.s_addr) >> 24) != 127) {
      throw std::runtime_error("FaultProxy: upstream must be 127.x.x.x:PORT, got '" + item + "'");
    }
    u.text = host + ":" + std::to_string(port);
    out.push_back(u);
  }
  if (out.empty()) throw std::runtime_error("FaultProxy: no upstream in '" + spec + "'");
  return out;
}

}  // namespace

struct FaultProxy::Impl {
  // ---- shared with control threads (guarded by mu) ----
  mutable std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  bool running = false;
  bool blackhole = false;
  bool dropping = false;
  int delay_ms = 0;
  uint64_t drop_requests = 0;
  uint64_t req_gen = 0;
  uint64_t applied_gen = 0;
  std::atomic<bool> cut_armed{false};
  std::atomic<bool> cut_delete_armed{false};  // CutAfterNextDeleteThenBlackhole

  struct Counters {
    std::atomic<uint64_t> accepted{0}, active{0}, upstream_failures{0}, dropped{0}, cut{0},
        blackhole_closed{0}, requests{0}, creates{0}, bytes_to_server{0}, bytes_to_client{0},
        discarded{0};
  } counters;

  // ---- proxy thread only ----
  int listen_fd = -1;
  int wake_fd = -1;
  int port = 0;
  std::vector<Upstream> upstreams;
  size_t round_robin = 0;
  std::vector<std::unique_ptr<Conn>> conns;
  uint64_t drops_done = 0;
  bool bh = false;  // snapshot of `blackhole` for this iteration
  bool dr = false;  // snapshot of `dropping` (and not `blackhole`)
  int delay = 0;    // snapshot of `delay_ms`
  std::thread thread;

  ~Impl() { Shutdown(); }

  void Wake() {
    if (wake_fd < 0) return;
    uint64_t one = 1;
    ssize_t r = write(wake_fd, &one, sizeof one);
    (void)r;
  }

  // Called with `lock` held after changing the configuration: wakes the proxy
  // thread and waits (bounded) until it has applied the change.
  void Sync(std::unique_lock<std::mutex>& lock) {
    uint64_t my = ++req_gen;
    Wake();
    if (!running) return;
    cv.wait_for(lock, kSyncTimeout, [&] { return applied_gen >= my || !running; });
  }

  void Shutdown() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    Wake();
    if (thread.joinable()) thread.join();
    for (auto& c : conns) Close(*c, false);
    conns.clear();
    if (listen_fd >= 0) close(listen_fd);
    if (wake_fd >= 0) close(wake_fd);
    listen_fd = wake_fd = -1;
  }

  // ---------------------------------------------------------------------

  void Close(Conn& c, bool abrupt) {
    if (c.dead) return;
    if (abrupt) {
      CloseAbruptly(c.cfd);
    } else if (c.cfd >= 0) {
      close(c.cfd);
    }
    if (c.sfd >= 0) close(c.sfd);
    c.cfd = c.sfd = -1;
    c.dead = true;
    counters.active--;
  }

  // Connects c.sfd to the next upstream that does not refuse at once.
  void ConnectUpstream(Conn& c) {
    c.awaiting_upstream = false;
    while (c.upstream_tries < upstreams.size()) {
      const Upstream& u = upstreams[(c.upstream_start + c.upstream_tries) % upstreams.size()];
      c.upstream_tries++;
      int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0) break;
      SetNoDelay(fd);
      int r = ::connect(fd, reinterpret_cast<const sockaddr*>(&u.addr), sizeof u.addr);
      if (r == 0 || errno == EINPROGRESS) {
        c.sfd = fd;
        c.connecting = r != 0;
        return;
      }
      close(fd);
    }
    counters.upstream_failures++;
    Close(c, false);
  }

  void FinishConnect(Conn& c) {
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c.sfd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err == 0) {
      c.connecting = false;
      return;
    }
    close(c.sfd);
    c.sfd = -1;
    c.connecting = false;
    ConnectUpstream(c);  // try the next one
  }

  void Accept() {
    for (;;) {
      int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN or error
      SetNoDelay(fd);
      auto c = std::make_unique<Conn>();
      c->cfd = fd;
      c->upstream_start = round_robin++;
      counters.accepted++;
      counters.active++;
      if (bh) {
        c->awaiting_upstream = true;
      } else {
        ConnectUpstream(*c);
      }
      conns.push_back(std::move(c));
    }
  }

  void Emit(Flow& f, std::string data, bool to_server) {
    (to_server ? counters.bytes_to_server : counters.bytes_to_client) += data.size();
    f.out_bytes += data.size();
    f.out.push_back(Chunk{Clock::now() + std::chrono::milliseconds(delay), std::move(data), 0});
  }

  void OnClientFrame(Conn& c, std::string frame, bool first) {
    if (c.cut_wait) return;  // after the cut create nothing more reaches the server
    bool cut_now = false;
    if (!first && frame.size() >= 12) {
      int32_t xid = static_cast<int32_t>(Be32(frame.data() + 4));
      int32_t type = static_cast<int32_t>(Be32(frame.data() + 8));
      counters.requests++;
      bool create = IsCreateOp(type) ||
                    (type == kOpMulti && MultiHasCreate(frame.data() + 12, frame.size() - 12));
      bool expected = true;
      if (create) {
        counters.creates++;
        cut_now = cut_armed.compare_exchange_strong(expected, false);
      } else if (type == kOpDelete) {
        cut_now = c.blackhole_after_cut = cut_delete_armed.compare_exchange_strong(expected, false);
      }
      if (cut_now) c.cut_xid = xid;
    }
    Emit(c.c2s, std::move(frame), true);
    if (cut_now) {
      c.cut_wait = true;
      c.cut_deadline = Clock::now() + std::chrono::milliseconds(delay) + kCutReplyTimeout;
    }
  }

  // Returns false if the connection was closed.
  bool OnServerFrame(Conn& c, std::string frame, bool first) {
    if (c.cut_wait && !first && frame.size() >= 8 &&
        static_cast<int32_t>(Be32(frame.data() + 4)) == c.cut_xid) {
      counters.cut++;
      if (c.blackhole_after_cut) {
        // Before the client can reconnect: it must not retry yet.
        std::lock_guard<std::mutex> lock(mu);
        blackhole = bh = true;
      }
      Close(c, true);  // reply swallowed: the client sees a connection loss
      return false;
    }
    Emit(c.s2c, std::move(frame), false);
    return true;
  }

  // Splits f.in into frames and hands them on.  Returns false if closed.
  bool Frame(Conn& c, bool c2s) {
    Flow& f = c2s ? c.c2s : c.s2c;
    size_t off = 0;
    bool alive = true;
    while (alive && off < f.in.size()) {
      if (f.raw) {
        Emit(c2s ? c.c2s : c.s2c, f.in.substr(off), c2s);
        off = f.in.size();
        break;
      }
      if (f.in.size() - off < 4) break;
      uint32_t len = Be32(f.in.data() + off);
      if (len > kMaxFrame) {
        f.raw = true;
        continue;
      }
      if (f.in.size() - off < 4 + size_t{len}) break;
      std::string frame = f.in.substr(off, 4 + size_t{len});
      off += 4 + size_t{len};
      bool first = f.first_frame;
      f.first_frame = false;
      if (c2s) {
        OnClientFrame(c, std::move(frame), first);
      } else {
        alive = OnServerFrame(c, std::move(frame), first);
      }
    }
    if (!alive) return false;
    f.in.erase(0, off);
    return true;
  }

  // Reads what is available from one side.
  void ReadSide(Conn& c, bool from_client) {
    int fd = from_client ? c.cfd : c.sfd;
    Flow& f = from_client ? c.c2s : c.s2c;
    char buf[65536];
    for (int i = 0; i < 16 && !c.dead && f.out_bytes < kMaxBuffered; ++i) {
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n > 0) {
        f.in.append(buf, static_cast<size_t>(n));
        if (!Frame(c, from_client)) return;
        continue;
      }
      if (n == 0) {
        f.eof = true;
        // Pass on a trailing partial frame (or a short raw answer) as is.
        if (!f.in.empty() && !(from_client && c.cut_wait)) {
          Emit(f, std::move(f.in), from_client);
          f.in.clear();
        }
        return;
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // Reset by the peer: pass it on.
      if (c.cut_wait && !from_client) counters.cut++;
      Close(c, from_client ? false : true);
      return;
    }
  }

  // Writes the due chunks of f to fd.  Returns false on a write error.
  bool Flush(Flow& f, int fd, Clock::time_point now) {
    while (f.HasDue(now)) {
      Chunk& ch = f.out.front();
      ssize_t n = send(fd, ch.data.data() + ch.off, ch.data.size() - ch.off, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;
      }
      ch.off += static_cast<size_t>(n);
      f.out_bytes -= static_cast<size_t>(n);
      if (ch.off == ch.data.size()) f.out.pop_front();
    }
    return true;
  }

  // ---- SetDropping ----

  // Counts `n` bytes of c as thrown away; its streams are corrupt from now
  // on, so both directions go raw (a partial frame is thrown away too).
  void Discarded(Conn& c, size_t n) {
    if (n == 0) return;
    counters.discarded += n;
    if (!c.lost_bytes) {
      c.lost_bytes = true;
      for (Flow* f : {&c.c2s, &c.s2c}) {
        f->raw = true;
        counters.discarded += f->in.size();
        f->in.clear();
      }
    }
  }

  // Throws away what is queued for sending (and partial frames).
  void DiscardQueued(Conn& c) {
    for (Flow* f : {&c.c2s, &c.s2c}) {
      size_t n = f->out_bytes + f->in.size();
      f->out.clear();
      f->out_bytes = 0;
      f->in.clear();
      Discarded(c, n);
    }
  }

  // Reads what is available from one side and throws it away.  A close or a
  // reset is noted (eof) but not passed on: that waits for the drop to end.
  void DiscardRead(Conn& c, bool from_client) {
    int fd = from_client ? c.cfd : c.sfd;
    Flow& f = from_client ? c.c2s : c.s2c;
    char buf[65536];
    for (int i = 0; i < 16; ++i) {
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n > 0) {
        Discarded(c, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      f.eof = true;
      return;
    }
  }

  void DropAllNow() {
    for (auto& c : conns) {
      if (c->dead) continue;
      counters.dropped++;
      Close(*c, true);
    }
  }

  void Run() {
    std::vector<pollfd> pfds;
    std::vector<std::pair<Conn*, bool>> who;  // (conn, is_client) per pollfd after the first two
    for (;;) {
      // Apply the configuration.
      uint64_t gen;
      bool do_drop = false;
      bool was_bh = bh;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (stop) break;
        bh = blackhole;
        dr = dropping && !blackhole;
        delay = delay_ms;
        if (drop_requests != drops_done) {
          drops_done = drop_requests;
          do_drop = true;
        }
        gen = req_gen;
      }
      if (do_drop) DropAllNow();
      if (was_bh && !bh) {
        for (auto& c : conns) {
          if (!c->dead && c->awaiting_upstream) ConnectUpstream(*c);
        }
      }
      auto now = Clock::now();

      // Forward what is due, close what is finished.
      for (auto& cp : conns) {
        Conn& c = *cp;
        if (c.dead || bh) continue;
        if (dr) {
          DiscardQueued(c);
          continue;
        }
        if (c.cut_wait && now >= c.cut_deadline) {
          counters.cut++;
          Close(c, true);
          continue;
        }
        if (c.sfd >= 0 && !c.connecting && !Flush(c.c2s, c.sfd, now)) {
          Close(c, true);
          continue;
        }
        if (!Flush(c.s2c, c.cfd, now)) {
          Close(c, false);
          continue;
        }
        bool client_done = c.c2s.eof && c.c2s.out.empty();
        bool server_done = c.s2c.eof && c.s2c.out.empty();
        if (client_done || server_done || (c.c2s.eof && c.s2c.eof)) {
          if (c.cut_wait) counters.cut++;
          Close(c, c.cut_wait);
        }
      }
      std::erase_if(conns, [](const std::unique_ptr<Conn>& c) { return c->dead; });
      {
        std::lock_guard<std::mutex> lock(mu);
        if (applied_gen < gen) {
          applied_gen = gen;
          cv.notify_all();
        }
      }

      // Wait for events.
      pfds.clear();
      who.clear();
      pfds.push_back({wake_fd, POLLIN, 0});
      pfds.push_back({listen_fd, POLLIN, 0});
      auto next = now + std::chrono::seconds(1);
      for (auto& cp : conns) {
        Conn& c = *cp;
        short cev = 0, sev = 0;
        if (bh) {
          if (!c.c2s.eof) cev = POLLRDHUP;  // only notice a client giving up
        } else if (dr) {
          if (!c.c2s.eof) cev = POLLIN;
          if (c.sfd >= 0 && !c.s2c.eof) sev = c.connecting ? POLLOUT : POLLIN;
        } else {
          if (!c.c2s.eof) {
            if (c.c2s.out_bytes < kMaxBuffered) cev |= POLLIN;
            if (c.s2c.HasDue(now)) cev |= POLLOUT;
          }
          if (c.sfd >= 0 && !c.s2c.eof) {
            if (c.connecting) {
              sev = POLLOUT;
            } else {
              if (c.s2c.out_bytes < kMaxBuffered) sev |= POLLIN;
              if (c.c2s.HasDue(now)) sev |= POLLOUT;
            }
          }
          if (!c.c2s.out.empty()) next = std::min(next, c.c2s.out.front().due);
          if (!c.s2c.out.empty()) next = std::min(next, c.s2c.out.front().due);
          if (c.cut_wait) next = std::min(next, c.cut_deadline);
        }
        if (cev != 0) {
          pfds.push_back({c.cfd, cev, 0});
          who.emplace_back(&c, true);
        }
        if (sev != 0) {
          pfds.push_back({c.sfd, sev, 0});
          who.emplace_back(&c, false);
        }
      }
      auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
      if (wait_ms < 0) wait_ms = 0;
      // Round up so that a chunk due in 0.4 ms is not polled for in a busy loop.
      if (next > now && wait_ms == 0) wait_ms = 1;
      int n = poll(pfds.data(), pfds.size(), static_cast<int>(wait_ms));
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (pfds[0].revents != 0) {
        uint64_t v;
        ssize_t r = read(wake_fd, &v, sizeof v);
        (void)r;
      }
      if (pfds[1].revents & POLLIN) Accept();
      for (size_t i = 2; i < pfds.size(); ++i) {
        short re = pfds[i].revents;
        if (re == 0) continue;
        auto [cp, is_client] = who[i - 2];
        Conn& c = *cp;
        if (c.dead) continue;
        if (bh) {
          if (is_client && (re & (POLLRDHUP | POLLHUP | POLLERR))) {
            counters.blackhole_closed++;
            Close(c, false);
          }
          continue;
        }
        if (dr) {
          if (!is_client && c.connecting) {
            FinishConnect(c);
          } else if (re & (POLLIN | POLLHUP | POLLERR | POLLRDHUP)) {
            DiscardRead(c, is_client);
          }
          continue;
        }
        if (is_client) {
          if (re & (POLLIN | POLLHUP | POLLERR | POLLRDHUP)) ReadSide(c, true);
        } else if (c.connecting) {
          FinishConnect(c);
        } else if (re & (POLLIN | POLLHUP | POLLERR)) {
          ReadSide(c, false);
        }
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    running = false;
    cv.notify_all();
  }
};

FaultProxy::FaultProxy() : impl_(std::make_unique<Impl>()) {}

FaultProxy::~FaultProxy() { Stop(); }

void FaultProxy::Start(const std::string& upstream, int listen_port) {
  Impl& m = *impl_;
  if (m.thread.joinable()) throw std::runtime_error("FaultProxy: already started");
  m.upstreams = ParseUpstreams(upstream);
  m.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (m.listen_fd < 0) throw std::runtime_error(std::string("FaultProxy: socket: ") + strerror(errno));
  int one = 1;
  setsockopt(m.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(listen_port));
  socklen_t len = sizeof addr;
  if (bind(m.listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(m.listen_fd, 128) != 0 ||
      getsockname(m.listen_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::string err = strerror(errno);
    close(m.listen_fd);
    m.listen_fd = -1;
    throw std::runtime_error("FaultProxy: cannot listen on 127.0.0.1:" +
                             std::to_string(listen_port) + ": " + err);
  }
  m.port = ntohs(addr.sin_port);
  m.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (m.wake_fd < 0) {
    close(m.listen_fd);
    m.listen_fd = -1;
    throw std::runtime_error(std::string("FaultProxy: eventfd: ") + strerror(errno));
  }
  {
    std::lock_guard<std::mutex> lock(m.mu);
    m.stop = false;
    m.running = true;
  }
  m.thread = std::thread([&m] { m.Run(); });
}

void FaultProxy::Stop() {
  impl_->Shutdown();
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->running = false;
}

int FaultProxy::port() const { return impl_->port; }

std::string FaultProxy::connect() const { return "127.0.0.1:" + std::to_string(impl_->port); }

void FaultProxy::DropAll() {
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->drop_requests++;
  impl_->Sync(lock);
}

void FaultProxy::SetBlackhole(bool on) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->blackhole = on;
  impl_->Sync(lock);
}

void FaultProxy::SetDropping(bool on) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->dropping = on;
  impl_->Sync(lock);
}

void FaultProxy::SetDelayMs(int ms) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->delay_ms = std::max(0, ms);
  impl_->Sync(lock);
}

void FaultProxy::CutAfterNextCreate() { impl_->cut_armed = true; }

void FaultProxy::CutAfterNextDeleteThenBlackhole() { impl_->cut_delete_armed = true; }

bool FaultProxy::cut_armed() const { return impl_->cut_armed; }

FaultProxy::Stats FaultProxy::stats() const {
  const auto& c = impl_->counters;
  Stats s;
  s.accepted = c.accepted;
  s.active = c.active;
  s.upstream_failures = c.upstream_failures;
  s.dropped = c.dropped;
  s.cut = c.cut;
  s.blackhole_closed = c.blackhole_closed;
  s.requests = c.requests;
  s.creates = c.creates;
  s.bytes_to_server = c.bytes_to_server;
  s.bytes_to_client = c.bytes_to_client;
  s.discarded = c.discarded;
  return s;
}

}  // namespace zkl_test
