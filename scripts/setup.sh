#!/usr/bin/env bash
# Installs what building, serving and testing need, idempotently (a second run only checks).
# Sources: rustup (toolchain + wasm32 target), crates.io (trunk, wasm-bindgen-cli pinned),
# Debian (chromium, chromium-driver, a JDK, Maven and unzip), npm (binaryen for wasm-opt,
# terser for the wasm-bindgen glue, playwright-core, axe-core).
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
# wasm-bindgen-cli must equal the wasm-bindgen version in Cargo.lock.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/[^0-9.]/,""); print; exit}' Cargo.lock)

step() { printf '\033[1m== %s\033[0m\n' "$*"; }

step "rust toolchain (rust-toolchain.toml)"
rustup toolchain install >/dev/null 2>&1 || rustup toolchain install
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown

have_version() { command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -q "$2"; }

step "trunk $TRUNK_VERSION"
have_version trunk "$TRUNK_VERSION" || cargo install --locked trunk --version "$TRUNK_VERSION"

step "wasm-bindgen-cli $WASM_BINDGEN_VERSION"
have_version wasm-bindgen "$WASM_BINDGEN_VERSION" ||
  cargo install --locked wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"

step "Debian packages: chromium, chromedriver; JDK 17, Maven and unzip for the conformance suite"
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || missing+=(maven)
command -v unzip >/dev/null || missing+=(unzip)
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

step "npm packages (binaryen, playwright-core, axe-core, terser)"
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ] ||
  [ ! -d node_modules/terser ] ||
  [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
