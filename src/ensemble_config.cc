#include "ensemble_config.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "paths.h"
#include "zkl.h"

namespace zkl {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

bool Digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A port 1..65535, or 0.
int Port(std::string_view s) {
  if (!Digits(s) || s.size() > 5) return 0;
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v <= 65535 ? v : 0;
}

bool Lower(std::string_view s, std::string_view want) {
  if (s.size() != want.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != want[i]) return false;
  }
  return true;
}

// "host:rest" with the host possibly a bracketed IPv6 address: the host
// (without brackets) and what follows its ':' ("" and false when malformed).
bool HostAndRest(std::string_view s, std::string_view *host, std::string_view *rest) {
  if (!s.empty() && s.front() == '[') {
    size_t close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':') return false;
    *host = s.substr(1, close - 1);
    *rest = s.substr(close + 2);
    return !host->empty();
  }
  size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  *host = s.substr(0, colon);
  *rest = s.substr(colon + 1);
  return true;
}

bool ParseServer(int64_t id, std::string_view value, EnsembleMember *m, std::string *why) {
  m->id = id;
  std::vector<std::string_view> halves = Split(value, ';');
  if (halves.size() > 2) {
    *why = "more than one ';'";
    return false;
  }
  // Quorum addresses "host:port:port", "|" between several; the role after
  // the last one.
  std::vector<std::string_view> addresses = Split(Trim(halves[0]), '|');
  for (size_t i = 0; i < addresses.size(); ++i) {
    std::string_view host, rest;
    if (!HostAndRest(Trim(addresses[i]), &host, &rest)) {
      *why = "no quorum address";
      return false;
    }
    std::vector<std::string_view> ports = Split(rest, ':');
    bool last = i + 1 == addresses.size();
    if (ports.size() < 2 || ports.size() > (last ? 3u : 2u) || Port(ports[0]) == 0 || Port(ports[1]) == 0) {
      *why = "a quorum address is not host:port:port";
      return false;
    }
    if (i == 0) m->quorum_host = std::string(host);
    if (ports.size() == 3) {
      if (Lower(ports[2], "observer")) {
        m->observer = true;
      } else if (!Lower(ports[2], "participant")) {
        *why = "unknown role \"" + std::string(ports[2]) + "\"";
        return false;
      }
    }
  }
  if (halves.size() == 1) return true;  // no client address
  std::string_view client = Trim(halves[1]);
  std::string_view host, port = client;
  if (client.find(':') != std::string_view::npos) {
    if (!client.empty() && client.front() == '[') {
      if (!HostAndRest(client, &host, &port)) {
        *why = "a malformed client address";
        return false;
      }
    } else {
      size_t colon = client.rfind(':');
      host = client.substr(0, colon);
      port = client.substr(colon + 1);
    }
  }
  m->client_port = Port(port);
  if (m->client_port == 0) {
    *why = "the client port is not 1..65535";
    return false;
  }
  m->client_host = std::string(host);
  return true;
}

bool Wildcard(std::string_view host) {
  return host.empty() || host == "0.0.0.0" || host == "::" || host == "0:0:0:0:0:0:0:0";
}

}  // namespace

bool ParseEnsembleConfig(std::string_view data, EnsembleConfig *out, std::string *why) {
  EnsembleConfig config;
  std::set<int64_t> ids;
  int number = 0;
  // Messages name lines and servers, never echo the data (a log line).
  for (std::string_view line : Split(data, '\n')) {
    ++number;
    line = Trim(line);
    if (line.empty() || line.front() == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      *why = "line " + std::to_string(number) + " is no key=value";
      return false;
    }
    std::string_view key = Trim(line.substr(0, eq)), value = Trim(line.substr(eq + 1));
    if (key == "version") {
      if (value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X')) value.remove_prefix(2);
      if (value.empty() || value.size() > 16 ||
          !std::all_of(value.begin(), value.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) {
        *why = "version is not a hexadecimal number";
        return false;
      }
      config.version = std::stoull(std::string(value), nullptr, 16);
    } else if (key.substr(0, 7) == "server.") {
      std::string_view digits = key.substr(7);
      if (!Digits(digits) || digits.size() > 18) {
        *why = "line " + std::to_string(number) + ": a key server.<id> without a number id";
        return false;
      }
      int64_t id = std::stoll(std::string(digits));
      EnsembleMember m;
      std::string bad;
      if (!ParseServer(id, value, &m, &bad)) {
        *why = "server." + std::to_string(id) + ": " + bad;
        return false;
      }
      if (!ids.insert(id).second) {
        *why = "server." + std::to_string(id) + " is given twice";
        return false;
      }
      config.members.push_back(std::move(m));
    }
  }
  if (config.members.empty()) {
    *why = "no server.<id> line";
    return false;
  }
  std::sort(config.members.begin(), config.members.end(),
            [](const EnsembleMember &a, const EnsembleMember &b) { return a.id < b.id; });
  *out = std::move(config);
  return true;
}

std::string ClientServers(const EnsembleConfig &config, std::string *why) {
  std::string list;
  std::set<std::string> seen;
  size_t count = 0;
  for (const EnsembleMember &m : config.members) {
    if (m.client_port == 0) {
      *why = "server." + std::to_string(m.id) +
             " has no client address (a static, 3.4-style configuration: its servers publish "
             "\"server.N=host:port:port\" without \";[address:]clientPort\")";
      return "";
    }
    std::string host = Wildcard(m.client_host) ? m.quorum_host : m.client_host;
    if (host.find(':') != std::string::npos) host = "[" + host + "]";  // IPv6
    std::string server = host + ":" + std::to_string(m.client_port);
    if (ValidateServers(server) != ZKL_OK) {
      *why = "the client address of server." + std::to_string(m.id) +
             " is no host name or address zkl accepts (letters, digits, '.', '-', '_'; IPv6 in brackets)";
      return "";
    }
    if (!seen.insert(server).second) continue;
    ++count;
    if (!list.empty()) list += ",";
    list += server;
  }
  if (ValidateServers(list) != ZKL_OK) {
    *why = std::to_string(count) + " servers: more than a server list takes (64)";
    return "";
  }
  return list;
}

bool SameServers(std::string_view a, std::string_view b) {
  auto set_of = [](std::string_view s) {
    std::set<std::string_view> out;
    for (std::string_view server : Split(s, ',')) out.insert(Trim(server));
    return out;
  };
  return set_of(a) == set_of(b);
}

}  // namespace zkl
