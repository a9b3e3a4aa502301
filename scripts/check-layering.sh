#!/usr/bin/env bash
# The layering check (run by .ci/run and `just layering`):
# 1. Allow-list: every workspace crate's direct normal (non-dev) dependencies
#    must be listed in scripts/layering-allow.txt; a new dependency fails until
#    it is added there on purpose. Every workspace crate must have a line.
# 2. Never, even transitively: zoa-anim-core pulls no parser, audio or
#    threading crate; the evaluators (runtime, ik, audio) never the loaders;
#    no crate depends on zoa-test-support (dev-dependency only).
set -euo pipefail
cd "$(dirname "$0")/.."
allow=scripts/layering-allow.txt
status=0

crates=$(for d in zoa-*/; do [ -f "$d/Cargo.toml" ] && basename "$d"; done)
for crate in $crates; do
  line=$(grep -E "^$crate:" "$allow" || true)
  if [ -z "$line" ]; then
    echo "layering: $crate has no line in $allow; list its dependencies there on purpose"
    status=1
    continue
  fi
  allowed=" ${line#*:} "
  direct=$(cargo tree -p "$crate" -e normal --all-features --depth 1 --prefix none 2>/dev/null | tail -n +2 | awk '{print $1}' | sort -u)
  for dep in $direct; do
    case "$allowed" in
      *" $dep "*) ;;
      *) echo "layering: $crate depends on \`$dep\`, which $allow does not allow"; status=1 ;;
    esac
  done
done

ban() {
  local crate=$1 pattern=$2
  [ -d "$crate" ] || return 0
  local hits
  hits=$(cargo tree -p "$crate" -e normal --all-features --prefix none 2>/dev/null | grep -E "^($pattern) " | sort -u || true)
  if [ -n "$hits" ]; then
    echo "layering: $crate must not depend (even transitively) on:"; echo "$hits"; status=1
  fi
}
ban zoa-anim-core 'serde|toml|gltf|rodio|rayon|zoa-anim-assets|zoa-anim-runtime|zoa-anim-ik|zoa-audio-profile'
for crate in zoa-anim-runtime zoa-anim-ik zoa-audio-profile; do
  ban "$crate" 'toml|gltf|zoa-anim-assets|zoa-anim-tools'
done
ban zoa-anim-ik 'zoa-anim-runtime|zoa-audio-profile'
ban zoa-audio-profile 'zoa-anim-runtime|zoa-anim-ik'
for crate in $crates; do
  [ "$crate" = zoa-test-support ] || ban "$crate" 'zoa-test-support'
done
# Engines stay in their adapters: only zoa-anim-bevy depends on Bevy.
for crate in $crates; do
  [ "$crate" = zoa-anim-bevy ] || ban "$crate" 'bevy[a-z_]*|zoa-anim-bevy'
done

[ $status -eq 0 ] && echo "layering: ok"
exit $status
