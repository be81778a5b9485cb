#!/usr/bin/env bash
# Trunk post_build hook (see Trunk.toml): builds the producer page, producer.html, into the
# staging directory's producer/ with the same profile, so one `trunk build` or `trunk serve`
# makes both pages and each page loads only its own wasm. The nested build runs this hook
# too, and then has nothing to do.
set -euo pipefail
[ -z "${OFFSET_WINDOW_NESTED_BUILD:-}" ] || exit 0
export OFFSET_WINDOW_NESTED_BUILD=1
cd "$TRUNK_SOURCE_DIR"
case "$TRUNK_PUBLIC_URL" in
  .*) public_url="./" ;;                         # relative (--public-url ./): stays relative
  *) public_url="${TRUNK_PUBLIC_URL%/}/producer/" ;; # absolute: one level down
esac
release=()
[ "$TRUNK_PROFILE" != release ] || release=(--release)
exec trunk build "${release[@]}" --public-url "$public_url" --dist "$TRUNK_STAGING_DIR/producer" producer.html
