// Package include holds zkl.h for link_static.go (staged by
// packaging/go/build.sh). It is a package, imported for its side effect of
// nothing, so that `go mod vendor` copies this directory with the header.
package include
