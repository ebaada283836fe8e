// SASL identities against real servers (issue 15): Kerberos (GSSAPI) with
// a throw-away MIT KDC on 127.0.0.1 (scripts/kdc) and a ZooKeeper whose
// JAAS Krb5LoginModule serves zookeeper/localhost; and the creator ACLs a
// SASL identity puts on lock nodes, for DIGEST-MD5 and GSSAPI: another
// identity reads them but cannot delete or change them.
//
// The test process points KRB5_CONFIG at the KDC's krb5.conf (the library
// never sets environment variables), and KRB5CCNAME at a cache of the
// second identity for the raw ZooKeeper handle that plays the intruder.
#include <gtest/gtest.h>
#include <zookeeper.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

using namespace zkl_test;
using Clock = std::chrono::steady_clock;

namespace {

std::string ReadTrimmed(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string ScriptsDir() {
  std::string zk = ZkServerScript();
  return zk.substr(0, zk.rfind('/'));
}

// The KDC, the Kerberos ZooKeeper and the DIGEST-MD5 ZooKeeper of this
// binary, made on first use and removed when it exits.
class SaslWorld {
 public:
  static SaslWorld &Get() {
    static SaslWorld *world = [] {
      auto *w = new SaslWorld;
      std::atexit([] { Get().TearDown(); });
      return w;
    }();
    return *world;
  }

  const std::string &kdc() {
    std::call_once(kdc_once_, [this] {
      kdc_ = MakeTempDir("zkl-kdc-");
      CommandResult r = RunCommand({ScriptsDir() + "/kdc", "start", kdc_});
      if (r.exit_code != 0) throw std::runtime_error("scripts/kdc start failed: " + r.output);
      kdc_started_ = true;
      setenv("KRB5_CONFIG", (kdc_ + "/krb5.conf").c_str(), 1);
      // The intruder's (raw handle's) credentials: zkl-other, in a file cache.
      std::string cc = "FILE:" + kdc_ + "/other.ccache";
      r = RunCommand({"kinit", "-k", "-t", kdc_ + "/other.keytab", "-c", cc, other_principal()},
                     {"KRB5_CONFIG=" + kdc_ + "/krb5.conf"});
      if (r.exit_code != 0) throw std::runtime_error("kinit failed: " + r.output);
      setenv("KRB5CCNAME", cc.c_str(), 1);
    });
    return kdc_;
  }
  std::string file(const std::string &name) { return kdc() + "/" + name; }
  std::string principal() { return ReadTrimmed(file("client_principal")); }
  std::string other_principal() { return ReadTrimmed(kdc_ + "/other_principal"); }

  ZkServer &krb() {
    std::call_once(krb_once_, [this] { krb_ = ZkServer::StartStandalone({"ZK_SASL_KERBEROS=" + kdc()}); });
    if (!krb_) throw std::runtime_error("no Kerberos server");
    return *krb_;
  }
  // "localhost:PORT": the name in the server's principal.
  std::string krb_servers() { return "localhost:" + std::to_string(krb().port()); }

  ZkServer &digest() {
    std::call_once(digest_once_, [this] {
      digest_dir_ = MakeTempDir("zkl-digest-");
      std::string f = digest_dir_ + "/users";
      {
        std::ofstream out(f);
        out << "zkl-alice:alice-Secret-pw\nzkl-bob:bob-Secret-pw\n";
      }
      digest_ = ZkServer::StartStandalone({"ZK_SASL_DIGEST_FILE=" + f});
    });
    if (!digest_) throw std::runtime_error("no DIGEST-MD5 server");
    return *digest_;
  }

  void TearDown() {
    krb_.reset();
    digest_.reset();
    if (kdc_started_) RunCommand({ScriptsDir() + "/kdc", "stop", kdc_});
    if (std::getenv("ZKL_KEEP_TMP") == nullptr) {
      if (!kdc_.empty()) RemoveTree(kdc_);
      if (!digest_dir_.empty()) RemoveTree(digest_dir_);
    }
  }

 private:
  std::once_flag kdc_once_, krb_once_, digest_once_;
  bool kdc_started_ = false;
  std::string kdc_, digest_dir_;
  std::unique_ptr<ZkServer> krb_, digest_;
};
SaslWorld &World() { return SaslWorld::Get(); }

struct Sasl {
  std::string servers, mechanism = "GSSAPI", user, password, keytab, ccache, host;
  int acl = ZKL_ACL_OPEN;
  int io = ZKL_IO_THREAD;
  Logs *logs = nullptr;

  int New(ClientPtr *out) const {
    zkl_client_options o;
    EXPECT_EQ(zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION), 0);
    o.servers = servers.c_str();
    o.session_timeout_ms = 6000;
    o.sasl_mechanism = mechanism.c_str();
    o.sasl_user = user.empty() ? nullptr : user.c_str();
    o.sasl_password = password.empty() ? nullptr : password.c_str();
    o.sasl_keytab = keytab.empty() ? nullptr : keytab.c_str();
    o.sasl_ccache = ccache.empty() ? nullptr : ccache.c_str();
    o.sasl_host = host.empty() ? nullptr : host.c_str();
    o.acl = acl;
    o.io = io;
    if (logs) CaptureLogs(&o, logs);
    return NewClientWith(o, out);
  }
  int Connect(int64_t wait_ms, ClientPtr *out = nullptr) const { return ConnectWith(*this, wait_ms, out); }
};

Sasl Keytab() {
  Sasl s;
  s.servers = World().krb_servers();
  s.user = World().principal();
  s.keytab = World().file("client.keytab");
  return s;
}

Sasl Digest(const std::string &user, const std::string &password) {
  Sasl s;
  s.servers = World().digest().connect();
  s.mechanism = "DIGEST-MD5";
  s.user = user;
  s.password = password;
  return s;
}

// The keys of a keytab as `klist -k -K` prints them (hex), to look for in logs.
std::vector<std::string> KeytabKeys(const std::string &keytab) {
  CommandResult r = RunCommand({"klist", "-k", "-K", keytab});
  std::vector<std::string> keys;
  size_t at = 0;
  while ((at = r.output.find("(0x", at)) != std::string::npos) {
    size_t end = r.output.find(')', at);
    keys.push_back(r.output.substr(at + 3, end - at - 3));
    at = end;
  }
  return keys;
}

// --- a raw ZooKeeper handle as another SASL identity (the intruder) ---

int RawUser(void *context, int id, const char **result, unsigned *len) {
  if (id != SASL_CB_USER && id != SASL_CB_AUTHNAME) return SASL_BADPARAM;
  *result = static_cast<const char *>(context);
  if (len) *len = static_cast<unsigned>(std::strlen(*result));
  return SASL_OK;
}
int RawRealm(void *, int, const char **available, const char **result) {
  *result = available && available[0] ? available[0] : "";
  return SASL_OK;
}
int RawPass(sasl_conn_t *, void *context, int, sasl_secret_t **out) {
  *out = static_cast<sasl_secret_t *>(context);
  return SASL_OK;
}
template <typename Fn>
int (*Cb(Fn *fn))(void) {
  return reinterpret_cast<int (*)(void)>(reinterpret_cast<void (*)()>(fn));
}

class RawSasl {
 public:
  // GSSAPI with KRB5CCNAME's credentials (zkl-other), or DIGEST-MD5.
  RawSasl(const std::string &servers, const std::string &mech, const std::string &user = "",
          const std::string &password = "") {
    user_ = mech == "GSSAPI" ? "" : user;
    secret_.assign(sizeof(sasl_secret_t) + password.size(), 0);
    auto *s = reinterpret_cast<sasl_secret_t *>(secret_.data());
    s->len = password.size();
    std::memcpy(s->data, password.data(), password.size());
    int n = 0;
    if (mech == "DIGEST-MD5") cbs_[n++] = {SASL_CB_GETREALM, Cb(&RawRealm), nullptr};
    cbs_[n++] = {SASL_CB_USER, Cb(&RawUser), const_cast<char *>(user_.c_str())};
    if (mech == "DIGEST-MD5") {
      cbs_[n++] = {SASL_CB_AUTHNAME, Cb(&RawUser), const_cast<char *>(user_.c_str())};
      cbs_[n++] = {SASL_CB_PASS, Cb(&RawPass), s};
    }
    cbs_[n] = {SASL_CB_LIST_END, nullptr, nullptr};
    zoo_sasl_params_t p{};
    p.service = "zookeeper";
    p.host = mech == "GSSAPI" ? "localhost" : "zk-sasl-md5";
    p.mechlist = mech.c_str();
    p.callbacks = cbs_;
    sasl_client_init(nullptr);
    zh_ = zookeeper_init_sasl(servers.c_str(), nullptr, 10000, nullptr, nullptr, 0, nullptr, &p);
    for (int i = 0; zh_ && zoo_state(zh_) != ZOO_CONNECTED_STATE && i < 2000; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // Authenticated once the first request completes.
    struct Stat st {};
    if (zh_) zoo_exists(zh_, "/", 0, &st);
  }
  ~RawSasl() {
    if (zh_) zookeeper_close(zh_);
  }
  zhandle_t *zh() { return zh_; }

 private:
  std::string user_;
  std::vector<unsigned char> secret_;
  sasl_callback_t cbs_[5]{};
  zhandle_t *zh_ = nullptr;
};

// --- Kerberos ---

TEST(Gssapi, AKeytabConnectsAndALockWorks) {
  Logs logs;
  Sasl s = Keytab();
  s.logs = &logs;
  ClientPtr c;
  ASSERT_EQ(s.Connect(20000, &c), 0) << logs.All();
  LockPtr l = NewLock(c.get(), UniquePath("krb-lock"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
  DrainLogs(c.get());
  // No key of the keytab in any log line (as klist prints them, in hex).
  std::vector<std::string> keys = KeytabKeys(s.keytab);
  ASSERT_FALSE(keys.empty());
  std::string all = logs.All();
  for (const std::string &k : keys) EXPECT_EQ(all.find(k), std::string::npos);
}

TEST(Gssapi, HostDrivenIoAndAnExplicitServerHost) {
  // By address, naming the host of the server's principal; zkl's I/O in
  // the host's calls (the thread's credential cache is set around them).
  Sasl s = Keytab();
  s.servers = World().krb().connect();  // 127.0.0.1:PORT
  s.host = "localhost";
  s.io = ZKL_IO_HOST;
  ClientPtr c;
  ASSERT_EQ(s.Connect(20000, &c), 0);
  LockPtr l = NewLock(c.get(), UniquePath("krb-host-io"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
}

TEST(Gssapi, AnExistingCredentialCache) {
  std::string cc = "FILE:" + World().file("client.ccache");
  CommandResult r = RunCommand({"kinit", "-k", "-t", World().file("client.keytab"), "-c", cc,
                                World().principal()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Sasl s;
  s.servers = World().krb_servers();
  s.ccache = cc;
  ClientPtr c;
  ASSERT_EQ(s.Connect(20000, &c), 0);
  LockPtr l = NewLock(c.get(), UniquePath("krb-ccache"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
}

// A keytab that gives no ticket: ZKL_EAUTH, at once (not a hang).
void ExpectEauth(Sasl s, const std::string &what) {
  Logs logs;
  s.logs = &logs;
  ClientPtr c;
  auto start = Clock::now();
  int rc = s.Connect(10000, &c);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  DrainLogs(c.get());
  EXPECT_EQ(rc, ZKL_EAUTH) << what << "\n" << logs.All();
  EXPECT_LT(ms, 5000) << what;
  EXPECT_EQ(zkl_client_state(c.get()), ZKL_SESSION_AUTH_FAILED) << what;
  std::string all = logs.All();
  EXPECT_NE(all.find("Kerberos"), std::string::npos) << what << ": the log says why\n" << all;
  for (const std::string &k : KeytabKeys(World().file("client.keytab"))) {
    EXPECT_EQ(all.find(k), std::string::npos) << what;
  }
}

TEST(Gssapi, AWrongOrMissingKeytabGivesEauth) {
  Sasl s = Keytab();
  s.keytab = World().file("other.keytab");  // no key of zkl-client in it
  ExpectEauth(s, "another principal's keytab");
  s.keytab = World().file("stale.keytab");  // an old key: the KDC refuses it
  ExpectEauth(s, "a stale keytab");
  s.keytab = World().file("no-such.keytab");
  ExpectEauth(s, "a missing keytab");
  s = Keytab();
  s.user = "nobody@" + ReadTrimmed(World().file("realm"));
  ExpectEauth(s, "an unknown principal");
}

TEST(Gssapi, TheWrongServerPrincipalGivesEauth) {
  // No service key for zookeeper/other.invalid: GSS fails in the client.
  Sasl s = Keytab();
  s.host = "other.invalid";
  ClientPtr c;
  EXPECT_EQ(s.Connect(10000, &c), ZKL_EAUTH);
}

TEST(GssapiOptions, AreChecked) {
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  o.servers = "127.0.0.1:1";
  o.sasl_mechanism = "GSSAPI";
  zkl_client *raw = nullptr;
  o.sasl_keytab = "/k";  // a keytab needs the principal
  EXPECT_EQ(zkl_client_new(&o, &raw), ZKL_EINVAL);
  o.sasl_user = "u@R";
  o.sasl_ccache = "FILE:/c";  // one source of credentials
  EXPECT_EQ(zkl_client_new(&o, &raw), ZKL_EINVAL);
  o.sasl_ccache = nullptr;
  o.sasl_password = "x";  // no password with Kerberos
  EXPECT_EQ(zkl_client_new(&o, &raw), ZKL_EINVAL);
  o.sasl_password = nullptr;
  ASSERT_EQ(zkl_client_new(&o, &raw), 0);
  zkl_client_destroy(raw);
}

// --- creator ACLs of SASL identities ---

// The holder's node is readable by anyone, and its ACL gives everything
// to the holder's SASL identity only: the intruder (another identity)
// cannot delete or change it, nor revoke the holder.
void ExpectOwnedBy(zkl_client *holder_client, const std::string &servers, const std::string &id,
                   RawSasl &intruder, zkl_client *intruder_client) {
  std::string path = UniquePath("sasl-acl");
  LockPtr l = NewLock(holder_client, path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  ASSERT_NE(intruder.zh(), nullptr);
  ASSERT_EQ(zoo_state(intruder.zh()), ZOO_CONNECTED_STATE);
  struct String_vector kids {};
  ASSERT_EQ(zoo_get_children(intruder.zh(), path.c_str(), 0, &kids), ZOK);  // world reads
  ASSERT_EQ(kids.count, 1);
  std::string node = path + "/" + kids.data[0];
  deallocate_String_vector(&kids);
  struct ACL_vector acl {};
  struct Stat st {};
  ASSERT_EQ(zoo_get_acl(intruder.zh(), node.c_str(), &acl, &st), ZOK);
  bool holder_all = false, world_read = false;
  for (int i = 0; i < acl.count; ++i) {
    std::string scheme = acl.data[i].id.scheme, who = acl.data[i].id.id;
    if (scheme == "sasl" && who == id && acl.data[i].perms == ZOO_PERM_ALL) holder_all = true;
    if (scheme == "world" && who == "anyone" && acl.data[i].perms == ZOO_PERM_READ) world_read = true;
  }
  EXPECT_TRUE(holder_all && world_read && acl.count == 2) << node;
  deallocate_ACL_vector(&acl);
  char buf[16];
  int len = sizeof buf;
  EXPECT_EQ(zoo_get(intruder.zh(), node.c_str(), 0, buf, &len, &st), ZOK);
  EXPECT_EQ(zoo_delete(intruder.zh(), node.c_str(), -1), ZNOAUTH);
  EXPECT_EQ(zoo_set(intruder.zh(), node.c_str(), "x", 1, -1), ZNOAUTH);
  // Through zkl, as the other identity: it sees the holder, cannot ask it
  // to let go (that writes the holder's node) nor queue.
  zkl_inspect_options io;
  ASSERT_EQ(zkl_inspect_options_init(&io, ZKL_INSPECT_OPTIONS_VERSION), 0);
  zkl_participants *p = nullptr;
  ASSERT_EQ(zkl_inspect(intruder_client, path.c_str(), &io, &p), 0);
  EXPECT_EQ(zkl_participants_count(p), 1);
  zkl_participants_free(p);
  EXPECT_EQ(zkl_revoke(intruder_client, path.c_str(), &io, nullptr), ZKL_EAUTH);
  LockPtr other = NewLock(intruder_client, path);
  EXPECT_EQ(zkl_lock_acquire(other.get(), 1, 5000), ZKL_EAUTH);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
  (void)servers;
}

TEST(SaslAcl, DigestCreatorAclKeepsOtherIdentitiesOut) {
  Sasl alice = Digest("zkl-alice", "alice-Secret-pw");
  alice.acl = ZKL_ACL_CREATOR;
  ClientPtr a;
  ASSERT_EQ(alice.Connect(20000, &a), 0);
  Sasl bob = Digest("zkl-bob", "bob-Secret-pw");
  bob.acl = ZKL_ACL_CREATOR;
  ClientPtr b;
  ASSERT_EQ(bob.Connect(20000, &b), 0);
  RawSasl intruder(World().digest().connect(), "DIGEST-MD5", "zkl-bob", "bob-Secret-pw");
  ExpectOwnedBy(a.get(), alice.servers, "zkl-alice", intruder, b.get());
}

TEST(SaslAcl, GssapiCreatorAclKeepsOtherIdentitiesOut) {
  Sasl holder = Keytab();
  holder.acl = ZKL_ACL_CREATOR;
  ClientPtr h;
  ASSERT_EQ(holder.Connect(20000, &h), 0);
  Sasl other = Keytab();
  other.user = World().other_principal();
  other.keytab = World().file("other.keytab");
  other.acl = ZKL_ACL_CREATOR;
  ClientPtr o;
  ASSERT_EQ(other.Connect(20000, &o), 0);
  RawSasl intruder(World().krb_servers(), "GSSAPI");  // zkl-other, from KRB5CCNAME
  ExpectOwnedBy(h.get(), holder.servers, World().principal(), intruder, o.get());
}

}  // namespace
