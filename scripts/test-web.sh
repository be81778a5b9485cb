#!/usr/bin/env bash
# Tests the page. Needs the tools of scripts/setup.sh.
#  1. wasm-bindgen-test of the app in headless Chromium (crates/app/tests);
#  2. a release build into dist/ (Trunk, then scripts/finish-wasm.mjs: wasm-opt -Oz, the names
#     the wasm shares with its glue shortened, the glue minified; relative asset paths), the
#     finishing step's test on it (scripts/finish-wasm.test.mjs), and the CLI;
#  3. dist/ served on a free loopback port under a sub-path (as a blog would host it),
#     checked to be the page just built;
#  4. end-to-end tests with real input (tests/e2e/run.mjs, producer.mjs, group.mjs,
#     transactions.mjs, pipeline.mjs, and import.mjs: the "your consumer" panel; screenshots
#     in tests/e2e/output/);
#  5. the budget check, which prints figures (tests/e2e/budget.mjs), and the page column of the
#     README's "Groups at scale" table (tests/e2e/scale.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
# The group page's browser tests take 18–20 s on two loaded cores, against the runner's 20 s
# default: a loaded machine must not fail them.
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-180}"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "page: wasm-bindgen-test in headless Chromium"
cargo test -p offset-window-app --target wasm32-unknown-unknown --tests

step "page: release build into dist/ (relative asset paths: works under a sub-path)"
trunk build --release --public-url ./

step "page: the finished wasm and glue (scripts/finish-wasm.test.mjs)"
node scripts/finish-wasm.test.mjs dist

step "runner: offset-window CLI (the e2e export test compares against it)"
cargo build -p offset-window-cli

step "page: serve dist/ on a free loopback port, under a sub-path"
server_out=$(mktemp)
node tests/e2e/serve.mjs dist 0 /blog/kafka/offset-window/ >"$server_out" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -f "$server_out" "${served:-}"' EXIT
for _ in $(seq 1 100); do
  url=$(head -n 1 "$server_out")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "the server did not start:"; cat "$server_out"; exit 1; }
# The page served must be the one just built (its asset names carry the build's hashes).
served=$(mktemp)
node -e 'fetch(process.argv[1]).then(r => r.text()).then(t => process.stdout.write(t))' "$url" >"$served"
cmp -s "$served" dist/index.html || { echo "$url does not serve the dist/ just built"; exit 1; }
echo "serving dist/ at $url"

step "page: end-to-end (playwright-core, Debian's Chromium)"
node tests/e2e/run.mjs "$url"
node tests/e2e/producer.mjs "$url"
node tests/e2e/group.mjs "$url"
node tests/e2e/transactions.mjs "$url"
node tests/e2e/pipeline.mjs "$url"
node tests/e2e/import.mjs "$url"

step "page: budget check (figures)"
node tests/e2e/budget.mjs "$url" dist
step "page: groups at scale (figures)"
node tests/e2e/scale.mjs "$url"
