// Connection failures, server by server (src/connect_failures.h): what is
// kept, what is logged, and when waiting can stop. No server needed.
#include "connect_failures.h"

#include <gtest/gtest.h>

#include "json.h"
#include "zkl.h"

namespace zkl {
namespace {

const absl::Time t0 = absl::UnixEpoch() + absl::Hours(1);

ConnectFailure Tls(const char *server, int error, const char *reason) {
  return {server, ZKL_LAYER_TLS, error, reason};
}

TEST(ConnectFailures, KeepsTheLastFailureOfEachServerNewestFirst) {
  ConnectFailures f;
  EXPECT_EQ(f.Newest(), 0);
  EXPECT_EQ(f.Describe(), "");
  f.Record({"10.0.0.1:2181", ZKL_LAYER_TCP, ZKL_ECONNECTION, "connection refused"}, t0);
  f.Record(Tls("10.0.0.2:2281", ZKL_ECERT, "certificate has expired"), t0);
  EXPECT_EQ(f.Newest(), ZKL_ECERT);
  EXPECT_EQ(f.Describe(),
            "10.0.0.2:2281 (tls): certificate has expired; 10.0.0.1:2181 (tcp): connection refused");
  // The first server fails again, differently: its entry is replaced and moves up.
  f.Record({"10.0.0.1:2181", ZKL_LAYER_TCP, ZKL_ETIMEDOUT, "no answer to the TCP connect within 500 ms"},
           t0);
  EXPECT_EQ(f.Newest(), ZKL_ETIMEDOUT);
  EXPECT_EQ(f.Describe(),
            "10.0.0.1:2181 (tcp): no answer to the TCP connect within 500 ms; 10.0.0.2:2281 (tls): "
            "certificate has expired");
  f.Connected("10.0.0.1:2181");
  EXPECT_EQ(f.Describe(), "10.0.0.2:2281 (tls): certificate has expired");
  f.Connected("10.0.0.2:2281");
  EXPECT_EQ(f.Newest(), 0);
}

TEST(ConnectFailures, ARepeatedFailureIsLoggedOncePerWindowWithItsCount) {
  ConnectFailures f;
  auto failure = Tls("10.0.0.2:2281", ZKL_ECERT, "certificate has expired");
  EXPECT_EQ(f.Record(failure, t0), "cannot connect to 10.0.0.2:2281 (tls): certificate has expired");
  EXPECT_EQ(f.Record(failure, t0 + absl::Seconds(1)), "");
  EXPECT_EQ(f.Record(failure, t0 + absl::Seconds(2)), "");
  EXPECT_EQ(f.Record(failure, t0 + ConnectFailures::kLogWindow),
            "cannot connect to 10.0.0.2:2281 (tls): certificate has expired (and 2 times more since it "
            "was last logged)");
  // Another reason is news at once.
  EXPECT_NE(f.Record(Tls("10.0.0.2:2281", ZKL_ECERT, "unable to get local issuer certificate"),
                     t0 + ConnectFailures::kLogWindow + absl::Seconds(1)),
            "");
}

TEST(ConnectFailures, DefiniteOnlyWhenEveryServersNewestAttemptFailedVerification) {
  ConnectFailures f;
  f.Record(Tls("a:1", ZKL_ECERT, "certificate has expired"), t0);
  EXPECT_EQ(f.Definite(2), 0);  // the other server has not failed yet
  f.Record(Tls("b:1", ZKL_EHOSTNAME, "the certificate does not name b"), t0);
  EXPECT_EQ(f.Definite(2), ZKL_EHOSTNAME);
  EXPECT_EQ(f.Definite(3), 0);
  // A timeout may pass: the newest attempt decides.
  f.Record(Tls("a:1", ZKL_ETIMEDOUT, "the TLS handshake stalled: no answer within 500 ms"), t0);
  EXPECT_EQ(f.Definite(2), 0);
  f.Record(Tls("a:1", ZKL_ECLIENTCERT, "the server rejected the client certificate"), t0);
  EXPECT_EQ(f.Definite(2), ZKL_ECLIENTCERT);
  f.Record({"b:1", ZKL_LAYER_TCP, ZKL_ECONNECTION, "connection refused"}, t0);
  EXPECT_EQ(f.Definite(2), 0);
  EXPECT_EQ(f.Definite(0), 0);
}

TEST(ConnectFailures, StatisticsCountEachLayerAndListEachServer) {
  ConnectFailures f;
  f.Record({"a:1", ZKL_LAYER_TCP, ZKL_ECONNECTION, "connection refused"}, t0);
  f.Record({"a:1", ZKL_LAYER_TCP, ZKL_ECONNECTION, "connection refused"}, t0);
  f.Record({"b:1", ZKL_LAYER_SASL, ZKL_EAUTH, "the server refused the credentials"}, t0);
  JsonWriter j;
  j.BeginObject();
  f.WriteStats(j);
  j.EndObject();
  EXPECT_EQ(j.Take(),
            R"({"connect_failures":{"tcp":2,"tls":0,"session":0,"sasl":1},"failing_servers":[)"
            R"({"server":"b:1","layer":"sasl","error":-16,"reason":"the server refused the credentials"},)"
            R"({"server":"a:1","layer":"tcp","error":-12,"reason":"connection refused"}]})");
}

}  // namespace
}  // namespace zkl
