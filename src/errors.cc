// zkl_strerror: the text of every ZKL_E* code.
#include "zkl.h"

extern "C" const char *zkl_strerror(int err) {
  switch (err) {
    case ZKL_OK: return "success";
    case ZKL_EINVAL: return "invalid argument";
    case ZKL_EBADPATH: return "invalid ZooKeeper path";
    case ZKL_EBADHANDLE: return "invalid, destroyed or unknown handle";
    case ZKL_ETIMEDOUT: return "timed out";
    case ZKL_EAGAIN: return "not available now (try again)";
    case ZKL_ECANCELED: return "cancelled";
    case ZKL_ENOTHELD: return "not held";
    case ZKL_ENOTOWNER: return "lock is held by another owner";
    case ZKL_EBUSY: return "handle is busy (acquire pending or other owner)";
    case ZKL_EDEADLK: return "already held by this owner (lock is not reentrant)";
    case ZKL_ECLOSED: return "client is closed";
    case ZKL_ECONNECTION: return "no connection to ZooKeeper";
    case ZKL_ESESSION: return "ZooKeeper session lost";
    case ZKL_ELOST: return "lock lost";
    case ZKL_EMISMATCH: return "participants disagree (lease count)";
    case ZKL_EAUTH: return "authentication failed or not permitted";
    case ZKL_ETOOBIG: return "data too large (over 1 MiB)";
    case ZKL_ENOMEM: return "out of memory";
    case ZKL_EZOOKEEPER: return "unexpected ZooKeeper error";
    case ZKL_EVERSION: return "options version not supported";
    case ZKL_ENOTFOUND: return "not found";
    case ZKL_EINTERNAL: return "internal error in zkl";
    case ZKL_ERANGE: return "out of range";
    case ZKL_ENOTSUP: return "not supported (by this build, the server, or this combination of options)";
    case ZKL_EMAXHOLD: return "maximum hold time passed: released";
    case ZKL_EREVOKED: return "released on a revocation request";
    case ZKL_ETLS: return "TLS handshake failed (is the server's port a TLS port?)";
    case ZKL_ECERT: return "server certificate not trusted, or TLS files unreadable";
    case ZKL_EHOSTNAME: return "server certificate does not name the host";
    case ZKL_ECLIENTCERT: return "server requires a client certificate, or rejected it";
    case ZKL_EPROTOCOL: return "server broke off the session handshake (a TLS port?)";
    case ZKL_EEXISTS: return "node exists";
    case ZKL_EBADVERSION: return "node version mismatch";
    case ZKL_ENOTEMPTY: return "node has children";
    case ZKL_ESTALE: return "fencing token is not the current holder's";
    case ZKL_EINDOUBT: return "connection lost during the write: it may or may not have been applied";
    default: return "unknown zkl error";
  }
}
