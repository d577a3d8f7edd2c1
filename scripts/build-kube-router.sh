#!/usr/bin/env bash
# Builds kube-router (github.com/cloudnativelabs/kube-router/v2/cmd/kube-router) from the Go
# module proxy into the tools cache, like build-tools.sh builds its tools. It is a TEST-ONLY tool:
# the long suite's NetworkPolicy enforcement test (test/node/network-policy-enforced.node.test.ts)
# runs only its network-policy (firewall) controller, inside the real-node test's own network
# namespace, to check that the rendered NetworkPolicy is enforced by a real iptables+ipset enforcer.
# It is never shipped, never part of an image, never run outside that namespace.
#
# Why v2.1.0: it is the only kube-router v2 version the Go module proxy serves on these machines
# (`go list -m -versions github.com/cloudnativelabs/kube-router/v2`), and security flaws are
# reported for it. That is acceptable for a test tool confined to a throwaway network namespace
# whose only peers are the test's own pods and API server; do not take this binary anywhere else.
#
#   $VALKEY_KRM_TOOLS_DIR (default ~/.cache/valkey-krm/tools)
#     kube-router-<ver>/kube-router
#
# It also needs the `ipset` command (Debian package ipset; scripts/test-all.sh installs it).
#
# Usage:
#   scripts/build-kube-router.sh               build if missing, print "kube-router: <path>"
#   scripts/build-kube-router.sh --print-env   stdout carries only KUBE_ROUTER=…
# Overridable: KUBE_ROUTER_VERSION (must build with the local Go; GOTOOLCHAIN is forced to local).
set -euo pipefail

KUBE_ROUTER_VERSION="${KUBE_ROUTER_VERSION:-v2.1.0}"
TOOLS_DIR="${VALKEY_KRM_TOOLS_DIR:-$HOME/.cache/valkey-krm/tools}"
print_env=0
for arg in "$@"; do
  case "$arg" in
    --print-env) print_env=1 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-kube-router.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

DIR="$TOOLS_DIR/kube-router-$KUBE_ROUTER_VERSION"
BIN="$DIR/kube-router"
finish() { if [[ $print_env == 1 ]]; then echo "KUBE_ROUTER=$BIN"; else echo "kube-router: $BIN"; fi; }
if [[ -x $BIN ]]; then finish; exit 0; fi

command -v go >/dev/null || { echo "build-kube-router.sh: 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9
if [[ ! -x $BIN ]]; then
  t0=$SECONDS
  echo "building kube-router $KUBE_ROUTER_VERSION (github.com/cloudnativelabs/kube-router/v2; test-only) ..." >&2
  export GOTOOLCHAIN=local GOWORK=off GOFLAGS="-buildvcs=false" CGO_ENABLED=0
  tmp="$(mktemp -d "$TOOLS_DIR/.build-kube-router.XXXXXX")"
  trap 'rm -rf -- "$tmp"' EXIT
  # kube-router's go.mod has no replace directives, so go install of the module at its version works.
  GOBIN="$tmp" go install -trimpath \
    -ldflags "-s -w -X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=$KUBE_ROUTER_VERSION" \
    "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@$KUBE_ROUTER_VERSION" >&2
  mv -f "$tmp/kube-router" "$BIN.tmp.$$"
  mv -f "$BIN.tmp.$$" "$BIN"
  echo "built kube-router $KUBE_ROUTER_VERSION in $((SECONDS - t0))s" >&2
fi
finish
