#!/usr/bin/env bash
# Builds the GitOps readers the tests hold our output against, from the Go module proxy into the
# tools cache (like build-tools.sh and build-yaml-oracle.sh):
#
#   $VALKEY_KRM_TOOLS_DIR (default ~/.cache/valkey-krm/tools)
#     gitops-oracles-<hash>/gitops-oracles   Argo CD's health-script semantics (gopher-lua) and
#                                            Flux's status reader (sigs.k8s.io/cli-utils kstatus)
#     gitops-oracles-<hash>/kubeconform      github.com/yannh/kubeconform, for the JSON Schemas
#
# <hash> covers scripts/gitops-oracles (go.mod, go.sum, *.go): a change builds anew.
# Usage:
#   scripts/build-gitops-oracles.sh               build if missing, print "gitops-oracles: <dir>"
#   scripts/build-gitops-oracles.sh --print-env   stdout carries only GITOPS_ORACLES=… and KUBECONFORM=…
set -euo pipefail
cd "$(dirname "$0")/gitops-oracles"

TOOLS_DIR="${VALKEY_KRM_TOOLS_DIR:-$HOME/.cache/valkey-krm/tools}"
print_env=0
for arg in "$@"; do
  case "$arg" in
    --print-env) print_env=1 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-gitops-oracles.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

hash="$(cat go.mod go.sum ./*.go | sha256sum | cut -c1-12)"
DIR="$TOOLS_DIR/gitops-oracles-$hash"

finish() {
  if [[ $print_env == 1 ]]; then
    echo "GITOPS_ORACLES=$DIR/gitops-oracles"
    echo "KUBECONFORM=$DIR/kubeconform"
  else
    echo "gitops-oracles: $DIR"
  fi
}

if [[ -x $DIR/gitops-oracles && -x $DIR/kubeconform ]]; then finish; exit 0; fi

command -v go >/dev/null || { echo "build-gitops-oracles.sh: 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9
export GOTOOLCHAIN=local GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0
if [[ ! -x $DIR/gitops-oracles ]]; then
  echo "building gitops-oracles (gopher-lua, sigs.k8s.io/cli-utils kstatus) ..." >&2
  go build -trimpath -ldflags "-s -w" -o "$DIR/gitops-oracles.tmp.$$" . >&2
  mv -f "$DIR/gitops-oracles.tmp.$$" "$DIR/gitops-oracles"
fi
if [[ ! -x $DIR/kubeconform ]]; then
  echo "building kubeconform ..." >&2
  go build -trimpath -ldflags "-s -w" -o "$DIR/kubeconform.tmp.$$" github.com/yannh/kubeconform/cmd/kubeconform >&2
  mv -f "$DIR/kubeconform.tmp.$$" "$DIR/kubeconform"
fi
finish
