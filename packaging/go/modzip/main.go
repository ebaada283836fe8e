// modzip writes one version of a Go module into a module proxy directory
// (the GOPROXY file layout), standard library only:
//
//	go run ./modzip -dir MODULE_DIR -version vX.Y.Z -time RFC3339 PROXY_DIR
//
// It writes PROXY_DIR/MODULE/@v/{VERSION.info,VERSION.mod,VERSION.zip} and
// rewrites @v/list, and prints the zip's path and its h1: hash (the go.sum
// line). The zip follows golang.org/x/mod/zip: every entry is
// MODULE@VERSION/PATH; no directories, symbolic links or other non-regular
// files; no file of a nested module (a subdirectory with its own go.mod); no
// vendor/ directory; no VCS directories; no two paths equal ignoring case;
// size limits of the Go command (zip 500 MiB, go.mod 16 MiB, LICENSE 16 MiB).
// The module path comes from DIR/go.mod and is case-encoded for the path.
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
)

const (
	maxZip    = 500 << 20
	maxGoMod  = 16 << 20
	maxLicens = 16 << 20
)

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "modzip: "+format+"\n", a...)
	os.Exit(1)
}

// escape is the module proxy's case encoding: upper-case letters become
// '!' and the lower-case letter.
func escape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var modulePathRE = regexp.MustCompile(`(?m)^module\s+"?([^"\s]+)"?\s*$`)
var semverRE = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)
var validElem = regexp.MustCompile(`^[A-Za-z0-9._+~@#$%&()\-,=\[\]{}^' !;]+$`)

func main() {
	dir := flag.String("dir", "", "module root (has go.mod)")
	version := flag.String("version", "", "module version, e.g. v0.2.0")
	stamp := flag.String("time", "", "version time, RFC 3339 (the .info Time)")
	flag.Parse()
	if *dir == "" || *version == "" || *stamp == "" || flag.NArg() != 1 {
		fail("usage: modzip -dir DIR -version vX.Y.Z -time RFC3339 PROXY_DIR")
	}
	proxy := flag.Arg(0)
	if !semverRE.MatchString(*version) {
		fail("%q is not a semantic version vX.Y.Z", *version)
	}
	t, err := time.Parse(time.RFC3339, *stamp)
	if err != nil {
		fail("-time: %v", err)
	}
	goMod, err := os.ReadFile(filepath.Join(*dir, "go.mod"))
	if err != nil {
		fail("%v", err)
	}
	if len(goMod) > maxGoMod {
		fail("go.mod is larger than 16 MiB")
	}
	m := modulePathRE.FindSubmatch(goMod)
	if m == nil {
		fail("no module line in %s/go.mod", *dir)
	}
	mod := string(m[1])
	if major := strings.Split(strings.TrimPrefix(*version, "v"), ".")[0]; major != "0" && major != "1" &&
		!strings.HasSuffix(mod, "/v"+major) {
		fail("version %s needs the module path to end in /v%s", *version, major)
	}

	// The files, by the rules of golang.org/x/mod/zip.CreateFromDir.
	var files []string
	err = filepath.WalkDir(*dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(*dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			switch d.Name() {
			case ".bzr", ".git", ".hg", ".svn", "vendor":
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file (links are not allowed in a module zip)", rel)
		}
		for _, e := range strings.Split(rel, "/") {
			if !validElem.MatchString(e) || strings.HasPrefix(e, "-") || strings.HasSuffix(e, ".") && e != "." {
				return fmt.Errorf("%s: not a valid path in a module zip", rel)
			}
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		fail("%v", err)
	}
	sort.Strings(files)
	seen := map[string]string{}
	for _, f := range files {
		if prev, ok := seen[strings.ToLower(f)]; ok {
			fail("%s and %s differ only in case", prev, f)
		}
		seen[strings.ToLower(f)] = f
	}

	prefix := mod + "@" + *version + "/"
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	var sums []string // the h1: hash (golang.org/x/mod/sumdb/dirhash.Hash1)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(*dir, filepath.FromSlash(f)))
		if err != nil {
			fail("%v", err)
		}
		if f == "LICENSE" && len(data) > maxLicens {
			fail("LICENSE is larger than 16 MiB")
		}
		w, err := zw.Create(prefix + f)
		if err != nil {
			fail("%v", err)
		}
		if _, err := w.Write(data); err != nil {
			fail("%v", err)
		}
		sums = append(sums, fmt.Sprintf("%x  %s\n", sha256.Sum256(data), prefix+f))
	}
	if err := zw.Close(); err != nil {
		fail("%v", err)
	}
	if zbuf.Len() > maxZip {
		fail("module zip is larger than 500 MiB")
	}
	sort.Strings(sums)
	h := sha256.New()
	for _, s := range sums {
		io.WriteString(h, s)
	}
	h1 := "h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil))

	vdir := filepath.Join(proxy, filepath.FromSlash(escape(mod)), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		fail("%v", err)
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    string
	}{*version, t.UTC().Format(time.RFC3339)})
	ev := escape(*version)
	write := func(name string, data []byte) {
		tmp := filepath.Join(vdir, "."+name+".tmp")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			fail("%v", err)
		}
		if err := os.Rename(tmp, filepath.Join(vdir, name)); err != nil {
			fail("%v", err)
		}
	}
	write(ev+".info", append(info, '\n'))
	write(ev+".mod", goMod)
	write(ev+".zip", zbuf.Bytes())

	// list: every version with an .info here, one a line.
	entries, err := os.ReadDir(vdir)
	if err != nil {
		fail("%v", err)
	}
	var list bytes.Buffer
	bw := bufio.NewWriter(&list)
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".info") && !strings.HasPrefix(n, ".") {
			fmt.Fprintln(bw, strings.TrimSuffix(n, ".info"))
		}
	}
	bw.Flush()
	write("list", list.Bytes())
	fmt.Printf("%s %s\n", path.Join(filepath.ToSlash(vdir), ev+".zip"), h1)
}
