#include "sasl_callbacks.h"

#include <cstring>

#include "zk_session.h"

namespace zkl {

namespace {

void WipeBytes(std::vector<unsigned char> &secret) {
  volatile unsigned char *p = secret.data();
  for (size_t i = 0; i < secret.size(); ++i) p[i] = 0;
  secret.clear();
}

#ifdef HAVE_CYRUS_SASL_H
// The realm the server offers (DIGEST-MD5: "zk-sasl-md5" from Java).
int SaslRealm(void *, int, const char **available, const char **result) {
  if (result == nullptr) return SASL_BADPARAM;
  *result = available != nullptr && available[0] != nullptr ? available[0] : "";
  return SASL_OK;
}

int SaslUser(void *context, int id, const char **result, unsigned *len) {
  auto *credentials = static_cast<SaslCredentials *>(context);
  if (result == nullptr || (id != SASL_CB_USER && id != SASL_CB_AUTHNAME)) return SASL_BADPARAM;
  *result = credentials->user.c_str();
  if (len) *len = static_cast<unsigned>(credentials->user.size());
  return SASL_OK;
}

int SaslPassword(sasl_conn_t *conn, void *context, int id, sasl_secret_t **out) {
  auto *credentials = static_cast<SaslCredentials *>(context);
  if (conn == nullptr || out == nullptr || id != SASL_CB_PASS) return SASL_BADPARAM;
  // sasl_secret_t: an unsigned long length, then the bytes (one buffer,
  // kept until the session ends and wiped then).
  const std::string &pw = credentials->password;
  if (credentials->secret.empty()) {
    credentials->secret.assign(sizeof(sasl_secret_t) + pw.size(), 0);
    auto *secret = reinterpret_cast<sasl_secret_t *>(credentials->secret.data());
    secret->len = pw.size();
    std::memcpy(secret->data, pw.data(), pw.size());
  }
  *out = reinterpret_cast<sasl_secret_t *>(credentials->secret.data());
  return SASL_OK;
}

// Cyrus SASL stores every callback as int (*)(void) and calls it with its
// real type (through void (*)(void): the generic function pointer type).
using SaslFn = int (*)(void);
template <typename Fn>
SaslFn AsSaslCallback(Fn *fn) {
  return reinterpret_cast<SaslFn>(reinterpret_cast<void (*)()>(fn));
}
#endif  // HAVE_CYRUS_SASL_H

}  // namespace

SaslCredentials::~SaslCredentials() {
  WipeSecret(password);
  WipeBytes(secret);
}

#ifdef HAVE_CYRUS_SASL_H
bool SaslReady() {
  static const bool ok = sasl_client_init(nullptr) == SASL_OK;
  return ok;
}

void SetDigestMd5Callbacks(SaslCredentials *credentials, SaslCallbackList &list) {
  void *ctx = credentials;
  list[0] = {SASL_CB_GETREALM, AsSaslCallback(&SaslRealm), ctx};
  list[1] = {SASL_CB_USER, AsSaslCallback(&SaslUser), ctx};
  list[2] = {SASL_CB_AUTHNAME, AsSaslCallback(&SaslUser), ctx};
  list[3] = {SASL_CB_PASS, AsSaslCallback(&SaslPassword), ctx};
  list[4] = {SASL_CB_LIST_END, nullptr, nullptr};
}

void SetGssapiCallbacks(SaslCredentials *credentials, SaslCallbackList &list) {
  void *ctx = credentials;
  list[0] = {SASL_CB_USER, AsSaslCallback(&SaslUser), ctx};
  list[1] = {SASL_CB_LIST_END, nullptr, nullptr};
}
#endif  // HAVE_CYRUS_SASL_H

}  // namespace zkl
