// The TLS files, read before the ZooKeeper client reads them: it can only
// fail as a whole (errno EPROTO), naming neither the file nor the reason.
// The checks follow its loading (third_party/zookeeper patch 0004): the CA
// bundle as SSL_CTX_load_verify_locations, the certificate chain as
// SSL_CTX_use_certificate_chain_file, the key as SSL_CTX_use_PrivateKey_file
// (from tls_cert_file when tls_key_file is not set), then the pair.
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "client_options.h"

namespace zkl {

namespace {

// Far above any CA bundle; bounds what a wrong path (a log, a disk image)
// costs.
constexpr off_t kMaxTlsFileBytes = 16 << 20;

struct BioFree {
  void operator()(BIO *b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509 *x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY *k) const { EVP_PKEY_free(k); }
};
struct InfosFree {
  void operator()(STACK_OF(X509_INFO) * s) const { sk_X509_INFO_pop_free(s, X509_INFO_free); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// OpenSSL's errors are a per-thread queue: what one check leaves there must
// not become the reason of another, or of the caller's next OpenSSL call.
struct OpenSslErrorsCleared {
  OpenSslErrorsCleared() { ERR_clear_error(); }
  ~OpenSslErrorsCleared() { ERR_clear_error(); }
};

// The newest OpenSSL error as text.
std::string OpenSslReason() {
  const char *reason = ERR_reason_error_string(ERR_peek_last_error());
  return reason != nullptr ? reason : "unknown reason";
}

// True when OpenSSL stopped reading PEM because no block was left (the
// normal end of a file), not because a block was broken.
bool PemEnded() {
  unsigned long e = ERR_peek_last_error();
  return ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE;
}

// Hands tls_key_password to OpenSSL while a key is read, as the ZooKeeper
// client does; OpenSSL cleanses its copy and none is kept here. Always given
// (also with no passphrase): without a callback OpenSSL would prompt on the
// terminal.
int KeyPassword(char *buf, int size, int /*rwflag*/, void *userdata) {
  const char *password = static_cast<const char *>(userdata);
  if (password == nullptr) return 0;
  int len = static_cast<int>(std::min<size_t>(std::strlen(password), static_cast<size_t>(size)));
  std::memcpy(buf, password, static_cast<size_t>(len));
  return len;
}

bool IsCertificateBlock(const std::string &name) {
  return name == "CERTIFICATE" || name == "TRUSTED CERTIFICATE" || name == "X509 CERTIFICATE";
}
bool IsPrivateKeyBlock(const std::string &name) {
  return name.size() >= 11 && name.compare(name.size() - 11, 11, "PRIVATE KEY") == 0;
}

// One file given by an option, read whole.
class TlsFile {
 public:
  TlsFile(const char *option, const char *path) : option_(option), path_(path) {}
  // A key file's text may be a clear private key: it does not outlive us.
  ~TlsFile() { OPENSSL_cleanse(text_.data(), text_.size()); }
  TlsFile(const TlsFile &) = delete;
  TlsFile &operator=(const TlsFile &) = delete;

  // "tls_key_file /etc/zk/client.key: <reason>"
  std::string Says(const std::string &reason) const {
    return std::string(option_) + " " + Printable(path_) + ": " + reason;
  }

  // Reads the file and lists its PEM blocks; false with *why when it
  // cannot be read or holds no (or broken) PEM.
  bool Load(std::string *why) { return Read(why) && ScanPem(why); }

  // A fresh reader of the text (OpenSSL reads it in place).
  BioPtr Reader() const {
    BioPtr bio(BIO_new_mem_buf(text_.data(), static_cast<int>(text_.size())));
    if (!bio) throw std::bad_alloc();
    return bio;
  }

  bool Has(bool (*is_kind)(const std::string &)) const {
    for (const std::string &name : blocks_) {
      if (is_kind(name)) return true;
    }
    return false;
  }
  bool key_encrypted() const { return key_encrypted_; }
  // "(found: PRIVATE KEY, CERTIFICATE)": what the file holds instead.
  std::string Found() const {
    std::string out;
    for (size_t i = 0; i < blocks_.size(); i++) {
      if (std::find(blocks_.begin(), blocks_.begin() + i, blocks_[i]) != blocks_.begin() + i) continue;
      out += (out.empty() ? "" : ", ") + Printable(blocks_[i], 40);
    }
    return "(found: " + out + ")";
  }

 private:
  bool Read(std::string *why) {
    if (path_.empty()) {
      *why = std::string(option_) + ": the path is empty";
      return false;
    }
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      *why = Says(std::string("cannot open: ") + std::strerror(errno));
      return false;
    }
    struct Closer {
      int fd;
      ~Closer() { close(fd); }
    } closer{fd};
    struct stat st;
    if (fstat(fd, &st) != 0) {
      *why = Says(std::string("cannot read: ") + std::strerror(errno));
      return false;
    }
    if (S_ISDIR(st.st_mode)) {
      *why = Says(std::string("cannot read: ") + std::strerror(EISDIR));
      return false;
    }
    // The ZooKeeper client reads it again: a pipe or device would be gone
    // (or endless) by then.
    if (!S_ISREG(st.st_mode)) {
      *why = Says("not a regular file");
      return false;
    }
    if (st.st_size > kMaxTlsFileBytes) {
      *why = Says("larger than 16 MiB: not a PEM file");
      return false;
    }
    text_.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < text_.size()) {
      ssize_t n = read(fd, text_.data() + got, text_.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        *why = Says(std::string("cannot read: ") + std::strerror(errno));
        return false;
      }
      if (n == 0) break;  // shorter than it was a moment ago
      got += static_cast<size_t>(n);
    }
    text_.resize(got);
    if (text_.empty()) {
      *why = Says("the file is empty");
      return false;
    }
    return true;
  }

  bool ScanPem(std::string *why) {
    BioPtr bio = Reader();
    for (;;) {
      char *name = nullptr, *header = nullptr;
      unsigned char *data = nullptr;
      long len = 0;
      if (PEM_read_bio(bio.get(), &name, &header, &data, &len) != 1) break;
      blocks_.emplace_back(name);
      // Legacy (OpenSSL "traditional") encryption says so in a header.
      if (IsPrivateKeyBlock(blocks_.back()) &&
          (blocks_.back() == "ENCRYPTED PRIVATE KEY" || std::strstr(header, "ENCRYPTED") != nullptr)) {
        key_encrypted_ = true;
      }
      OPENSSL_free(name);
      OPENSSL_free(header);
      OPENSSL_clear_free(data, static_cast<size_t>(len));  // may be a clear key
    }
    if (!PemEnded()) {
      *why = Says("broken PEM (" + OpenSslReason() + ")");
      return false;
    }
    if (blocks_.empty()) {
      *why = Says("not PEM (no \"-----BEGIN ...-----\" block)");
      return false;
    }
    return true;
  }

  const char *option_;
  std::string path_;
  std::string text_;
  std::vector<std::string> blocks_;  // PEM block names, in file order
  bool key_encrypted_ = false;
};

// The CA bundle: every block parses, and one at least is a certificate.
bool CheckCaFile(const TlsFile &ca, std::string *why) {
  if (!ca.Has(IsCertificateBlock)) {
    *why = ca.Says("holds no certificate " + ca.Found());
    return false;
  }
  BioPtr bio = ca.Reader();
  std::unique_ptr<STACK_OF(X509_INFO), InfosFree> infos(
      PEM_X509_INFO_read_bio(bio.get(), nullptr, KeyPassword, nullptr));
  if (!infos) {
    *why = ca.Says("cannot parse (" + OpenSslReason() + ")");
    return false;
  }
  for (int i = 0; i < sk_X509_INFO_num(infos.get()); i++) {
    if (sk_X509_INFO_value(infos.get(), i)->x509 != nullptr) return true;
  }
  *why = ca.Says("holds no certificate OpenSSL can read");
  return false;
}

// The client certificate, then the chain certificates after it.
X509Ptr ReadCertificate(const TlsFile &cert, std::string *why) {
  if (!cert.Has(IsCertificateBlock)) {
    *why = cert.Says("holds no certificate " + cert.Found());
    return nullptr;
  }
  BioPtr bio = cert.Reader();
  X509Ptr leaf(PEM_read_bio_X509_AUX(bio.get(), nullptr, KeyPassword, nullptr));
  if (!leaf) {
    *why = cert.Says("cannot parse the certificate (" + OpenSslReason() + ")");
    return nullptr;
  }
  while (X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, KeyPassword, nullptr))) {
  }
  if (!PemEnded()) {
    *why = cert.Says("cannot parse a chain certificate after the first (" + OpenSslReason() + ")");
    return nullptr;
  }
  return leaf;
}

// The private key, decrypted with tls_key_password when it is encrypted.
PkeyPtr ReadKey(const TlsFile &key, const char *password, bool key_from_cert_file, std::string *why) {
  if (!key.Has(IsPrivateKeyBlock)) {
    std::string why_here = "holds no private key " + key.Found();
    if (key_from_cert_file) {
      why_here += ", and tls_key_file is not set (the key is then read from tls_cert_file)";
    }
    *why = key.Says(why_here);
    return nullptr;
  }
  if (key.key_encrypted() && password == nullptr) {
    *why = key.Says("the key is encrypted and tls_key_password is not set");
    return nullptr;
  }
  BioPtr bio = key.Reader();
  PkeyPtr pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, KeyPassword, const_cast<char *>(password)));
  if (!pkey) {
    *why = key.Says(key.key_encrypted()
                        ? "cannot decrypt the key: wrong tls_key_password? (" + OpenSslReason() + ")"
                        : "cannot parse the private key (" + OpenSslReason() + ")");
  }
  return pkey;
}

}  // namespace

int CheckTlsFiles(const zkl_client_options &opts, std::string *why) {
  OpenSslErrorsCleared cleared;
  TlsFile ca("tls_ca_file", opts.tls_ca_file);
  if (!ca.Load(why) || !CheckCaFile(ca, why)) return ZKL_ECERT;
  if (opts.tls_cert_file == nullptr) return ZKL_OK;  // no client certificate

  TlsFile cert("tls_cert_file", opts.tls_cert_file);
  if (!cert.Load(why)) return ZKL_ECERT;
  X509Ptr certificate = ReadCertificate(cert, why);
  if (!certificate) return ZKL_ECERT;

  bool key_from_cert_file = opts.tls_key_file == nullptr;
  std::unique_ptr<TlsFile> key_file;
  if (!key_from_cert_file) {
    key_file = std::make_unique<TlsFile>("tls_key_file", opts.tls_key_file);
    if (!key_file->Load(why)) return ZKL_ECERT;
  }
  const TlsFile &key = key_from_cert_file ? cert : *key_file;
  PkeyPtr pkey = ReadKey(key, opts.tls_key_password, key_from_cert_file, why);
  if (!pkey) return ZKL_ECERT;
  if (X509_check_private_key(certificate.get(), pkey.get()) != 1) {
    *why = key_from_cert_file ? cert.Says("its private key does not match its certificate")
                              : key.Says("the key does not match the certificate in tls_cert_file " +
                                         Printable(opts.tls_cert_file));
    return ZKL_ECERT;
  }
  return ZKL_OK;
}

}  // namespace zkl
