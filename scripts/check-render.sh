#!/usr/bin/env bash
# The windowed Bevy example rendered on a machine without a GPU: Mesa's
# software Vulkan driver (lavapipe) under Xvfb. Builds the `render` feature
# in the `render-check` profile (dev with nothing optimised and no debug info:
# the build, not the few frames drawn, is what costs here), captures two
# frames of a scripted sprint with Bevy's screenshot API, and checks them
# (tests/render_capture.rs: both exist, the character covers a plausible
# share of the pixels, it moved between them); then the `many_foxes` pose
# test (bevy_animation and ZOA agree on the Fox).
# Installs xvfb, xauth and mesa-vulkan-drivers with apt-get when missing.
# Usage: scripts/check-render.sh [DIR]  (captures go to DIR and stay there; without
# DIR, to a temporary folder removed on exit)
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb xauth)
compgen -G "/usr/share/vulkan/icd.d/lvp_icd*.json" >/dev/null || need+=(mesa-vulkan-drivers)
if [ "${#need[@]}" -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ -n "${1:-}" ]; then
  out="$1"
else
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
rm -f "$out"/sprint-*.png
# Only lavapipe, even where a GPU driver is installed, so every machine renders alike.
icd=$(compgen -G "/usr/share/vulkan/icd.d/lvp_icd*.json" | head -1)
export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"

cargo build --profile render-check -p zoa-anim-bevy --features render --example bevy_character --locked
timeout 600 xvfb-run -a -s "-screen 0 1280x1024x24" \
  cargo run -q --profile render-check -p zoa-anim-bevy --features render --example bevy_character --locked -- \
  --script sprint --screenshot-at 0.5,1.5 --out "$out" --exit
ls -l "$out"
ZOA_RENDER_CAPTURES="$out" cargo test --profile render-check -p zoa-anim-bevy --features render --locked \
  --test render_capture --test many_foxes -- --nocapture
