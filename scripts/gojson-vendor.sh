#!/usr/bin/env bash
# Rebuilds third_party/go-json: the packages of github.com/goccy/go-json v0.10.5 (no tests, nor
# its code generator), from the module cache, with third_party/go-json.patch applied. go.mod
# replaces the module with that folder; see third_party/README.md for what the patch changes.
#
#   bash scripts/gojson-vendor.sh           # after changing the patch
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/goccy/go-json
ver=v0.10.5
src=$(GOFLAGS=-mod=mod go mod download -json "$mod@$ver" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
[ -n "$src" ] || { echo "cannot download $mod@$ver" >&2; exit 1; }
dst=third_party/go-json
pkgs=$(cd "$src" && find . -name '*.go' ! -name '*_test.go' ! -path './internal/cmd/*' -exec dirname {} \; | sort -u)
rm -rf "$dst"
mkdir -p "$dst"
cp "$src/go.mod" "$src/LICENSE" "$dst/"
for rel in $pkgs; do
	mkdir -p "$dst/$rel"
	find "$src/$rel" -maxdepth 1 -type f -name '*.go' ! -name '*_test.go' -exec cp {} "$dst/$rel/" \;
done
chmod -R u+w "$dst"
patch -s -d "$dst" -p1 <third_party/go-json.patch
gofmt -w "$dst"
echo "third_party/go-json: $(echo "$pkgs" | wc -w) packages of $mod@$ver, patched"
