#!/usr/bin/env bash
# packaging/java/seal.sh DIR: signs and checksums every file of one Maven
# component directory (DIR = REPO/io/zkl/zkl-java/VERSION), as Maven Central
# requires of an upload:
#   FILE.asc                              an armored detached OpenPGP signature,
#                                         when ZKL_GPG_KEY_ID names a key
#                                         (gpg; ZKL_GPG_PASSPHRASE if it has one;
#                                         GNUPGHOME as usual)
#   FILE.md5 .sha1 .sha256 .sha512        the hex digest alone, as Maven writes it
# for FILE = each jar and the pom. Signatures and checksum files get neither
# (Central asks for none). Old .asc/checksum files in DIR are removed first,
# so a re-run never leaves a stale one.
set -euo pipefail
dir=${1:?usage: packaging/java/seal.sh COMPONENT_DIR}
cd "$dir"
rm -f ./*.asc ./*.md5 ./*.sha1 ./*.sha256 ./*.sha512
shopt -s nullglob
files=(./*.jar ./*.pom)
[ ${#files[@]} -gt 0 ] || { echo "seal.sh: no jar or pom in $dir" >&2; exit 1; }
for f in "${files[@]}"; do
  f=${f#./}
  if [ -n "${ZKL_GPG_KEY_ID:-}" ]; then
    gpg=(gpg --batch --yes --quiet --local-user "$ZKL_GPG_KEY_ID" --armor --detach-sign --output "$f.asc")
    if [ -n "${ZKL_GPG_PASSPHRASE:-}" ]; then
      "${gpg[@]}" --pinentry-mode loopback --passphrase-fd 3 "$f" 3<<<"$ZKL_GPG_PASSPHRASE"
    else
      "${gpg[@]}" "$f"
    fi
  fi
  for algo in md5 sha1 sha256 sha512; do
    "${algo}sum" "$f" | cut -d' ' -f1 | tr -d '\n' >"$f.$algo"
  done
done
