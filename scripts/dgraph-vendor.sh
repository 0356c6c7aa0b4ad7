#!/usr/bin/env bash
# Rebuilds third_party/dgraph: the packages of github.com/hypermodeinc/dgraph/v25 v25.0.0 that this
# module's build imports (no tests, no test data), from the module cache, with
# third_party/dgraph.patch applied. go.mod replaces the module with that folder; see
# third_party/README.md for what the patch changes and why.
#
#   bash scripts/dgraph-vendor.sh           # after changing the patch or importing another package
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/hypermodeinc/dgraph/v25
ver=v25.0.0
src=$(GOFLAGS=-mod=mod go mod download -json "$mod@$ver" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
[ -n "$src" ] || { echo "cannot download $mod@$ver" >&2; exit 1; }
dst=third_party/dgraph
# The packages of the module graph's "all" (what this build, its tests and the tests of the modules
# it imports use; go mod tidy reads them all), -e: also those the copy lacks so far.
pkgs=$(go list -e -deps -test all | sed 's/ .*//' | grep "^$mod/" | sort -u)
rm -rf "$dst"
mkdir -p "$dst"
cp "$src/go.mod" "$src/LICENSE.txt" "$dst/"
for p in $pkgs; do
	rel=${p#"$mod"/}
	mkdir -p "$dst/$rel"
	find "$src/$rel" -maxdepth 1 -type f -name '*.go' ! -name '*_test.go' -exec cp {} "$dst/$rel/" \;
done
chmod -R u+w "$dst"
patch -s -d "$dst" -p1 <third_party/dgraph.patch
gofmt -w "$dst" # the repository keeps every Go file gofmt'd (upstream's generated pb.pb.go is not)
echo "third_party/dgraph: $(echo "$pkgs" | wc -w) packages of $mod@$ver, patched"
