// The ensemble's configuration (/zookeeper/config) and the client server
// list it gives (src/ensemble_config.h): no server. The inputs are what
// ZooKeeper 3.5-3.9 servers publish (QuorumServer.toString, QuorumMaj).
#include "ensemble_config.h"

#include <gtest/gtest.h>

#include <string>

namespace zkl {
namespace {

EnsembleConfig Parse(const std::string &data) {
  EnsembleConfig c;
  std::string why;
  EXPECT_TRUE(ParseEnsembleConfig(data, &c, &why)) << why << "\n" << data;
  return c;
}

std::string Why(const std::string &data) {
  EnsembleConfig c;
  std::string why;
  EXPECT_FALSE(ParseEnsembleConfig(data, &c, &why)) << data;
  EXPECT_FALSE(why.empty());
  return why;
}

std::string List(const std::string &data, std::string *why = nullptr) {
  std::string w;
  std::string list = ClientServers(Parse(data), &w);
  if (why) *why = w;
  return list;
}

TEST(EnsembleConfig, ADynamicConfigurationAsTheServerWritesIt) {
  EnsembleConfig c = Parse(
      "server.1=10.77.0.11:2888:3888:participant;10.77.0.11:2181\n"
      "server.2=10.77.0.12:2888:3888:participant;10.77.0.12:2181\n"
      "server.3=10.77.0.13:2888:3888:participant;10.77.0.13:2181\n"
      "version=100000003");
  EXPECT_EQ(c.version, 0x100000003u);
  ASSERT_EQ(c.members.size(), 3u);
  EXPECT_EQ(c.members[1].id, 2);
  EXPECT_EQ(c.members[1].quorum_host, "10.77.0.12");
  EXPECT_FALSE(c.members[1].observer);
  EXPECT_EQ(c.members[1].client_host, "10.77.0.12");
  EXPECT_EQ(c.members[1].client_port, 2181);
  std::string why;
  EXPECT_EQ(ClientServers(c, &why), "10.77.0.11:2181,10.77.0.12:2181,10.77.0.13:2181") << why;
}

TEST(EnsembleConfig, ObserversAreFollowedToo) {
  EnsembleConfig c = Parse(
      "server.1=a:2888:3888:participant;a:2181\n"
      "server.2=b:2888:3888:observer;b:2182\n"
      "version=2");
  ASSERT_EQ(c.members.size(), 2u);
  EXPECT_TRUE(c.members[1].observer);
  std::string why;
  EXPECT_EQ(ClientServers(c, &why), "a:2181,b:2182");
}

TEST(EnsembleConfig, MembersComeInTheOrderOfTheirIds) {
  EXPECT_EQ(List("server.10=c:1:2;c:2181\nserver.2=b:1:2;b:2181\nserver.1=a:1:2;a:2181\n"),
            "a:2181,b:2181,c:2181");
}

TEST(EnsembleConfig, TheWildcardClientAddressIsReachedAtTheQuorumHost) {
  // A port alone and 0.0.0.0 both mean every address of the server.
  EXPECT_EQ(List("server.1=zk1.example.com:2888:3888:participant;2181\n"
                 "server.2=zk2.example.com:2888:3888:participant;0.0.0.0:2181\n"
                 "server.3=[fd00::3]:2888:3888:participant;[::]:2181\n"),
            "zk1.example.com:2181,zk2.example.com:2181,[fd00::3]:2181");
}

TEST(EnsembleConfig, IPv6AddressesKeepTheirBrackets) {
  EnsembleConfig c = Parse("server.1=[fd00::1]:2888:3888:participant;[fd00::1]:2181\n");
  EXPECT_EQ(c.members[0].quorum_host, "fd00::1");
  EXPECT_EQ(c.members[0].client_host, "fd00::1");
  std::string why;
  EXPECT_EQ(ClientServers(c, &why), "[fd00::1]:2181");
}

TEST(EnsembleConfig, SeveralQuorumAddresses) {
  // ZooKeeper 3.6+: "|" between the addresses of one server; the role after the last.
  EnsembleConfig c = Parse("server.1=10.0.0.1:2888:3888|10.1.0.1:2888:3888:observer;10.0.0.1:2181\n");
  EXPECT_EQ(c.members[0].quorum_host, "10.0.0.1");
  EXPECT_TRUE(c.members[0].observer);
  EXPECT_EQ(List("server.1=h1:2888:3888|h2:2888:3888;2181\n"), "h1:2181");
}

TEST(EnsembleConfig, TheRoleIsOptionalAndItsCaseDoesNotMatter) {
  EnsembleConfig c = Parse("server.1=a:1:2;a:3\nserver.2=b:1:2:OBSERVER;b:3\nserver.3=c:1:2:Participant;c:3\n");
  EXPECT_FALSE(c.members[0].observer);
  EXPECT_TRUE(c.members[1].observer);
  EXPECT_FALSE(c.members[2].observer);
}

TEST(EnsembleConfig, OtherKeysCommentsBlankLinesAndSpacesAreSkipped) {
  EnsembleConfig c = Parse(
      "# a comment\n\n"
      "  server.1 = a:2888:3888:participant ; a:2181 \r\n"
      "group.1=1\nweight.1=1\n"
      "version=0x1f\n");
  EXPECT_EQ(c.version, 0x1fu);
  ASSERT_EQ(c.members.size(), 1u);
  EXPECT_EQ(c.members[0].client_host, "a");
  EXPECT_EQ(c.members[0].client_port, 2181);
}

TEST(EnsembleConfig, WithoutAVersionLineTheVersionIsZero) {
  EXPECT_EQ(Parse("server.1=a:1:2;a:3\n").version, 0u);
}

TEST(EnsembleConfig, AStaticConfigurationIsNotFollowed) {
  // 3.4-style lines (client port in clientPort): no client addresses, or
  // only the server's own (the server adds it from its static file, but
  // does not publish it).
  std::string why;
  EXPECT_EQ(List("server.1=127.0.0.1:2888:3888:participant\n"
                 "server.2=127.0.0.1:2889:3889:participant\n"
                 "version=0\n",
                 &why),
            "");
  EXPECT_NE(why.find("server.1 has no client address"), std::string::npos) << why;
  EXPECT_EQ(List("server.1=a:1:2:participant;a:2181\nserver.2=b:1:2:participant\n", &why), "");
  EXPECT_NE(why.find("server.2"), std::string::npos) << why;
}

TEST(EnsembleConfig, RepeatedClientAddressesCountOnce) {
  EXPECT_EQ(List("server.1=a:1:2;x:2181\nserver.2=b:1:2;x:2181\n"), "x:2181");
}

TEST(EnsembleConfig, AClientHostZklDoesNotAcceptIsNotFollowed) {
  std::string why;
  EXPECT_EQ(List("server.1=a:1:2;bad*host:2181\n", &why), "");
  EXPECT_NE(why.find("server.1"), std::string::npos) << why;
}

TEST(EnsembleConfig, MalformedData) {
  EXPECT_NE(Why("").find("no server"), std::string::npos);
  EXPECT_NE(Why("version=1\n").find("no server"), std::string::npos);
  EXPECT_NE(Why("server.1=a:1:2\njunk\n").find("line 2"), std::string::npos);
  Why("server.x=a:1:2\n");
  Why("server.=a:1:2\n");
  Why("server.1=a:1\n");             // one port
  Why("server.1=a:1:2:3:4\n");       // too many parts
  Why("server.1=a:0:2\n");           // port 0
  Why("server.1=a:1:99999\n");       // port out of range
  Why("server.1=:1:2\n");            // no host
  Why("server.1=a:1:2:leader\n");    // no such role
  Why("server.1=a:1:2;a:2181;x\n");  // two ';'
  Why("server.1=a:1:2;a:\n");        // no client port
  Why("server.1=a:1:2;a:70000\n");
  Why("server.1=[fd00::1:1:2\n");    // unclosed bracket
  Why("server.1=a:1:2:observer|b:1:2\n");  // the role before the last address
  Why("server.1=a:1:2;a:1\nserver.1=b:1:2;b:1\n");  // twice
  Why("server.1=a:1:2;a:1\nversion=xyz\n");
  Why("server.1=a:1:2;a:1\nversion=12345678901234567\n");  // > 64 bits
}

TEST(EnsembleConfig, MessagesNeverEchoTheData) {
  std::string why = Why("server.1=a:1:2\n\x01secret-looking junk\n");
  EXPECT_EQ(why.find("secret"), std::string::npos) << why;
}

TEST(EnsembleConfig, AtMostSixtyFourServers) {
  std::string data;
  for (int i = 1; i <= 65; ++i) {
    data += "server." + std::to_string(i) + "=h" + std::to_string(i) + ":1:2;h" + std::to_string(i) + ":2181\n";
  }
  std::string why;
  EXPECT_EQ(List(data, &why), "");
  EXPECT_NE(why.find("64"), std::string::npos) << why;
}

TEST(EnsembleConfig, SameServersIgnoresOrderAndRepetition) {
  EXPECT_TRUE(SameServers("a:1,b:2", "b:2,a:1"));
  EXPECT_TRUE(SameServers("a:1,a:1,b:2", "b:2,a:1"));
  EXPECT_FALSE(SameServers("a:1,b:2", "a:1"));
  EXPECT_FALSE(SameServers("a:1", "a:2"));
}

}  // namespace
}  // namespace zkl
