#!/usr/bin/env bash
# Builds promtool (github.com/prometheus/prometheus/cmd/promtool, the version pinned in
# scripts/promtool/go.mod) from the Go module proxy into the tools cache, like build-tools.sh:
# the monitoring tests run `promtool test rules` on deploy/monitoring's alert rules and
# `promtool check rules` on them.
#
#   $VALKEY_KRM_TOOLS_DIR (default ~/.cache/valkey-krm/tools)
#     promtool-<hash>/promtool     <hash> covers scripts/promtool (go.mod, go.sum, tools.go)
#
# Usage:
#   scripts/build-promtool.sh               build if missing, print "promtool: <path>"
#   scripts/build-promtool.sh --print-env   stdout carries only PROMTOOL=…
set -euo pipefail
cd "$(dirname "$0")/promtool"

TOOLS_DIR="${VALKEY_KRM_TOOLS_DIR:-$HOME/.cache/valkey-krm/tools}"
print_env=0
for arg in "$@"; do
  case "$arg" in
    --print-env) print_env=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-promtool.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

hash="$(cat go.mod go.sum tools.go | sha256sum | cut -c1-12)"
DIR="$TOOLS_DIR/promtool-$hash"
finish() { if [[ $print_env == 1 ]]; then echo "PROMTOOL=$DIR/promtool"; else echo "promtool: $DIR/promtool"; fi; }
if [[ -x $DIR/promtool ]]; then finish; exit 0; fi

command -v go >/dev/null || { echo "build-promtool.sh: 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9
if [[ ! -x $DIR/promtool ]]; then
  echo "building promtool (github.com/prometheus/prometheus/cmd/promtool) ..." >&2
  export GOTOOLCHAIN=local GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0
  go build -trimpath -ldflags "-s -w" -o "$DIR/promtool.tmp.$$" github.com/prometheus/prometheus/cmd/promtool >&2
  mv -f "$DIR/promtool.tmp.$$" "$DIR/promtool"
fi
finish
