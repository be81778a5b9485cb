#!/usr/bin/env bash
# Profiles the group page as its first event is dragged (tests/e2e/profile.mjs), on a copy of
# dist/ whose group wasm keeps its function names: the page's bin built by cargo (profile
# `web`, the pages') and wasm-bindgen --keep-debug, without scripts/finish-wasm.mjs's
# wasm-opt and renaming — slower than dist/ by a third, the same proportions. Needs a
# release dist/ (`trunk build --release --public-url ./`, or scripts/test-web.sh) of the
# same tree. Arguments go to profile.mjs: a preset's title to drag its first event instead
# of the defaults', `--focus NAME` for the callers of NAME. Example:
#   scripts/profile-group-page.sh 'A rolling deploy of 128 members on 1,024 partitions (eager)'
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
[ -f dist/group/index.html ] || { echo "no dist/group/index.html: build the page first (trunk build --release --public-url ./)" >&2; exit 2; }
out=target/profile-dist
rm -rf "$out" && cp -r dist "$out"
cargo build --profile web --target wasm32-unknown-unknown -p offset-window-app --bin offset-window-group
# The page loads its glue and wasm by the names Trunk gave them: the named build takes those.
glue=$(cd "$out/group" && ls offset-window-group-*.js | grep -v worker | head -1)
name=${glue%.js}
rm -f "$out/group/$name"*
wasm-bindgen --target web --keep-debug --out-dir "$out/group" --out-name "$name" \
  target/wasm32-unknown-unknown/web/offset-window-group.wasm
# Served as they are (no stale precompressed copies), without the integrity of the old files.
rm -f "$out/group/index.html.br" "$out/group/index.html.gz"
sed -i 's/ integrity="[^"]*"//g' "$out/group/index.html"
server_out=$(mktemp)
node tests/e2e/serve.mjs "$out" 0 /profile/ >"$server_out" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$server_out"' EXIT
for _ in $(seq 50); do url=$(head -1 "$server_out"); [ -n "$url" ] && break; sleep 0.1; done
node tests/e2e/profile.mjs "$url" "$@"
