//go:build dynamic || !(linux && amd64)

package zkl

// With -tags dynamic (and on platforms without a bundled archive) the
// package links an installed libzkl found by pkg-config (zkl.pc; its rpath
// lets the program find libzkl.so.1 without LD_LIBRARY_PATH). The binding's
// own tests (bindings/go/test.sh) build this way.

// #cgo pkg-config: zkl
import "C"
