// Client options (issue 25): every check gives its own code and a message
// that names the option (for TLS files also the path and the reason), the
// same from zkl_client_options_check, zkl_client_create and zkl_client_new,
// and no message ever shows a secret. No server: nothing here connects.
// Certificates and keys are made at test time (scripts/test-certs).
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zkl.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "zk_harness.h"

using namespace zkl_test;

namespace {

// Secrets given in the tests: no message may show one.
constexpr const char *kDigestSecret = "digest-s3cret";
constexpr const char *kSaslSecret = "sasl-s3cret";
constexpr const char *kWrongPassphrase = "tls-wr0ng-s3cret";
const char *const kSecrets[] = {kDigestSecret, kSaslSecret, kWrongPassphrase};

zkl_client_options Options() {
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  o.servers = "127.0.0.1:1";
  return o;
}

struct Outcome {
  int code;
  std::string message;
};

Outcome Check(const zkl_client_options &o) {
  char buf[1024];
  std::memset(buf, 'X', sizeof buf);
  int code = zkl_client_options_check(&o, buf, sizeof buf);
  return {code, buf};
}

// `o` is rejected with `code`, and the message holds every one of `parts`
// (and no secret); zkl_client_create says the same and zkl_client_new
// returns the same code.
void ExpectRejected(const zkl_client_options &o, int code, const std::vector<std::string> &parts) {
  Outcome check = Check(o);
  EXPECT_EQ(check.code, code) << zkl_strerror(check.code) << ": " << check.message;
  for (const std::string &part : parts) {
    EXPECT_NE(check.message.find(part), std::string::npos) << "\"" << part << "\" not in: " << check.message;
  }
  for (const char *secret : kSecrets) {
    EXPECT_EQ(check.message.find(secret), std::string::npos) << "a secret in: " << check.message;
  }
  char buf[1024];
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_create(&o, &c, buf, sizeof buf), code);
  EXPECT_EQ(check.message, buf);
  EXPECT_EQ(zkl_client_new(&o, &c), code);
  EXPECT_EQ(c, nullptr);
}

void ExpectAccepted(const zkl_client_options &o) {
  Outcome check = Check(o);
  EXPECT_EQ(check.code, ZKL_OK) << zkl_strerror(check.code) << ": " << check.message;
  EXPECT_EQ(check.message, "");
}

TEST(Options, DefaultsAreAccepted) { ExpectAccepted(Options()); }

TEST(Options, VersionIsChecked) {
  zkl_client_options o = Options();
  o.version = 0;
  ExpectRejected(o, ZKL_EVERSION, {"version: 0", "zkl_client_options_init"});
  o.version = ZKL_CLIENT_OPTIONS_VERSION + 1;
  ExpectRejected(o, ZKL_EVERSION, {"version: " + std::to_string(ZKL_CLIENT_OPTIONS_VERSION + 1)});
}

TEST(Options, ServersAreChecked) {
  zkl_client_options o = Options();
  o.servers = nullptr;
  ExpectRejected(o, ZKL_EINVAL, {"servers: required"});
  o.servers = "host:0";
  ExpectRejected(o, ZKL_EINVAL, {"servers: must be", "\"host:0\""});
  // What the caller gave is shown, control bytes escaped.
  o.servers = "a\x01:1";
  ExpectRejected(o, ZKL_EINVAL, {"servers:", "\"a\\x01:1\""});
  EXPECT_EQ(Check(o).message.find('\x01'), std::string::npos);
}

TEST(Options, ChrootIsAPath) {
  zkl_client_options o = Options();
  o.chroot = "no-slash";
  ExpectRejected(o, ZKL_EBADPATH, {"chroot:", "\"no-slash\""});
  o.chroot = "";  // none
  ExpectAccepted(o);
  o.chroot = "/apps/x";
  ExpectAccepted(o);
}

TEST(Options, NumbersAreInRange) {
  zkl_client_options o = Options();
  o.session_timeout_ms = -5;
  EXPECT_EQ(Check(o).message, "session_timeout_ms: must be >= 0 (got -5)");
  ExpectRejected(o, ZKL_EINVAL, {"session_timeout_ms"});
  o = Options();
  o.connect_timeout_ms = -1;
  ExpectRejected(o, ZKL_EINVAL, {"connect_timeout_ms: must be >= 0 (got -1)"});
  o = Options();
  o.lost_after_ms = -2;
  ExpectRejected(o, ZKL_EINVAL, {"lost_after_ms: must be >= 0 (got -2)"});
  o = Options();
  o.stats_interval_ms = -3;
  ExpectRejected(o, ZKL_EINVAL, {"stats_interval_ms: must be >= 0 (got -3)"});
  o = Options();
  o.log_level = 9;
  ExpectRejected(o, ZKL_EINVAL, {"log_level:", "(got 9)"});
  o.log_level = -1;
  ExpectRejected(o, ZKL_EINVAL, {"log_level:", "(got -1)"});
  o = Options();
  o.io = 7;
  ExpectRejected(o, ZKL_EINVAL, {"io:", "ZKL_IO_THREAD", "(got 7)"});
  o = Options();
  o.tls_insecure_skip_hostname_check = 2;
  ExpectRejected(o, ZKL_EINVAL, {"tls_insecure_skip_hostname_check: must be 0 or 1 (got 2)"});
}

TEST(Options, AclAndDigestAuth) {
  zkl_client_options o = Options();
  o.acl = 5;
  ExpectRejected(o, ZKL_EINVAL, {"acl:", "(got 5)"});
  o.acl = ZKL_ACL_CREATOR;
  ExpectRejected(o, ZKL_EINVAL, {"acl: ZKL_ACL_CREATOR needs digest_auth or SASL"});
  // Not "user:password": the message says so without showing the value.
  o.digest_auth = kDigestSecret;
  ExpectRejected(o, ZKL_EINVAL, {"digest_auth: must be \"user:password\""});
  std::string good = std::string("user:") + kDigestSecret;
  o.digest_auth = good.c_str();
  ExpectAccepted(o);
  // Another option's mistake: the secret stays out of that message too.
  o.session_timeout_ms = -1;
  ExpectRejected(o, ZKL_EINVAL, {"session_timeout_ms"});
}

TEST(Options, TlsCombinations) {
  zkl_client_options o = Options();
  o.tls_ca_file = "";
  ExpectRejected(o, ZKL_EINVAL, {"tls_ca_file: empty"});
  o = Options();
  o.tls_cert_file = "/c.pem";
  ExpectRejected(o, ZKL_EINVAL, {"tls_cert_file: set without tls_ca_file"});
  o = Options();
  o.tls_key_file = "/k.pem";
  ExpectRejected(o, ZKL_EINVAL, {"tls_key_file: set without tls_ca_file"});
  o = Options();
  o.tls_key_password = kWrongPassphrase;
  ExpectRejected(o, ZKL_EINVAL, {"tls_key_password: set without tls_ca_file"});
  o = Options();
  o.tls_ca_file = "/ca.pem";
  o.tls_key_file = "/k.pem";
  ExpectRejected(o, ZKL_EINVAL, {"tls_key_file: set without tls_cert_file (a key belongs to a certificate)"});
}

// A build without libsasl2 (-DZKL_WITH_SASL=OFF, or no headers) refuses
// every SASL mechanism, saying so.
TEST(Options, SaslNotBuiltIn) {
  if (ZKL_TEST_HAVE_SASL) GTEST_SKIP() << "built with SASL (the other SASL tests run)";
  zkl_client_options o = Options();
  o.sasl_mechanism = "DIGEST-MD5";
  o.sasl_user = "u";
  o.sasl_password = "p";
  ExpectRejected(o, ZKL_ENOTSUP, {"sasl_mechanism: SASL support is not built in"});
}

TEST(Options, SaslCombinations) {
  if (!ZKL_TEST_HAVE_SASL) GTEST_SKIP() << "built without SASL (SaslNotBuiltIn runs)";
  using O = zkl_client_options;
  const std::vector<std::pair<const char *, const char *O::*>> without_mechanism = {
      {"sasl_user", &O::sasl_user},     {"sasl_password", &O::sasl_password}, {"sasl_keytab", &O::sasl_keytab},
      {"sasl_ccache", &O::sasl_ccache}, {"sasl_service", &O::sasl_service},   {"sasl_host", &O::sasl_host}};
  for (const auto &[name, field] : without_mechanism) {
    zkl_client_options o = Options();
    o.*field = kSaslSecret;
    ExpectRejected(o, ZKL_EINVAL, {std::string(name) + ": set without sasl_mechanism"});
  }
  zkl_client_options o = Options();
  o.sasl_mechanism = "PLAIN";
  o.sasl_user = "u";
  o.sasl_password = kSaslSecret;
  ExpectRejected(o, ZKL_EINVAL, {"sasl_mechanism: must be \"DIGEST-MD5\" or \"GSSAPI\" (got \"PLAIN\")"});

  o.sasl_mechanism = "DIGEST-MD5";
  ExpectAccepted(o);
  o.sasl_user = "";
  ExpectRejected(o, ZKL_EINVAL, {"sasl_user: required with DIGEST-MD5"});
  o.sasl_user = "u";
  o.sasl_password = nullptr;
  ExpectRejected(o, ZKL_EINVAL, {"sasl_password: required with DIGEST-MD5"});
  o.sasl_password = kSaslSecret;
  o.sasl_keytab = "/k";
  ExpectRejected(o, ZKL_EINVAL, {"sasl_keytab: GSSAPI only"});
  o.sasl_keytab = nullptr;
  o.sasl_ccache = "FILE:/c";
  ExpectRejected(o, ZKL_EINVAL, {"sasl_ccache: GSSAPI only"});

  o = Options();
  o.sasl_mechanism = "GSSAPI";
  o.sasl_password = kSaslSecret;
  ExpectRejected(o, ZKL_EINVAL, {"sasl_password: not used with GSSAPI"});
  o.sasl_password = nullptr;
  o.sasl_keytab = "";
  ExpectRejected(o, ZKL_EINVAL, {"sasl_keytab: empty"});
  o.sasl_keytab = "/k";
  ExpectRejected(o, ZKL_EINVAL, {"sasl_keytab: needs sasl_user"});
  o.sasl_user = "u@R";
  o.sasl_ccache = "FILE:/c";
  ExpectRejected(o, ZKL_EINVAL, {"sasl_ccache: set with sasl_keytab"});
  o.sasl_keytab = nullptr;
  o.sasl_ccache = "";
  ExpectRejected(o, ZKL_EINVAL, {"sasl_ccache: empty"});
  // Whether this build can do Kerberos is the build's business: either way
  // the answer is exact.
  o.sasl_ccache = nullptr;
  Outcome gssapi = Check(o);
  if (gssapi.code != ZKL_OK) {
    ExpectRejected(o, ZKL_ENOTSUP, {"sasl_mechanism: GSSAPI is not available"});
  }
}

TEST(Options, NullArgumentsAreNamed) {
  char buf[64];
  EXPECT_EQ(zkl_client_options_check(nullptr, buf, sizeof buf), ZKL_EINVAL);
  EXPECT_STREQ(buf, "opts: NULL");
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_create(nullptr, &c, buf, sizeof buf), ZKL_EINVAL);
  EXPECT_STREQ(buf, "opts: NULL");
  zkl_client_options o = Options();
  EXPECT_EQ(zkl_client_create(&o, nullptr, buf, sizeof buf), ZKL_EINVAL);
  EXPECT_STREQ(buf, "out: NULL");
}

TEST(Options, SmallOrNoBufferIsSafe) {
  zkl_client_options o = Options();
  o.session_timeout_ms = -5;
  const std::string full = Check(o).message;
  ASSERT_GT(full.size(), 8u);
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_create(&o, &c, nullptr, 0), ZKL_EINVAL);
  EXPECT_EQ(zkl_client_create(&o, &c, nullptr, 100), ZKL_EINVAL);
  EXPECT_EQ(zkl_client_options_check(&o, nullptr, 100), ZKL_EINVAL);
  char buf[16];
  std::memset(buf, 'X', sizeof buf);
  EXPECT_EQ(zkl_client_create(&o, &c, buf, 0), ZKL_EINVAL);
  EXPECT_EQ(buf[0], 'X');  // size 0: not one byte written
  EXPECT_EQ(zkl_client_create(&o, &c, buf, 1), ZKL_EINVAL);
  EXPECT_EQ(buf[0], '\0');
  EXPECT_EQ(buf[1], 'X');
  std::memset(buf, 'X', sizeof buf);
  EXPECT_EQ(zkl_client_create(&o, &c, buf, 8), ZKL_EINVAL);
  EXPECT_EQ(std::string(buf), full.substr(0, 7));
  EXPECT_EQ(buf[8], 'X');
  std::memset(buf, 'X', sizeof buf);
  EXPECT_EQ(zkl_client_options_check(&o, buf, 8), ZKL_EINVAL);
  EXPECT_EQ(std::string(buf), full.substr(0, 7));
  EXPECT_EQ(c, nullptr);
}

TEST(Options, CreateSucceedsWithAnEmptyMessage) {
  zkl_client_options o = Options();
  char buf[32];
  std::strcpy(buf, "stale");
  zkl_client *c = nullptr;
  ASSERT_EQ(zkl_client_create(&o, &c, buf, sizeof buf), ZKL_OK);
  EXPECT_STREQ(buf, "");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(zkl_client_destroy(c), ZKL_OK);
}

// --- TLS files ---

void WriteFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

std::string ReadFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The certificates of scripts/test-certs, and files that are wrong in each
// way a TLS file can be, made once for the suite.
class TlsFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(MakeTempDir("zkl-options-"));
    MakeTestCerts(*dir_);
    passphrase_ = new std::string(ReadFile(*dir_ + "/client-key.pass"));
    while (!passphrase_->empty() && passphrase_->back() == '\n') passphrase_->pop_back();
    WriteFile(File("empty.pem"), "");
    WriteFile(File("garbage.pem"), "this is not PEM\n");
    WriteFile(File("broken.pem"), "-----BEGIN CERTIFICATE-----\n!!not base64!!\n-----END CERTIFICATE-----\n");
    WriteFile(File("ca-and-client.pem"), ReadFile(File("ca.key")) + ReadFile(File("client.crt")));
    mkdir(File("a-directory").c_str(), 0755);
    // The same key encrypted the legacy way (a Proc-Type header).
    CommandResult r = RunCommand({"openssl", "rsa", "-in", File("client.key"), "-aes256", "-traditional",
                                  "-passout", "file:" + File("client-key.pass"), "-out",
                                  File("legacy-enc.key")});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_NE(ReadFile(File("legacy-enc.key")).find("Proc-Type: 4,ENCRYPTED"), std::string::npos);
  }
  static void TearDownTestSuite() {
    RemoveTree(*dir_);
    delete dir_;
    delete passphrase_;
  }

  static std::string File(const std::string &name) { return *dir_ + "/" + name; }

  // Rejected with ZKL_ECERT by a message that starts "<option> <path>:" and
  // says every one of `reasons`.
  static void ExpectFileRejected(const zkl_client_options &o, const std::string &option,
                                 const std::string &file, std::vector<std::string> reasons) {
    reasons.push_back(option + " " + File(file) + ":");
    ExpectRejected(o, ZKL_ECERT, reasons);
  }

  // TLS options naming files of the suite's directory (kept alive here).
  zkl_client_options Tls(const std::string &ca, const std::string &cert = "", const std::string &key = "",
                         const char *password = nullptr) {
    paths_ = {File(ca), File(cert), File(key)};
    zkl_client_options o = Options();
    o.tls_ca_file = paths_[0].c_str();
    if (!cert.empty()) o.tls_cert_file = paths_[1].c_str();
    if (!key.empty()) o.tls_key_file = paths_[2].c_str();
    o.tls_key_password = password;
    return o;
  }

  static std::string *dir_;
  static std::string *passphrase_;
  std::vector<std::string> paths_;
};
std::string *TlsFiles::dir_;
std::string *TlsFiles::passphrase_;

TEST_F(TlsFiles, GoodFilesAreAccepted) {
  ExpectAccepted(Tls("ca.pem"));
  ExpectAccepted(Tls("ca.pem", "client.crt", "client.key"));
  ExpectAccepted(Tls("ca.pem", "client.crt", "client-enc.key", passphrase_->c_str()));
  ExpectAccepted(Tls("ca.pem", "client.crt", "legacy-enc.key", passphrase_->c_str()));
  ExpectAccepted(Tls("ca.pem", "server.pem"));  // key and certificate in one file
}

TEST_F(TlsFiles, CaFileProblemsAreNamed) {
  ExpectFileRejected(Tls("no-such.pem"), "tls_ca_file", "no-such.pem", {"No such file"});
  ExpectFileRejected(Tls("a-directory"), "tls_ca_file", "a-directory", {"Is a directory"});
  ExpectFileRejected(Tls("empty.pem"), "tls_ca_file", "empty.pem", {"empty"});
  ExpectFileRejected(Tls("garbage.pem"), "tls_ca_file", "garbage.pem", {"not PEM"});
  ExpectFileRejected(Tls("broken.pem"), "tls_ca_file", "broken.pem", {"broken PEM"});
  ExpectFileRejected(Tls("ca.key"), "tls_ca_file", "ca.key", {"holds no certificate", "PRIVATE KEY"});
}

TEST_F(TlsFiles, CertificateFileProblemsAreNamed) {
  ExpectFileRejected(Tls("ca.pem", "no-such.crt", "client.key"), "tls_cert_file", "no-such.crt",
                     {"No such file"});
  ExpectFileRejected(Tls("ca.pem", "garbage.pem", "client.key"), "tls_cert_file", "garbage.pem", {"not PEM"});
  ExpectFileRejected(Tls("ca.pem", "client.key", "client.key"), "tls_cert_file", "client.key",
                     {"holds no certificate", "PRIVATE KEY"});
  // Without tls_key_file the key is read from the certificate file.
  ExpectFileRejected(Tls("ca.pem", "client.crt"), "tls_cert_file", "client.crt",
                     {"holds no private key", "tls_key_file"});
  ExpectFileRejected(Tls("ca.pem", "ca-and-client.pem"), "tls_cert_file", "ca-and-client.pem",
                     {"does not match"});
}

TEST_F(TlsFiles, KeyFileProblemsAreNamed) {
  ExpectFileRejected(Tls("ca.pem", "client.crt", "no-such.key"), "tls_key_file", "no-such.key",
                     {"No such file"});
  ExpectFileRejected(Tls("ca.pem", "client.crt", "empty.pem"), "tls_key_file", "empty.pem", {"empty"});
  ExpectFileRejected(Tls("ca.pem", "client.crt", "client.crt"), "tls_key_file", "client.crt",
                     {"holds no private key", "CERTIFICATE"});
  ExpectFileRejected(Tls("ca.pem", "client.crt", "ca.key"), "tls_key_file", "ca.key",
                     {"does not match the certificate", "tls_cert_file " + File("client.crt")});
  for (const char *key : {"client-enc.key", "legacy-enc.key"}) {
    SCOPED_TRACE(key);
    ExpectRejected(Tls("ca.pem", "client.crt", key), ZKL_ECERT,
                   {"tls_key_file " + File(key) + ": the key is encrypted and tls_key_password is not set"});
    ExpectFileRejected(Tls("ca.pem", "client.crt", key, kWrongPassphrase), "tls_key_file", key,
                       {"cannot decrypt", "wrong tls_key_password"});
  }
}

TEST_F(TlsFiles, ThePassphraseIsInNoMessage) {
  // The right one with a mismatched certificate, the wrong one: neither shows.
  std::vector<Outcome> outcomes = {
      Check(Tls("ca.pem", "ca-and-client.pem", "", passphrase_->c_str())),
      Check(Tls("ca.pem", "client.crt", "client-enc.key", kWrongPassphrase)),
      Check(Tls("no-such.pem", "client.crt", "client-enc.key", kWrongPassphrase))};
  for (const Outcome &out : outcomes) {
    EXPECT_EQ(out.code, ZKL_ECERT) << out.message;
    EXPECT_EQ(out.message.find(*passphrase_), std::string::npos) << out.message;
    EXPECT_EQ(out.message.find(kWrongPassphrase), std::string::npos) << out.message;
  }
}

// A file the process may not read. Root reads mode 000 files, so as root
// the check runs in a child that has dropped to nobody.
TEST_F(TlsFiles, UnreadableFileSaysPermissionDenied) {
  std::string dir = MakeTempDir("zkl-options-perm-");
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
  std::string readable = dir + "/readable.pem", unreadable = dir + "/unreadable.pem";
  WriteFile(readable, ReadFile(File("ca.pem")));
  WriteFile(unreadable, ReadFile(File("ca.pem")));
  ASSERT_EQ(chmod(readable.c_str(), 0644), 0);
  ASSERT_EQ(chmod(unreadable.c_str(), 0), 0);

  // Runs the check of `ca` as the unprivileged user: its code and message.
  auto check_as_user = [](const std::string &ca) -> Outcome {
    zkl_client_options o = Options();
    o.tls_ca_file = ca.c_str();
    if (geteuid() != 0) return Check(o);
    int fds[2];
    if (pipe(fds) != 0) return {ZKL_EINTERNAL, "pipe failed"};
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(100);
      Outcome out = Check(o);
      ssize_t unused = write(fds[1], out.message.data(), out.message.size());
      (void)unused;
      _exit(-out.code);
    }
    close(fds[1]);
    std::string message;
    char buf[512];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) message.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 100) return {ZKL_EINTERNAL, "could not drop to nobody"};
    return {-WEXITSTATUS(status), message};
  };
  Outcome control = check_as_user(readable);
  ASSERT_EQ(control.code, ZKL_OK) << control.message;  // the directory is open to the user
  Outcome out = check_as_user(unreadable);
  EXPECT_EQ(out.code, ZKL_ECERT) << out.message;
  EXPECT_NE(out.message.find("tls_ca_file " + unreadable + ":"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("Permission denied"), std::string::npos) << out.message;
  RemoveTree(dir);
}

}  // namespace
