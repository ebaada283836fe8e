// Package linux_amd64 holds libzkl_bundle.a for link_static.go (staged by
// packaging/go/build.sh). It is a package, imported for its side effect of
// nothing, so that `go mod vendor` copies this directory with the archive.
package linux_amd64
