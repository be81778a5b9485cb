#!/usr/bin/env bash
# Trunk post_build hook (see Trunk.toml), on the staging directory of every `trunk build`
# and `trunk serve`, in order:
#  1. the producer page, producer.html, the group page, group.html, the transactions page,
#     transactions.html, and the pipeline page, pipeline.html, built into the staging
#     directory's producer/, group/, transactions/ and pipeline/ with the same profile, so
#     each page loads only its own wasm (the nested builds run this hook too, and then have
#     nothing to do);
#  2. the first frames: the consumer page and the group page at their defaults rendered by
#     the native core into index.html and group/index.html (crates/view, binary
#     first-frame), so each page paints before its wasm; beside them and the pipeline page,
#     the presets.json each fetches on use;
#  3. release builds only: each page's wasm finished (Trunk's wasm-opt is off in the pages'
#     HTML): panics made traps, wasm-opt -Oz, the names the wasm and its wasm-bindgen glue
#     share made short in both (terser's property mangler on the glue, with the same name
#     table), then checked to link (scripts/finish-wasm.mjs);
#  4. offset-window-offline.html: the consumer page in one file (scripts/offline-page.mjs);
#  5. release builds only: .br and .gz beside every asset (scripts/precompress.mjs).
set -euo pipefail
[ -z "${OFFSET_WINDOW_NESTED_BUILD:-}" ] || exit 0
export OFFSET_WINDOW_NESTED_BUILD=1
cd "$TRUNK_SOURCE_DIR"
release=()
[ "$TRUNK_PROFILE" != release ] || release=(--release)
for page in producer group transactions pipeline; do
  case "$TRUNK_PUBLIC_URL" in
    .*) public_url="./" ;;                           # relative (--public-url ./): stays relative
    *) public_url="${TRUNK_PUBLIC_URL%/}/$page/" ;;  # absolute: one level down
  esac
  trunk build "${release[@]}" --public-url "$public_url" --dist "$TRUNK_STAGING_DIR/$page" "$page.html"
done
cargo run --quiet --locked -p offset-window-view --bin first-frame -- "$TRUNK_STAGING_DIR/index.html" "$TRUNK_STAGING_DIR/group/index.html" "$TRUNK_STAGING_DIR/pipeline/index.html"
[ "$TRUNK_PROFILE" != release ] || node scripts/finish-wasm.mjs "$TRUNK_STAGING_DIR"
node scripts/offline-page.mjs "$TRUNK_STAGING_DIR"
[ "$TRUNK_PROFILE" != release ] || node scripts/precompress.mjs "$TRUNK_STAGING_DIR"
