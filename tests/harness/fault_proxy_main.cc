// fault-proxy: command-line wrapper around zkl_test::FaultProxy for the
// non-C++ test suites.
//
//   fault-proxy LISTEN_PORT_FILE UPSTREAM_HOST:PORT[,HOST:PORT...]
//
// Listens on 127.0.0.1 on a free port, writes the port number (and a newline)
// to LISTEN_PORT_FILE (atomically, via rename; "-" for none) and prints
// "ready 127.0.0.1:PORT" on stdout.  Then reads one command per line on stdin
// and answers each with one line, "ok ..." or "error ...":
//
//   drop                 close all client connections abruptly
//   blackhole on|off     stop/resume forwarding (connections stay open)
//   delay MS             add MS milliseconds of latency each way
//   cut-after-create     swallow the reply to the next create and cut the
//                        connection (the create succeeds on the server)
//   stats                "ok accepted=N active=N dropped=N cut=N ..."
//   quit                 exit
//
// Exits when stdin is closed (so it dies with the test that started it).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>

#include "fault_proxy.h"

namespace {

std::string StatsLine(const zkl_test::FaultProxy::Stats& s) {
  std::ostringstream os;
  os << "accepted=" << s.accepted << " active=" << s.active
     << " upstream_failures=" << s.upstream_failures << " dropped=" << s.dropped
     << " cut=" << s.cut << " blackhole_closed=" << s.blackhole_closed
     << " requests=" << s.requests << " creates=" << s.creates
     << " bytes_to_server=" << s.bytes_to_server << " bytes_to_client=" << s.bytes_to_client;
  return os.str();
}

bool WritePortFile(const std::string& path, int port) {
  if (path == "-") return true;
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return false;
  bool ok = std::fprintf(f, "%d\n", port) > 0;
  ok = std::fclose(f) == 0 && ok;
  return ok && std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " LISTEN_PORT_FILE UPSTREAM_HOST:PORT[,HOST:PORT...]\n"
              << "commands on stdin: drop | blackhole on|off | delay MS | cut-after-create |"
                 " stats | quit\n";
    return 2;
  }
  zkl_test::FaultProxy proxy;
  try {
    proxy.Start(argv[2]);
  } catch (const std::exception& e) {
    std::cerr << "fault-proxy: " << e.what() << "\n";
    return 1;
  }
  if (!WritePortFile(argv[1], proxy.port())) {
    std::cerr << "fault-proxy: cannot write " << argv[1] << "\n";
    return 1;
  }
  std::cout << "ready " << proxy.connect() << std::endl;

  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string cmd, arg;
    in >> cmd >> arg;
    if (cmd.empty()) continue;
    if (cmd == "drop") {
      proxy.DropAll();
      std::cout << "ok" << std::endl;
    } else if (cmd == "blackhole" && (arg == "on" || arg == "off")) {
      proxy.SetBlackhole(arg == "on");
      std::cout << "ok" << std::endl;
    } else if (cmd == "delay" && !arg.empty() &&
               arg.find_first_not_of("0123456789") == std::string::npos) {
      proxy.SetDelayMs(std::atoi(arg.c_str()));
      std::cout << "ok" << std::endl;
    } else if (cmd == "cut-after-create") {
      proxy.CutAfterNextCreate();
      std::cout << "ok" << std::endl;
    } else if (cmd == "stats") {
      std::cout << "ok " << StatsLine(proxy.stats()) << std::endl;
    } else if (cmd == "quit" || cmd == "exit") {
      std::cout << "ok" << std::endl;
      break;
    } else {
      std::cout << "error unknown command: " << line << std::endl;
    }
  }
  proxy.Stop();
  return 0;
}
