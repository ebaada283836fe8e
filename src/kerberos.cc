#include "kerberos.h"

#ifdef ZKL_HAVE_KRB5
#include <dlfcn.h>
#include <krb5.h>
#include <gssapi/gssapi_krb5.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <type_traits>
#endif

namespace zkl {

#ifdef ZKL_HAVE_KRB5
namespace {

// The MIT krb5 functions zkl calls, loaded once.
struct Krb5Api {
  decltype(&krb5_init_context) init_context;
  decltype(&krb5_free_context) free_context;
  decltype(&krb5_parse_name) parse_name;
  decltype(&krb5_free_principal) free_principal;
  decltype(&krb5_kt_resolve) kt_resolve;
  decltype(&krb5_kt_close) kt_close;
  decltype(&krb5_get_init_creds_keytab) get_init_creds_keytab;
  decltype(&krb5_free_cred_contents) free_cred_contents;
  decltype(&krb5_cc_new_unique) cc_new_unique;
  decltype(&krb5_cc_get_name) cc_get_name;
  decltype(&krb5_cc_initialize) cc_initialize;
  decltype(&krb5_cc_store_cred) cc_store_cred;
  decltype(&krb5_cc_destroy) cc_destroy;
  decltype(&krb5_get_error_message) get_error_message;
  decltype(&krb5_free_error_message) free_error_message;
  decltype(&gss_krb5_ccache_name) gss_ccache_name;

  static const Krb5Api *Get() {
    static const Krb5Api *api = [] () -> const Krb5Api * {
      void *k = dlopen("libkrb5.so.3", RTLD_NOW | RTLD_LOCAL);
      void *g = dlopen("libgssapi_krb5.so.2", RTLD_NOW | RTLD_LOCAL);
      if (k == nullptr || g == nullptr) return nullptr;
      static Krb5Api a;
      bool ok = true;
      auto load = [&](void *lib, const char *name, auto *fn) {
        void *sym = dlsym(lib, name);
        if (sym == nullptr) ok = false;
        *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(sym);
      };
      load(k, "krb5_init_context", &a.init_context);
      load(k, "krb5_free_context", &a.free_context);
      load(k, "krb5_parse_name", &a.parse_name);
      load(k, "krb5_free_principal", &a.free_principal);
      load(k, "krb5_kt_resolve", &a.kt_resolve);
      load(k, "krb5_kt_close", &a.kt_close);
      load(k, "krb5_get_init_creds_keytab", &a.get_init_creds_keytab);
      load(k, "krb5_free_cred_contents", &a.free_cred_contents);
      load(k, "krb5_cc_new_unique", &a.cc_new_unique);
      load(k, "krb5_cc_get_name", &a.cc_get_name);
      load(k, "krb5_cc_initialize", &a.cc_initialize);
      load(k, "krb5_cc_store_cred", &a.cc_store_cred);
      load(k, "krb5_cc_destroy", &a.cc_destroy);
      load(k, "krb5_get_error_message", &a.get_error_message);
      load(k, "krb5_free_error_message", &a.free_error_message);
      load(g, "gss_krb5_ccache_name", &a.gss_ccache_name);
      return ok ? &a : nullptr;
    }();
    return api;
  }
};

}  // namespace
#endif  // ZKL_HAVE_KRB5

struct KeytabTicket::State {
#ifdef ZKL_HAVE_KRB5
  const Krb5Api *api = nullptr;
  krb5_context ctx = nullptr;
  krb5_ccache cache = nullptr;
  std::string principal, keytab;
  time_t refresh_at = 0;  // get a new ticket after this (0: none yet)
  bool failed = false;    // the keytab gave no ticket: reported once

  ~State() {
    if (cache != nullptr) api->cc_destroy(ctx, cache);  // the tickets go with it
    if (ctx != nullptr) api->free_context(ctx);
  }

  std::string Message(krb5_error_code code) {
    const char *m = api->get_error_message(ctx, code);
    std::string out = m ? m : "unknown Kerberos error";
    api->free_error_message(ctx, m);
    return out;
  }

  // A ticket-granting ticket for `principal` from `keytab`, into `cache`.
  // Empty on success, else why not (no key material in it).
  std::string Refresh() {
    krb5_principal client = nullptr;
    krb5_keytab kt = nullptr;
    krb5_creds creds;
    std::memset(&creds, 0, sizeof creds);
    krb5_error_code code = api->parse_name(ctx, principal.c_str(), &client);
    const char *step = "principal";
    if (code == 0) {
      step = "keytab";
      code = api->kt_resolve(ctx, keytab.c_str(), &kt);
    }
    if (code == 0) {
      step = "initial credentials";
      code = api->get_init_creds_keytab(ctx, &creds, client, kt, 0, nullptr, nullptr);
    }
    if (code == 0) {
      step = "credential cache";
      code = api->cc_initialize(ctx, cache, client);
      if (code == 0) code = api->cc_store_cred(ctx, cache, &creds);
    }
    std::string why;
    if (code == 0) {
      // Renew at half the ticket's life (at least a minute from now).
      time_t now = std::time(nullptr);
      time_t end = static_cast<time_t>(creds.times.endtime);
      refresh_at = std::max(now + 60, now + (end - now) / 2);
    } else {
      why = std::string(step) + ": " + Message(code);
    }
    if (creds.client != nullptr) api->free_cred_contents(ctx, &creds);
    if (kt != nullptr) api->kt_close(ctx, kt);
    if (client != nullptr) api->free_principal(ctx, client);
    return why;
  }
#endif
};

bool GssapiAvailable() {
#ifdef ZKL_HAVE_KRB5
  return Krb5Api::Get() != nullptr;
#else
  return false;
#endif
}

KeytabTicket::KeytabTicket(std::unique_ptr<State> state) : state_(std::move(state)) {}

KeytabTicket::~KeytabTicket() = default;

std::unique_ptr<KeytabTicket> KeytabTicket::Create(const std::string &principal,
                                                   const std::string &keytab) {
#ifdef ZKL_HAVE_KRB5
  const Krb5Api *api = Krb5Api::Get();
  if (api == nullptr) return nullptr;
  auto s = std::make_unique<State>();
  s->api = api;
  s->principal = principal;
  s->keytab = keytab;
  krb5_error_code code = api->init_context(&s->ctx);
  if (code == 0) code = api->cc_new_unique(s->ctx, "MEMORY", nullptr, &s->cache);
  if (code != 0) return nullptr;
  std::string ccache_name = std::string("MEMORY:") + api->cc_get_name(s->ctx, s->cache);
  std::unique_ptr<KeytabTicket> ticket(new KeytabTicket(std::move(s)));
  ticket->ccache_name_ = std::move(ccache_name);
  return ticket;
#else
  (void)principal;
  (void)keytab;
  return nullptr;
#endif
}

KeytabTicket::Outcome KeytabTicket::RefreshIfDue() {
  Outcome out;
#ifdef ZKL_HAVE_KRB5
  State *k = state_.get();
  if (k->failed) return out;
  if (k->refresh_at != 0 && std::time(nullptr) < k->refresh_at) return out;
  bool first = k->refresh_at == 0;
  std::string why = k->Refresh();
  if (why.empty()) return out;
  if (!first) {
    // Keep the ticket we have (it is still valid) and try again shortly.
    k->refresh_at = std::time(nullptr) + 30;
    out.kind = Outcome::kRenewFailed;
    out.message = "Kerberos: cannot renew the ticket of " + k->principal + " from its keytab (" +
                  why + ")";
    return out;
  }
  k->failed = true;
  out.kind = Outcome::kNoTicket;
  out.message = "Kerberos: no ticket for " + k->principal + " from keytab " + k->keytab + " (" +
                why + ")";
#endif
  return out;
}

ThreadCredentialCache::ThreadCredentialCache(const std::string &ccache_name) {
#ifdef ZKL_HAVE_KRB5
  if (ccache_name.empty()) return;
  const Krb5Api *api = Krb5Api::Get();
  if (api == nullptr) return;
  OM_uint32 minor = 0;
  const char *old = nullptr;
  if (api->gss_ccache_name(&minor, ccache_name.c_str(), &old) != GSS_S_COMPLETE) return;
  set_ = true;
  had_old_ = old != nullptr;
  if (old) old_ = old;
#else
  (void)ccache_name;
#endif
}

ThreadCredentialCache::~ThreadCredentialCache() {
#ifdef ZKL_HAVE_KRB5
  if (!set_) return;
  OM_uint32 minor = 0;
  Krb5Api::Get()->gss_ccache_name(&minor, had_old_ ? old_.c_str() : nullptr, nullptr);
#endif
}

}  // namespace zkl
