#!/usr/bin/env bash
# Clip bytes of ozz's optimized animation archives vs ours (issue 35 item 3's goal:
# baked clips no bigger than ozz's for the same clips).
#
# Extends the ozz kit (../shared/perf/ozz, README there) without changing it: the kit
# converts with raw, unoptimized keys (raw.json); this converts the same glTF files with
# the kit's gltf2ozz as runtime animations with ozz's keyframe optimizer on, at our
# default tolerance (0.1 mm at a 10 cm skin distance) and at ozz's default (1 mm), and
# prints the summed size of the anim_*.ozz files beside the clip bytes of `zoa-anim bake`
# (the fixture humanoid) and of `baked::bake_clip` (other assets: the fidelity test
# `zoa-animation/tests/baked.rs` prints them with --nocapture).
#
#   scripts/ozz-clip-sizes.sh [GLTF2OZZ]   (default: $PERF_OZZ_WORK/ozz-build/..., /work/perf-ozz)
set -euo pipefail
top=$(git rev-parse --show-toplevel)
work=${PERF_OZZ_WORK:-$top/.perf-ozz}
[ -d "$work" ] || work=/work/perf-ozz
G=${1:-$work/ozz-build/src/animation/offline/gltf/gltf2ozz}
[ -x "$G" ] || { echo "gltf2ozz not found at $G (run the kit's setup.sh first)" >&2; exit 2; }
assets=${ZOA_ASSETS:-$top/../shared/assets}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-14s %12s %12s\n' asset 'ozz 0.1mm' 'ozz 1mm'
for glb in "$top/fixtures/models/humanoid.glb" "$assets"/*.glb; do
  name=$(basename "$glb" .glb)
  sizes=()
  for tol in 0.0001 0.001; do
    d="$out/$name-$tol"; mkdir -p "$d"
    cfg="{\"skeleton\":{\"filename\":\"skeleton.ozz\",\"import\":{\"enable\":true}},\"animations\":[{\"clip\":\"*\",\"filename\":\"anim_*.ozz\",\"optimize\":true,\"optimization_settings\":{\"tolerance\":$tol,\"distance\":0.1}}]}"
    (cd "$d" && "$G" --file="$glb" --log_level=silent --config="$cfg" >/dev/null 2>&1) || true
    # A file without animations writes no anim_*.ozz: 0 bytes (not a pipefail exit).
    sizes+=("$( (cat "$d"/anim_*.ozz 2>/dev/null || true) | wc -c)")
  done
  printf '%-14s %12s %12s\n' "$name" "${sizes[0]}" "${sizes[1]}"
done
