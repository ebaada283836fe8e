#include "connect_failures.h"

#include <algorithm>

#include "json.h"
#include "zkl.h"

namespace zkl {

bool ConnectFailures::IsDefinite(int error) {
  // The server's certificate or name, or the client's certificate, was
  // refused: the next attempt meets the same files. EAUTH: the server
  // refused the credentials. Timeouts, resets and refused connects pass.
  return error == ZKL_ECERT || error == ZKL_EHOSTNAME || error == ZKL_ECLIENTCERT ||
         error == ZKL_EAUTH;
}

const char *ConnectFailures::LayerName(int layer) {
  switch (layer) {
    case ZKL_LAYER_TCP: return "tcp";
    case ZKL_LAYER_TLS: return "tls";
    case ZKL_LAYER_SESSION: return "session";
    case ZKL_LAYER_SASL: return "sasl";
    default: return "?";
  }
}

std::string ConnectFailures::Record(ConnectFailure f, absl::Time now) {
  if (f.layer >= 1 && f.layer <= 4) ++by_layer_[f.layer];
  Entry entry;
  auto same = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry &e) { return e.failure.server == f.server; });
  if (same != entries_.end()) {
    if (same->failure.layer == f.layer && same->failure.reason == f.reason) {
      entry.logged_at = same->logged_at;
      entry.unlogged = same->unlogged;
    }
    entries_.erase(same);
  }
  entry.failure = std::move(f);
  std::string line;
  if (now - entry.logged_at >= kLogWindow) {
    const ConnectFailure &c = entry.failure;
    line = "cannot connect to " + c.server + " (" + LayerName(c.layer) + "): " + c.reason;
    if (entry.unlogged > 0) {
      line += " (and " + std::to_string(entry.unlogged) + " times more since it was last logged)";
    }
    entry.logged_at = now;
    entry.unlogged = 0;
  } else {
    ++entry.unlogged;
  }
  entries_.push_back(std::move(entry));
  return line;
}

void ConnectFailures::Connected(std::string_view server) {
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [&](const Entry &e) { return e.failure.server == server; }),
                 entries_.end());
}

int ConnectFailures::Newest() const { return entries_.empty() ? 0 : entries_.back().failure.error; }

std::string ConnectFailures::Describe() const {
  std::string out;
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    const ConnectFailure &c = it->failure;
    if (!out.empty()) out += "; ";
    out += c.server + " (" + LayerName(c.layer) + "): " + c.reason;
  }
  return out;
}

int ConnectFailures::Definite(int server_count) const {
  if (server_count <= 0 || entries_.size() < static_cast<size_t>(server_count)) return 0;
  for (const Entry &e : entries_) {
    if (!IsDefinite(e.failure.error)) return 0;
  }
  return Newest();
}

void ConnectFailures::WriteStats(JsonWriter &j) const {
  j.Key("connect_failures").BeginObject();
  for (int layer = ZKL_LAYER_TCP; layer <= ZKL_LAYER_SASL; ++layer) {
    j.Field(LayerName(layer), by_layer_[layer]);
  }
  j.EndObject();
  j.Key("failing_servers").BeginArray();
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    const ConnectFailure &c = it->failure;
    j.BeginObject();
    j.Field("server", c.server);
    j.Field("layer", LayerName(c.layer));
    j.Field("error", c.error);
    j.Field("reason", c.reason);
    j.EndObject();
  }
  j.EndArray();
}

}  // namespace zkl
