#!/usr/bin/env python3
"""check-central.py [--require-signatures] REPO_OR_BUNDLE...

Checks a Maven upload against Maven Central's rules
(https://central.sonatype.org/publish/requirements/), for every component
(GROUP/ARTIFACT/VERSION directory holding a .pom) found under each argument:
a directory in Maven repository layout (packaging/java/build.sh's DIST/m2),
or the zip bundle the Central Portal takes (DIST/*-bundle.zip).

  coordinates  the directory path, the file names and the pom's groupId,
               artifactId and version agree; a release version (no SNAPSHOT)
  pom          modelVersion, groupId, artifactId, version, name, description,
               url, licenses (name, url), developers (id or name), scm
               (connection, developerConnection, url) and issueManagement (url)
               present and not empty; no ${property} left; no test, provided
               or system dependency; no build section, no profiles, no
               repositories (nothing of the development pom)
  jars         ARTIFACT-VERSION.jar, -sources.jar and -javadoc.jar present,
               valid zips, not empty: classes in the jar (and its manifest's
               Implementation-Version = VERSION, when it has one), .java files
               in -sources, index.html in -javadoc; a class in the jar has its
               source in -sources; no examples package in the jar
  checksums    .md5 and .sha1 (required) and .sha256 and .sha512 beside every
               jar and pom, each matching the file
  signatures   FILE.asc beside every jar and pom, verified with gpg (the
               keyring of GNUPGHOME); missing signatures fail only with
               --require-signatures (an unsigned build is normal without a
               key; Central refuses it)

Prints `ok`/`FAIL`/`note` lines and `check-central: N passed, M failed`;
exits 1 on any failure.
"""
import hashlib
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile

NS = "{http://maven.apache.org/POM/4.0.0}"
passed = 0
failed = 0


def ok(msg):
    global passed
    passed += 1
    print("ok   " + msg)


def bad(msg):
    global failed
    failed += 1
    print("FAIL " + msg)


def note(msg):
    print("note " + msg)


def text(el, path):
    found = el.find(path)
    return (found.text or "").strip() if found is not None else ""


def check_pom(pom_path, group, artifact, version):
    try:
        root = ET.parse(pom_path).getroot()
    except ET.ParseError as e:
        bad("%s: not XML: %s" % (pom_path, e))
        return None
    if root.tag != NS + "project":
        bad("%s: root element is %s, not a POM 4.0.0 project" % (pom_path, root.tag))
        return None
    name = os.path.basename(pom_path)
    missing = []
    for field in ["modelVersion", "groupId", "artifactId", "version", "name",
                  "description", "url"]:
        if not text(root, NS + field):
            missing.append(field)
    licenses = root.findall(NS + "licenses/" + NS + "license")
    if not licenses:
        missing.append("licenses")
    for i, lic in enumerate(licenses):
        for field in ["name", "url"]:
            if not text(lic, NS + field):
                missing.append("licenses/license[%d]/%s" % (i, field))
    devs = root.findall(NS + "developers/" + NS + "developer")
    if not devs:
        missing.append("developers")
    for i, dev in enumerate(devs):
        if not (text(dev, NS + "id") or text(dev, NS + "name")):
            missing.append("developers/developer[%d]/(id|name)" % i)
    for field in ["connection", "developerConnection", "url"]:
        if not text(root, NS + "scm/" + NS + field):
            missing.append("scm/" + field)
    if not text(root, NS + "issueManagement/" + NS + "url"):
        missing.append("issueManagement/url")
    if missing:
        bad("%s: missing or empty: %s" % (name, ", ".join(missing)))
    else:
        ok("%s: name, description, url, %d license(s), %d developer(s), scm, issueManagement"
           % (name, len(licenses), len(devs)))
    got = (text(root, NS + "groupId"), text(root, NS + "artifactId"), text(root, NS + "version"))
    if got == (group, artifact, version):
        ok("%s: coordinates %s:%s:%s match the repository path" % (name, group, artifact, version))
    else:
        bad("%s: pom says %s, the path says %s:%s:%s" % (name, ":".join(got), group, artifact, version))
    if version.endswith("-SNAPSHOT"):
        bad("%s: a SNAPSHOT version cannot be released" % name)
    with open(pom_path, encoding="utf-8") as f:
        raw = f.read()
    if "${" in raw:
        i = raw.index("${")
        bad("%s: refers to a property nothing defines for a user: %s" % (name, raw[i:raw.find("}", i) + 1]))
    extra = [t for t in ["build", "profiles", "repositories", "pluginRepositories"]
             if root.find(NS + t) is not None]
    bad_deps = []
    for d in root.findall(NS + "dependencies/" + NS + "dependency"):
        scope = text(d, NS + "scope") or "compile"
        if scope not in ("compile", "runtime"):
            bad_deps.append("%s:%s (%s)" % (text(d, NS + "groupId"), text(d, NS + "artifactId"), scope))
    if extra or bad_deps:
        bad("%s: carries the development pom's %s" % (name, ", ".join(
            ["<%s>" % t for t in extra] + ["dependency " + d for d in bad_deps])))
    else:
        ndeps = len(root.findall(NS + "dependencies/" + NS + "dependency"))
        ok("%s: no build section, no profiles, %d dependencies, none test/provided/system"
           % (name, ndeps))
    return (text(root, NS + "packaging") or "jar")


def check_jars(d, artifact, version):
    base = os.path.join(d, "%s-%s" % (artifact, version))
    jars = {}
    for kind in ["", "-sources", "-javadoc"]:
        path = base + kind + ".jar"
        label = os.path.basename(path)
        if not os.path.isfile(path):
            bad("%s: missing" % label)
            continue
        try:
            with zipfile.ZipFile(path) as z:
                broken = z.testzip()
                names = z.namelist()
                manifest = z.read("META-INF/MANIFEST.MF").decode("utf-8", "replace") \
                    if "META-INF/MANIFEST.MF" in names else ""
        except zipfile.BadZipFile as e:
            bad("%s: not a zip: %s" % (label, e))
            continue
        if broken:
            bad("%s: corrupt entry %s" % (label, broken))
            continue
        jars[kind] = (label, names, manifest)
    if "" in jars:
        label, names, manifest = jars[""]
        classes = [n for n in names if n.endswith(".class")]
        examples = [n for n in names if "/examples/" in n]
        if not classes:
            bad("%s: no classes" % label)
        elif examples:
            bad("%s: ships examples: %s" % (label, ", ".join(examples[:3])))
        else:
            ok("%s: %d classes, %d other files, no examples" % (label, len(classes), len(names) - len(classes)))
        impl = [l.split(":", 1)[1].strip() for l in manifest.splitlines()
                if l.startswith("Implementation-Version:")]
        if impl and impl[0] != version:
            bad("%s: manifest Implementation-Version %s, not %s" % (label, impl[0], version))
        elif impl:
            ok("%s: manifest Implementation-Version %s" % (label, version))
    if "-sources" in jars:
        label, names, _ = jars["-sources"]
        sources = set(n for n in names if n.endswith(".java"))
        if not sources:
            bad("%s: no .java files" % label)
        else:
            ok("%s: %d .java files" % (label, len(sources)))
            if "" in jars:
                top = set(n[:-len(".class")].split("$")[0] + ".java"
                          for n in jars[""][1] if n.endswith(".class"))
                lacking = sorted(top - sources)
                if lacking:
                    bad("%s: no source for %s" % (label, ", ".join(lacking[:5])))
                else:
                    ok("%s: the source of every class of the jar" % label)
    if "-javadoc" in jars:
        label, names, _ = jars["-javadoc"]
        pages = [n for n in names if n.endswith(".html")]
        if "index.html" in names and len(pages) > 1:
            ok("%s: index.html and %d pages" % (label, len(pages)))
        else:
            bad("%s: no index.html or no pages" % label)


def check_files(d, require_signatures):
    primaries = sorted(f for f in os.listdir(d)
                       if f.endswith(".jar") or f.endswith(".pom"))
    unsigned = []
    for f in primaries:
        path = os.path.join(d, f)
        with open(path, "rb") as fh:
            data = fh.read()
        sums = []
        for algo in ["md5", "sha1", "sha256", "sha512"]:
            sp = path + "." + algo
            if not os.path.isfile(sp):
                bad("%s.%s: missing" % (f, algo))
                continue
            with open(sp, encoding="ascii", errors="replace") as fh:
                words = fh.read().split()
            want = hashlib.new(algo, data).hexdigest()
            if not words or words[0].lower() != want:
                bad("%s.%s: does not match the file" % (f, algo))
            else:
                sums.append(algo)
        if len(sums) == 4:
            ok("%s: md5, sha1, sha256, sha512 match" % f)
        asc = path + ".asc"
        if not os.path.isfile(asc):
            unsigned.append(f)
            continue
        r = subprocess.run(["gpg", "--batch", "--status-fd", "1", "--verify", asc, path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        good = [l for l in r.stdout.splitlines() if l.startswith("[GNUPG:] VALIDSIG ")]
        if r.returncode == 0 and good:
            ok("%s.asc: good signature, key %s" % (f, good[0].split()[2]))
        else:
            bad("%s.asc: does not verify: %s" % (f, " / ".join(
                l for l in r.stdout.splitlines() if not l.startswith("[GNUPG:]"))))
    if unsigned:
        msg = "not signed (no .asc): %s" % ", ".join(unsigned)
        if require_signatures:
            bad(msg)
        else:
            note(msg + " -- Central refuses unsigned files; set ZKL_GPG_KEY_ID")
    stray = sorted(f for f in os.listdir(d) if f.endswith(".asc.md5") or f.endswith(".asc.sha1"))
    if stray:
        note("checksums of signatures (not needed): %s" % ", ".join(stray))


def components(top):
    for dirpath, _, files in os.walk(top):
        for f in files:
            if f.endswith(".pom"):
                rel = os.path.relpath(dirpath, top).split(os.sep)
                if len(rel) < 3:
                    bad("%s: not in GROUP/ARTIFACT/VERSION layout" % os.path.join(dirpath, f))
                    continue
                yield dirpath, ".".join(rel[:-2]), rel[-2], rel[-1], f


def check_tree(top, require_signatures):
    found = 0
    for d, group, artifact, version, pom in components(top):
        found += 1
        print("--- %s:%s:%s" % (group, artifact, version))
        if pom != "%s-%s.pom" % (artifact, version):
            bad("%s: named for another artifact or version than its directory" % pom)
            continue
        others = [f for f in os.listdir(d) if not f.startswith("%s-%s" % (artifact, version))
                  and not f.startswith("maven-metadata") and f != "_remote.repositories"]
        if others:
            bad("files of another artifact or version: %s" % ", ".join(sorted(others)))
        packaging = check_pom(os.path.join(d, pom), group, artifact, version)
        if packaging == "jar":
            check_jars(d, artifact, version)
        check_files(d, require_signatures)
    if not found:
        bad("%s: no component (GROUP/ARTIFACT/VERSION/ARTIFACT-VERSION.pom)" % top)


def main():
    args = sys.argv[1:]
    require = "--require-signatures" in args
    args = [a for a in args if a != "--require-signatures"]
    if not args:
        sys.exit(__doc__)
    for arg in args:
        print("=== " + arg)
        if os.path.isfile(arg) and arg.endswith(".zip"):
            with tempfile.TemporaryDirectory() as tmp:
                with zipfile.ZipFile(arg) as z:
                    for n in z.namelist():
                        if n.startswith("/") or ".." in n.split("/"):
                            bad("%s: unsafe entry %s" % (arg, n))
                            break
                    else:
                        z.extractall(tmp)
                        check_tree(tmp, require)
        elif os.path.isdir(arg):
            check_tree(arg, require)
        else:
            bad("%s: neither a directory nor a .zip" % arg)
    print("check-central: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
