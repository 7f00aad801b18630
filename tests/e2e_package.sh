#!/usr/bin/env bash
# The Debian package is one Debian would take (README "Install"):
#   - `cpack -G DEB` makes it, and lintian finds no error and no warning in
#     it (`lintian --fail-on error,warning`, and no E: or W: line);
#   - its Maintainer is the build's VKRR_MAINTAINER, its copyright file is
#     machine-readable and names the licence, its changelog.gz is Debian's
#     changelog whose newest entry is the package's version;
#   - installed with dpkg -i (into a root of its own, not this machine's),
#     `man vkrr` and `man vkrr-validate` open, and the bash and zsh completion
#     are where those shells look.
# Usage: e2e_package.sh VKRR_BIN WORKDIR
set -euo pipefail
bin=$(readlink -f "$1")
WORK=$2
VKRR=$bin
build=$(dirname "$bin")
rm -rf "$WORK"
mkdir -p "$WORK"
source "$(dirname "$0")/e2e-lib.sh"
fail() { echo "e2e_package: FAIL: $*" >&2; exit 1; }
command -v lintian >/dev/null || e2e_skip lintian "no lintian to check the package with"
command -v man >/dev/null || e2e_skip man "no man (man-db) to open the installed pages with"

(cd "$WORK" && cpack -G DEB -B "$WORK/pkg" --config "$build/CPackConfig.cmake" >"$WORK/cpack.txt" 2>&1) ||
  fail "cpack -G DEB: $(cat "$WORK/cpack.txt")"
deb=$(ls "$WORK/pkg/"*.deb)

rc=0
lintian --fail-on error,warning "$deb" >"$WORK/lintian.txt" 2>&1 || rc=$?
cat "$WORK/lintian.txt"
[ $rc -eq 0 ] || fail "lintian exit $rc"
! grep -E '^[EW]: ' "$WORK/lintian.txt" || fail "lintian reports errors or warnings (above)"
echo "lintian: no error, no warning"

maint=$(sed -n 's/^VKRR_MAINTAINER:STRING=//p' "$build/CMakeCache.txt")
[ -n "$maint" ] || fail "no VKRR_MAINTAINER in $build/CMakeCache.txt"
[ "$(dpkg-deb -f "$deb" Maintainer)" = "$maint" ] ||
  fail "Maintainer '$(dpkg-deb -f "$deb" Maintainer)' is not VKRR_MAINTAINER '$maint'"
version=$(dpkg-deb -f "$deb" Version)

# dpkg -i into $WORK/root: an empty dpkg database of its own, the package's
# dependencies taken as present (they are, on this machine)
root=$WORK/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-not-root --force-depends -i "$deb" >"$WORK/dpkg.txt" 2>&1 ||
  fail "dpkg -i: $(cat "$WORK/dpkg.txt")"
dpkg --root="$root" -L vkrr >"$WORK/files.txt"
for f in /usr/bin/vkrr /usr/share/man/man1/vkrr.1.gz /usr/share/man/man1/vkrr-validate.1.gz \
         /usr/share/bash-completion/completions/vkrr /usr/share/zsh/vendor-completions/_vkrr \
         /usr/share/doc/vkrr/copyright /usr/share/doc/vkrr/changelog.gz; do
  grep -qxF "$f" "$WORK/files.txt" || fail "dpkg -L vkrr has no $f"
  [ -f "$root$f" ] || fail "dpkg -i did not install $f"
done

doc=$root/usr/share/doc/vkrr
head -1 "$doc/copyright" | grep -qxF "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ||
  fail "copyright is not machine-readable: $(head -1 "$doc/copyright")"
grep -qx "License: [A-Za-z].*" "$doc/copyright" || fail "copyright names no licence"
zcat "$doc/changelog.gz" | head -1 | grep -q "^vkrr ($version) " ||
  fail "changelog.gz's newest entry is not $version: $(zcat "$doc/changelog.gz" | head -1)"

for page in vkrr vkrr-validate; do
  MANPATH=$root/usr/share/man MANWIDTH=80 man "$page" >"$WORK/$page.txt" 2>&1 ||
    fail "man $page: $(cat "$WORK/$page.txt")"
  grep -q "^ *$page - [a-z]" "$WORK/$page.txt" || fail "man $page: no NAME line: $(head -5 "$WORK/$page.txt")"
done
grep -q -- "--mode isolated|chained|both" "$WORK/vkrr-validate.txt" || fail "man vkrr-validate has no --mode"
echo "dpkg -i: man vkrr and man vkrr-validate open; completion in bash's and zsh's folders"
echo "e2e_package: PASS"
