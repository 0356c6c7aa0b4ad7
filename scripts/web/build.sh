#!/usr/bin/env bash
# Rebuilds the web assets embedded in the binary from the npm packages pinned in package.json
# and package-lock.json (run from anywhere; needs node and npm):
#   web/assets/playground/  GraphiQL 5 bundled with React, graphql-ws and Monaco by esbuild:
#                           playground.js, playground.css, worker-{editor,json,graphql}.js
#   web/assets/vendor/      cytoscape.min.js as published
#   web/assets/THIRD_PARTY.txt  the packages bundled, their versions and licences
# The outputs are committed; CI does not run this.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/web/assets"
cd "$here"
npm ci --no-audit --no-fund --ignore-scripts
esbuild="$here/node_modules/@esbuild/linux-x64/bin/esbuild"
[ -x "$esbuild" ] || esbuild="$here/node_modules/.bin/esbuild"
common=(--bundle --minify --format=iife --target=es2020 --legal-comments=none --log-level=warning)
"$esbuild" playground.jsx "${common[@]}" --outfile="$out/playground/playground.js" \
  --loader:.ttf=dataurl --loader:.woff=dataurl --loader:.woff2=dataurl \
  --define:process.env.NODE_ENV='"production"'
for w in editor:monaco-editor/esm/vs/editor/editor.worker.js \
         json:monaco-editor/esm/vs/language/json/json.worker.js \
         graphql:monaco-graphql/esm/graphql.worker.js; do
  "$esbuild" "node_modules/${w#*:}" "${common[@]}" --outfile="$out/playground/worker-${w%%:*}.js"
done
cp node_modules/cytoscape/dist/cytoscape.min.js "$out/vendor/cytoscape.min.js"
node third_party.js > "$out/THIRD_PARTY.txt"
ls -l "$out/playground" "$out/vendor"
