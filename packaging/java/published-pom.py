#!/usr/bin/env python3
"""published-pom.py DEV_POM OUT: the pom that goes to Maven Central.

bindings/java/pom.xml is the development pom: test dependencies (JUnit,
Curator), the exec plugin that runs native/build.sh, build-helper, profiles.
None of that concerns a user of io.zkl:zkl-java. The published pom keeps the
coordinates, the metadata Central requires (name, description, url,
licenses, developers, scm) plus issueManagement, and the dependencies a user
needs at run time (compile/runtime scope; none today). It must not refer to
a property (${...}): nothing defines them for a user.
"""
import sys
import xml.etree.ElementTree as ET

NS = "http://maven.apache.org/POM/4.0.0"
KEEP = ["modelVersion", "groupId", "artifactId", "version", "packaging", "name",
        "description", "url", "inceptionYear", "organization", "licenses",
        "developers", "scm", "issueManagement"]


def q(tag):
    return "{%s}%s" % (NS, tag)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: published-pom.py DEV_POM OUT")
    dev = ET.parse(sys.argv[1]).getroot()
    ET.register_namespace("", NS)
    out = ET.Element(q("project"))
    out.set("{http://www.w3.org/2001/XMLSchema-instance}schemaLocation",
            NS + " https://maven.apache.org/xsd/maven-4.0.0.xsd")
    for tag in KEEP:
        el = dev.find(q(tag))
        if el is not None:
            out.append(el)
    deps = dev.find(q("dependencies"))
    if deps is not None:
        kept = ET.Element(q("dependencies"))
        for d in deps.findall(q("dependency")):
            scope = (d.findtext(q("scope")) or "compile").strip()
            if scope in ("compile", "runtime"):
                kept.append(d)
        if len(kept):
            out.append(kept)
    ET.indent(out, space="  ")
    text = ET.tostring(out, encoding="unicode")
    if "${" in text:
        sys.exit("published-pom.py: the published pom would refer to a property: "
                 + text[text.index("${"):].split("}", 1)[0] + "}")
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write("<!-- io.zkl:zkl-java, published form of bindings/java/pom.xml"
                " (packaging/java/published-pom.py) -->\n")
        f.write(text + "\n")


if __name__ == "__main__":
    main()
