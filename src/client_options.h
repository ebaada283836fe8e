// The checks of zkl_client_options, all in one place: zkl_client_new,
// zkl_client_create and zkl_client_options_check run the same ones. Each
// failure comes with a message for people that names the option by its C
// field name and says why; messages never carry a secret (digest_auth,
// sasl_password, tls_key_password).
#pragma once

#include <string>
#include <string_view>

#include "zkl.h"

namespace zkl {

// ZKL_OK, or the code zkl_client_new returns for these options (ZKL_EINVAL,
// ZKL_EVERSION, ZKL_EBADPATH, ZKL_ENOTSUP, ZKL_ECERT) with *why set to the
// message (why may be NULL). Reads the TLS files; connects nowhere.
int CheckClientOptions(const zkl_client_options &opts, std::string *why);

// The TLS files of `opts` (tls_ca_file set; the combinations already
// checked), read as the ZooKeeper client will read them: the CA bundle, the
// client certificate chain, and its key from tls_key_file or else from
// tls_cert_file, decrypted with tls_key_password, matching the certificate.
// ZKL_OK, or ZKL_ECERT with *why naming the option, the path and the reason
// (tls_files.cc).
int CheckTlsFiles(const zkl_client_options &opts, std::string *why);

// `s` as a message shows a value given by the caller: control and non-ASCII
// bytes escaped (\xNN), cut after `max` bytes with "...".
std::string Printable(std::string_view s, size_t max = 4096);

}  // namespace zkl
