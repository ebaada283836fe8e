//go:build !dynamic && linux && amd64

package zkl

// The default link on linux/amd64: libzkl_bundle.a (libzkl, its ZooKeeper C
// client and abseil in one static archive) and zkl.h, both shipped inside the
// released module under internal/lib/ (packaging/go/build.sh stages them; they
// are not in the repository). A program built this way needs no libzkl, no
// ZooKeeper client library and no abseil at build or run time; it loads only
// system libraries: OpenSSL 3, Cyrus SASL 2, libstdc++ and libc. They are
// named by soname (-l:lib….so.N) so that their -dev packages are not needed.
//
// From a source checkout (no archive staged) build with -tags dynamic.

// #cgo CFLAGS: -I${SRCDIR}/internal/lib/include
// #cgo LDFLAGS: ${SRCDIR}/internal/lib/linux_amd64/libzkl_bundle.a
// #cgo LDFLAGS: -l:libssl.so.3 -l:libcrypto.so.3 -l:libsasl2.so.2 -l:libstdc++.so.6 -lm -lpthread
import "C"

import (
	// Packages only so that `go mod vendor` keeps the header and archive.
	_ "github.com/zkl-project/zkl-go/internal/lib/include"
	_ "github.com/zkl-project/zkl-go/internal/lib/linux_amd64"
)
