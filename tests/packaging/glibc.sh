#!/usr/bin/env bash
# The Linux binary in dist/ runs on old distributions: no glibc symbol newer than 2.17
# (CentOS 7, manylinux2014), only libraries every Linux has, and the same bytes in the archive,
# the wheel and the npm package (one release build). Run after scripts/package.
# usage: tests/packaging/glibc.sh [TARGET]   (default x86_64-unknown-linux-gnu; the release
# workflow also checks aarch64-unknown-linux-gnu on an arm64 runner)
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAIL glibc: $*" >&2; exit 1; }
passed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
target=${1:-x86_64-unknown-linux-gnu}
dist=${VITAECONTEXT_DIST:-dist}
case $target in
  x86_64-unknown-linux-gnu) cpu=x64 wheel_arch=x86_64 loader='ld-linux-x86-64\.so\.2' ;;
  aarch64-unknown-linux-gnu) cpu=arm64 wheel_arch=aarch64 loader='ld-linux-aarch64\.so\.1' ;;
  *) fail "not a Linux target we ship: $target" ;;
esac

shopt -s nullglob
archives=("$dist"/vitaecontext-*-"$target".tar.gz)
[ ${#archives[@]} -eq 1 ] || fail "expected one $dist/vitaecontext-*-$target.tar.gz (run scripts/package first), found ${#archives[@]}"
name=$(basename "${archives[0]}" .tar.gz)
version=${name#vitaecontext-}
version=${version%-"$target"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "${archives[0]}" -C "$tmp"
bin=$tmp/$name/vitaecontext
[ -x "$bin" ] || fail "$name.tar.gz has no executable $name/vitaecontext"

echo "== objdump -T $name/vitaecontext: glibc symbol versions it needs"
versions=$(objdump -T "$bin" | grep -oE 'GLIBC_[0-9]+(\.[0-9]+)+' | sort -uV)
echo "$versions" | tr '\n' ' '; echo
highest=$(echo "$versions" | tail -n1)
[ -n "$highest" ] || fail "objdump -T found no GLIBC_ symbol versions"
# 2.17 sorts last of the two only when the highest is 2.17 or older.
[ "$(printf '%s\nGLIBC_2.17\n' "$highest" | sort -V | tail -n1)" = GLIBC_2.17 ] ||
  fail "needs $highest, newer than GLIBC_2.17"
ok "highest glibc symbol version $highest <= GLIBC_2.17"

echo "== ldd $name/vitaecontext"
ldd "$bin" | tee "$tmp/ldd"
! grep -q 'not found' "$tmp/ldd" || fail "a library is missing"
# The manylinux2014 list of libraries a wheel may assume (PEP 599), plus the loader and vDSO.
allowed='^(linux-vdso\.so\.1|(/lib64/|/lib/)?'"$loader"'|libc\.so\.6|libm\.so\.6|libdl\.so\.2|librt\.so\.1|libpthread\.so\.0|libgcc_s\.so\.1|libutil\.so\.1|libresolv\.so\.2|libnsl\.so\.1)$'
while read -r lib _; do
  [[ $lib =~ $allowed ]] || fail "links $lib, not a library every Linux has"
done < "$tmp/ldd"
ok "ldd: only system libraries"

echo "== $name/vitaecontext --version"
"$bin" --version | tee "$tmp/version"
[ "$(head -n1 "$tmp/version")" = "vitaecontext $version" ] || fail "first line is not 'vitaecontext $version'"
grep -qx "target $target" "$tmp/version" || fail "--version does not say 'target $target'"
ok "--version: vitaecontext $version, target $target"

echo "== one build: the archive, the wheel and the npm package carry the same binary"
want=$(sha256sum < "$bin")
wheels=("$dist"/vitaecontext-"$version"-*manylinux*"$wheel_arch"*.whl)
[ ${#wheels[@]} -eq 1 ] || fail "expected one manylinux $wheel_arch wheel in $dist/, found ${#wheels[@]}"
[ "$(unzip -p "${wheels[0]}" "vitaecontext-$version.data/scripts/vitaecontext" | sha256sum)" = "$want" ] ||
  fail "the wheel's binary differs from the archive's"
npm_tgz=$dist/vitaecontext-cli-linux-$cpu-$version.tgz
[ -f "$npm_tgz" ] || fail "no $npm_tgz"
[ "$(tar -xzOf "$npm_tgz" package/bin/vitaecontext | sha256sum)" = "$want" ] ||
  fail "the npm package's binary differs from the archive's"
ok "same sha256 in the archive, $(basename "${wheels[0]}") and $(basename "$npm_tgz")"
echo "glibc: $passed passed, 0 failed"
