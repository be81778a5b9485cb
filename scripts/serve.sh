#!/usr/bin/env bash
# Sets up this machine (scripts/setup.sh), builds the pages (release) and serves them on
# http://127.0.0.1:PORT/ (default 8080), rebuilding when a source changes.
#   scripts/serve.sh            # port 8080
#   PORT=9000 scripts/serve.sh  # or: scripts/serve.sh 9000
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
PORT="${1:-${PORT:-8080}}"
scripts/setup.sh
echo "Building the pages (release; a cold build takes several minutes). The page is ready at"
echo "http://127.0.0.1:$PORT/ once trunk prints \"server listening\". Ctrl-C stops."
exec trunk serve --release --address 127.0.0.1 --port "$PORT"
