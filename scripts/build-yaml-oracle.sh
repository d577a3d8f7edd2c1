#!/usr/bin/env bash
# Builds the YAML round-trip oracle (scripts/yaml-oracle: go-yaml v2 and v3, pinned in its
# go.mod/go.sum) from the Go module proxy into the tools cache, like build-tools.sh does for
# its tools:
#
#   $VALKEY_KRM_TOOLS_DIR (default ~/.cache/valkey-krm/tools)
#     yaml-oracle-<hash of its sources>/yaml-oracle
#
# Built only when missing (a source change gives a new hash, so a stale binary is never used).
# Usage:
#   scripts/build-yaml-oracle.sh               build if missing, print "yaml-oracle: <path>"
#   scripts/build-yaml-oracle.sh --print-env   stdout carries only YAML_ORACLE=<path>
set -euo pipefail
cd "$(dirname "$0")/yaml-oracle"

TOOLS_DIR="${VALKEY_KRM_TOOLS_DIR:-$HOME/.cache/valkey-krm/tools}"
print_env=0
for arg in "$@"; do
  case "$arg" in
    --print-env) print_env=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-yaml-oracle.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

hash="$(cat go.mod go.sum main.go | sha256sum | cut -c1-12)"
ORACLE="$TOOLS_DIR/yaml-oracle-$hash/yaml-oracle"

finish() {
  if [[ $print_env == 1 ]]; then echo "YAML_ORACLE=$ORACLE"; else echo "yaml-oracle: $ORACLE"; fi
}

if [[ -x $ORACLE ]]; then finish; exit 0; fi

command -v go >/dev/null || { echo "build-yaml-oracle.sh: 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$(dirname "$ORACLE")"
export GOTOOLCHAIN=local GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0
echo "building yaml-oracle (gopkg.in/yaml.v2, gopkg.in/yaml.v3) ..." >&2
go build -trimpath -ldflags "-s -w" -o "$ORACLE.tmp.$$" . >&2
mv -f "$ORACLE.tmp.$$" "$ORACLE"
finish
