#!/usr/bin/env bash
# Fails when a crate reaches past its layer through normal (non-dev) dependencies:
# - zoa-anim-core: no parser, audio or threading crate (serde, toml, gltf, rodio, rayon);
# - the evaluators (runtime, ik, audio): never the loaders (zoa-anim-assets, toml, gltf).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
check() {
  local crate=$1 pattern=$2
  [ -d "$crate" ] || return 0
  local hits
  hits=$(cargo tree -p "$crate" -e normal --prefix none 2>/dev/null | grep -E "^($pattern) " | sort -u || true)
  if [ -n "$hits" ]; then
    echo "layering: $crate must not depend on:"; echo "$hits"; status=1
  fi
}
check zoa-anim-core 'serde|toml|gltf|rodio|rayon|zoa-anim-assets|zoa-anim-runtime|zoa-anim-ik|zoa-audio-profile'
for crate in zoa-anim-runtime zoa-anim-ik zoa-audio-profile; do
  check "$crate" 'toml|gltf|zoa-anim-assets|zoa-anim-tools'
done
check zoa-anim-ik 'zoa-anim-runtime|zoa-audio-profile'
check zoa-audio-profile 'zoa-anim-runtime|zoa-anim-ik'
[ $status -eq 0 ] && echo "layering: ok"
exit $status
