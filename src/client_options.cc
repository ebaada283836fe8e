#include "client_options.h"

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <utility>

#include "kerberos.h"
#include "paths.h"

namespace zkl {

namespace {

using Field = std::pair<const char *, const char *>;  // C field name, value

bool Empty(const char *s) { return s == nullptr || s[0] == '\0'; }

// The first of `fields` that is set (its name), or nullptr.
const char *FirstSet(std::initializer_list<Field> fields) {
  for (const Field &f : fields) {
    if (f.second != nullptr) return f.first;
  }
  return nullptr;
}

std::string Quoted(const char *s) {
  // Appended, not "\"" + ... : GCC 12 at -O3 warns (-Wrestrict, a false
  // positive, its bug 105329) on a literal prepended to a string.
  std::string out(1, '"');
  out += Printable(s, 100);
  out += '"';
  return out;
}

// The checks proper (*why not NULL; CheckClientOptions allows NULL).
int Check(const zkl_client_options &opts, std::string *why) {
  auto fail = [why](int code, std::string message) {
    *why = std::move(message);
    return code;
  };
  auto non_negative = [&](const char *name, int32_t value) {
    if (value >= 0) return ZKL_OK;
    return fail(ZKL_EINVAL, std::string(name) + ": must be >= 0 (got " + std::to_string(value) + ")");
  };

  // First: a struct of another version cannot even be read.
  if (opts.version == 0) {
    return fail(ZKL_EVERSION, "version: 0 (fill the struct with zkl_client_options_init first)");
  }
  if (opts.version > ZKL_CLIENT_OPTIONS_VERSION) {
    return fail(ZKL_EVERSION, "version: " + std::to_string(opts.version) + " is newer than this library's " +
                                  std::to_string(ZKL_CLIENT_OPTIONS_VERSION) +
                                  " (built against a newer zkl.h?)");
  }

  if (opts.servers == nullptr) return fail(ZKL_EINVAL, "servers: required (\"host:port[,host:port]*\")");
  if (ValidateServers(opts.servers) != ZKL_OK) {
    return fail(ZKL_EINVAL, "servers: must be \"host:port[,host:port]*\" (ports 1..65535, at most 64 "
                            "servers, a chroot goes in the chroot option) (got " +
                                Quoted(opts.servers) + ")");
  }
  if (!Empty(opts.chroot) && ValidatePath(opts.chroot) != ZKL_OK) {
    return fail(ZKL_EBADPATH, "chroot: must be an absolute ZooKeeper path other than \"/\", without "
                              "trailing '/', empty, \".\" or \"..\" segments or control characters, not "
                              "under /zookeeper (got " +
                                  Quoted(opts.chroot) + ")");
  }

  if (int rc = non_negative("session_timeout_ms", opts.session_timeout_ms)) return rc;
  if (int rc = non_negative("connect_timeout_ms", opts.connect_timeout_ms)) return rc;
  if (int rc = non_negative("lost_after_ms", opts.lost_after_ms)) return rc;
  if (opts.io != ZKL_IO_THREAD && opts.io != ZKL_IO_HOST) {
    return fail(ZKL_EINVAL, "io: must be ZKL_IO_THREAD (0) or ZKL_IO_HOST (1) (got " +
                                std::to_string(opts.io) + ")");
  }
  if (opts.acl != ZKL_ACL_OPEN && opts.acl != ZKL_ACL_CREATOR) {
    return fail(ZKL_EINVAL, "acl: must be ZKL_ACL_OPEN (0) or ZKL_ACL_CREATOR (1) (got " +
                                std::to_string(opts.acl) + ")");
  }
  // The creator is an authenticated identity: without one, "creator" would
  // be anyone.
  if (opts.acl == ZKL_ACL_CREATOR && opts.digest_auth == nullptr && opts.sasl_mechanism == nullptr) {
    return fail(ZKL_EINVAL, "acl: ZKL_ACL_CREATOR needs digest_auth or SASL (sasl_mechanism)");
  }
  // A secret: the message says what is wrong, never what was given.
  if (opts.digest_auth != nullptr && std::strchr(opts.digest_auth, ':') == nullptr) {
    return fail(ZKL_EINVAL, "digest_auth: must be \"user:password\" (no ':' found)");
  }

  // TLS files without a CA bundle (which turns TLS on) are a mistake, not
  // a request for plaintext.
  bool tls = opts.tls_ca_file != nullptr;
  if (tls && opts.tls_ca_file[0] == '\0') {
    return fail(ZKL_EINVAL, "tls_ca_file: empty (the CA bundle's path turns TLS on; NULL for no TLS)");
  }
  if (!tls) {
    if (const char *name = FirstSet({{"tls_cert_file", opts.tls_cert_file},
                                     {"tls_key_file", opts.tls_key_file},
                                     {"tls_key_password", opts.tls_key_password}})) {
      return fail(ZKL_EINVAL, std::string(name) + ": set without tls_ca_file (tls_ca_file turns TLS on)");
    }
  }
  if (opts.tls_key_file != nullptr && opts.tls_cert_file == nullptr) {
    return fail(ZKL_EINVAL, "tls_key_file: set without tls_cert_file (a key belongs to a certificate)");
  }
  if (opts.tls_insecure_skip_hostname_check != 0 && opts.tls_insecure_skip_hostname_check != 1) {
    return fail(ZKL_EINVAL, "tls_insecure_skip_hostname_check: must be 0 or 1 (got " +
                                std::to_string(opts.tls_insecure_skip_hostname_check) + ")");
  }

  // SASL: DIGEST-MD5 (user and password) or GSSAPI (Kerberos: a client
  // principal and its keytab, or a credential cache, or the environment's).
  bool sasl = opts.sasl_mechanism != nullptr;
#if defined(ZKL_HAVE_SASL) && !ZKL_HAVE_SASL
  if (sasl) {
    return fail(ZKL_ENOTSUP, "sasl_mechanism: SASL support is not built in (libsasl2 headers were not found "
                             "at build time)");
  }
#endif
  if (!sasl) {
    if (const char *name = FirstSet({{"sasl_user", opts.sasl_user},
                                     {"sasl_password", opts.sasl_password},
                                     {"sasl_keytab", opts.sasl_keytab},
                                     {"sasl_ccache", opts.sasl_ccache},
                                     {"sasl_service", opts.sasl_service},
                                     {"sasl_host", opts.sasl_host}})) {
      return fail(ZKL_EINVAL,
                  std::string(name) + ": set without sasl_mechanism (sasl_mechanism turns SASL on)");
    }
  } else if (std::strcmp(opts.sasl_mechanism, "GSSAPI") == 0) {
    if (opts.sasl_password != nullptr) {
      return fail(ZKL_EINVAL, "sasl_password: not used with GSSAPI (Kerberos takes sasl_keytab, sasl_ccache "
                              "or the environment's credentials)");
    }
    // A keytab names whose keys to use; one source of credentials at most.
    if (opts.sasl_keytab != nullptr && opts.sasl_keytab[0] == '\0') {
      return fail(ZKL_EINVAL, "sasl_keytab: empty (NULL for the environment's credentials)");
    }
    if (opts.sasl_keytab != nullptr && Empty(opts.sasl_user)) {
      return fail(ZKL_EINVAL, "sasl_keytab: needs sasl_user (the client principal whose keys to use)");
    }
    if (opts.sasl_ccache != nullptr && opts.sasl_ccache[0] == '\0') {
      return fail(ZKL_EINVAL, "sasl_ccache: empty (NULL for the environment's credential cache)");
    }
    if (opts.sasl_ccache != nullptr && opts.sasl_keytab != nullptr) {
      return fail(ZKL_EINVAL, "sasl_ccache: set with sasl_keytab (one source of credentials)");
    }
    if (!GssapiAvailable()) {
      return fail(ZKL_ENOTSUP, "sasl_mechanism: GSSAPI is not available in this build (built without "
                               "MIT krb5, or libkrb5/libgssapi_krb5 do not load)");
    }
  } else if (std::strcmp(opts.sasl_mechanism, "DIGEST-MD5") == 0) {
    if (Empty(opts.sasl_user)) return fail(ZKL_EINVAL, "sasl_user: required with DIGEST-MD5");
    if (opts.sasl_password == nullptr) return fail(ZKL_EINVAL, "sasl_password: required with DIGEST-MD5");
    if (const char *name = FirstSet({{"sasl_keytab", opts.sasl_keytab}, {"sasl_ccache", opts.sasl_ccache}})) {
      return fail(ZKL_EINVAL, std::string(name) + ": GSSAPI only (sasl_mechanism is DIGEST-MD5)");
    }
  } else {
    return fail(ZKL_EINVAL, "sasl_mechanism: must be \"DIGEST-MD5\" or \"GSSAPI\" (got " +
                                Quoted(opts.sasl_mechanism) + ")");
  }

  if (opts.log_level < ZKL_LOG_OFF || opts.log_level > ZKL_LOG_DEBUG) {
    return fail(ZKL_EINVAL, "log_level: must be ZKL_LOG_OFF (0) .. ZKL_LOG_DEBUG (4) (got " +
                                std::to_string(opts.log_level) + ")");
  }
  if (int rc = non_negative("stats_interval_ms", opts.stats_interval_ms)) return rc;

  // Last: the options are consistent, now the files they name.
  if (tls) return CheckTlsFiles(opts, why);
  return ZKL_OK;
}

}  // namespace

int CheckClientOptions(const zkl_client_options &opts, std::string *why) {
  std::string message;
  int rc = Check(opts, &message);
  if (why != nullptr) *why = rc == ZKL_OK ? std::string() : std::move(message);
  return rc;
}

std::string Printable(std::string_view s, size_t max) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (i == max) return out + "...";
    auto ch = static_cast<unsigned char>(s[i]);
    if (ch < 0x20 || ch >= 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", ch);
      out += hex;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out;
}

}  // namespace zkl
