#include "wire_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace bench {

namespace {

int32_t BigEndian32(const unsigned char *p) {
  return static_cast<int32_t>((uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
                              (uint32_t{p[2]} << 8) | uint32_t{p[3]});
}

// One direction of one connection: accumulates bytes, yields whole frames.
struct Framer {
  std::vector<unsigned char> buf;
  bool first = true;  // the connect request / reply has no header

  // Calls fn(xid) for every complete frame after the first (xid of the
  // record header), removes them from the buffer.
  template <typename Fn>
  void Feed(const unsigned char *data, size_t n, Fn fn) {
    buf.insert(buf.end(), data, data + n);
    size_t off = 0;
    while (buf.size() - off >= 4) {
      int32_t len = BigEndian32(&buf[off]);
      if (len < 0 || buf.size() - off - 4 < static_cast<size_t>(len)) break;
      if (first) {
        first = false;
      } else if (len >= 4) {
        fn(BigEndian32(&buf[off + 4]));
      }
      off += 4 + static_cast<size_t>(len);
    }
    buf.erase(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(off));
  }
};

struct Pair {
  int client = -1, server = -1;
  Framer up, down;
  int64_t outstanding = 0;
};

bool WriteAll(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd pf{fd, POLLOUT, 0};
        poll(&pf, 1, 100);
        continue;
      }
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

constexpr int32_t kPingXid = -2;
constexpr int32_t kWatchXid = -1;

}  // namespace

WireProxy::WireProxy(const Server &server) {
  std::string c = server.connect();
  size_t colon = c.rfind(':');
  target_host_ = c.substr(0, colon);
  if (target_host_ == "localhost") target_host_ = "127.0.0.1";
  target_port_ = std::atoi(c.c_str() + colon + 1);
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = 0;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 ||
      listen(listen_fd_, 16) != 0) {
    Die("proxy: cannot listen on loopback");
  }
  socklen_t len = sizeof sa;
  getsockname(listen_fd_, reinterpret_cast<sockaddr *>(&sa), &len);
  port_ = ntohs(sa.sin_port);
  if (pipe2(stop_pipe_, O_CLOEXEC) != 0) Die("proxy: pipe");
  thread_ = std::thread([this] { Run(); });
}

WireProxy::~WireProxy() {
  if (write(stop_pipe_[1], "x", 1) < 0) {
  }
  thread_.join();
  close(stop_pipe_[0]);
  close(stop_pipe_[1]);
  close(listen_fd_);
}

std::string WireProxy::connect() const { return "127.0.0.1:" + std::to_string(port_); }

WireCounts WireProxy::Counts() const {
  WireCounts w;
  w.requests = requests_.load();
  w.replies = replies_.load();
  w.notifications = notifications_.load();
  w.round_trips = round_trips_.load();
  return w;
}

void WireProxy::Run() {
  std::vector<Pair> pairs;
  std::vector<unsigned char> buf(1 << 16);
  for (;;) {
    std::vector<pollfd> fds;
    fds.push_back({stop_pipe_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (auto &p : pairs) {
      fds.push_back({p.client, POLLIN, 0});
      fds.push_back({p.server, POLLIN, 0});
    }
    if (poll(fds.data(), fds.size(), 1000) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents) break;
    if (fds[1].revents & POLLIN) {
      int cfd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (cfd >= 0) {
        int sfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(static_cast<uint16_t>(target_port_));
        inet_pton(AF_INET, target_host_.c_str(), &sa.sin_addr);
        if (sfd >= 0 && ::connect(sfd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0) {
          int one = 1;
          setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          setsockopt(sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          Pair p;
          p.client = cfd;
          p.server = sfd;
          pairs.push_back(std::move(p));
        } else {
          close(cfd);
          if (sfd >= 0) close(sfd);
        }
      }
      continue;  // the pair list changed: rebuild the poll set
    }
    std::vector<size_t> dead;
    for (size_t i = 0; i < pairs.size(); ++i) {
      Pair &p = pairs[i];
      const pollfd &cf = fds[2 + 2 * i];
      const pollfd &sf = fds[3 + 2 * i];
      bool closed = false;
      if (cf.revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t n = recv(p.client, buf.data(), buf.size(), 0);
        if (n <= 0) {
          closed = true;
        } else {
          p.up.Feed(buf.data(), static_cast<size_t>(n), [&](int32_t xid) {
            if (xid == kPingXid) return;
            requests_.fetch_add(1);
            if (p.outstanding++ == 0) round_trips_.fetch_add(1);
          });
          if (!WriteAll(p.server, buf.data(), static_cast<size_t>(n))) closed = true;
        }
      }
      if (!closed && (sf.revents & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t n = recv(p.server, buf.data(), buf.size(), 0);
        if (n <= 0) {
          closed = true;
        } else {
          p.down.Feed(buf.data(), static_cast<size_t>(n), [&](int32_t xid) {
            if (xid == kPingXid) return;
            if (xid == kWatchXid) {
              notifications_.fetch_add(1);
              return;
            }
            replies_.fetch_add(1);
            if (p.outstanding > 0) --p.outstanding;
          });
          if (!WriteAll(p.client, buf.data(), static_cast<size_t>(n))) closed = true;
        }
      }
      if (closed) dead.push_back(i);
    }
    for (size_t k = dead.size(); k-- > 0;) {
      Pair &p = pairs[dead[k]];
      close(p.client);
      close(p.server);
      pairs.erase(pairs.begin() + static_cast<std::ptrdiff_t>(dead[k]));
    }
  }
  for (auto &p : pairs) {
    close(p.client);
    close(p.server);
  }
}

}  // namespace bench
