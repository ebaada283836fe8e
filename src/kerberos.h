// Kerberos for SASL GSSAPI: a session's client credentials from a keytab,
// and pointing GSS at a session's credential cache while its calls run.
#pragma once

#include <memory>
#include <string>

// Kerberos needs MIT krb5's headers at build time; without them this build
// answers ZKL_ENOTSUP for GSSAPI. The libraries are not linked: they are
// loaded when a GSSAPI session starts (Cyrus SASL's gssapi plugin loads the
// same ones), so libzkl's link dependencies, and the packages that bundle
// it, stay as they are.
#if defined(__has_include)
#if __has_include(<krb5.h>) && __has_include(<gssapi/gssapi_krb5.h>)
#define ZKL_HAVE_KRB5 1
#endif
#endif

namespace zkl {

// This build can do SASL GSSAPI (Kerberos): built with MIT krb5's headers,
// and its libraries (libkrb5, libgssapi_krb5) load at run time.
bool GssapiAvailable();

// Client credentials from a keytab, kept in a private in-memory credential
// cache (MEMORY:, only in this process, destroyed with the ticket; the
// keys never leave the keytab file). Why not KRB5_CLIENT_KTNAME/KRB5CCNAME:
// environment variables are process-wide (and not thread-safe to change);
// MIT's gss_krb5_ccache_name instead sets the cache for the calling thread,
// so each session points GSS at its own cache only while its calls run
// (ThreadCredentialCache below), and sessions with other identities can
// coexist.
class KeytabTicket {
 public:
  // Null when krb5 cannot make its context or the cache (and always in a
  // build without ZKL_HAVE_KRB5, where GSSAPI is not offered). No ticket
  // yet: RefreshIfDue gets the first.
  static std::unique_ptr<KeytabTicket> Create(const std::string &principal,
                                              const std::string &keytab);
  ~KeytabTicket();
  KeytabTicket(const KeytabTicket &) = delete;
  KeytabTicket &operator=(const KeytabTicket &) = delete;

  // The private cache's name ("MEMORY:...").
  const std::string &ccache_name() const { return ccache_name_; }

  struct Outcome {
    enum Kind {
      kFine,         // a fresh ticket, or none was due
      kRenewFailed,  // the ticket held is still valid; tried again shortly
      kNoTicket,     // the keytab gave no first ticket: authentication failed
    } kind = kFine;
    std::string message;  // the log line of a failure (no key material)
  };
  // Keeps the ticket fresh: the first one before the first connection,
  // then a new one at half its life (reconnects authenticate again). Blocks
  // for the KDC exchange, like the GSSAPI step that follows it. After
  // kNoTicket it does nothing more: GSS must not look elsewhere.
  Outcome RefreshIfDue();

 private:
  struct State;  // krb5's handles (kerberos.cc)
  explicit KeytabTicket(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
  std::string ccache_name_;
};

// While alive, GSS (inside Cyrus SASL's gssapi plugin) on this thread uses
// `ccache_name` (nothing changes when it is empty: the environment's); the
// thread's previous setting comes back afterwards.
class ThreadCredentialCache {
 public:
  explicit ThreadCredentialCache(const std::string &ccache_name);
  ~ThreadCredentialCache();
  ThreadCredentialCache(const ThreadCredentialCache &) = delete;
  ThreadCredentialCache &operator=(const ThreadCredentialCache &) = delete;

 private:
#ifdef ZKL_HAVE_KRB5
  bool set_ = false;
  bool had_old_ = false;
  std::string old_;
#endif
};

}  // namespace zkl
