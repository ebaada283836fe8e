// The Cyrus SASL callbacks of a session (DIGEST-MD5, GSSAPI) and the
// credentials they hand out.
#pragma once

#include <string>
#include <vector>

#ifdef HAVE_CYRUS_SASL_H  // a build without libsasl2 rejects SASL options (client_options.cc)
#include <sasl/sasl.h>
#endif

namespace zkl {

// The context of the callbacks: the C client references them for the
// handle's life (every reconnect authenticates again), so these live as
// long as the handle. Secrets are wiped when it goes.
struct SaslCredentials {
  std::string user;      // empty for GSSAPI: the server takes the ticket's principal
  std::string password;  // DIGEST-MD5; a secret
  std::vector<unsigned char> secret;  // the password as Cyrus wants it, made on first use

  SaslCredentials() = default;
  ~SaslCredentials();
  SaslCredentials(const SaslCredentials &) = delete;
  SaslCredentials &operator=(const SaslCredentials &) = delete;
};

#ifdef HAVE_CYRUS_SASL_H
// Cyrus SASL's client side is initialized once per process: false when that
// failed.
bool SaslReady();

// Room for the longest list (DIGEST-MD5: realm, user, authname, password, end).
using SaslCallbackList = sasl_callback_t[5];

// The callbacks of DIGEST-MD5: `credentials`' user and password, and the
// realm the server offers.
void SetDigestMd5Callbacks(SaslCredentials *credentials, SaslCallbackList &list);
// The callbacks of GSSAPI: only the (empty) authorization id; the ticket
// comes from GSS.
void SetGssapiCallbacks(SaslCredentials *credentials, SaslCallbackList &list);
#endif  // HAVE_CYRUS_SASL_H

}  // namespace zkl
