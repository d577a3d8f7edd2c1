#!/usr/bin/env bash
# Builds the real Kubernetes tools the tests use (DESIGN.md §8), from their Go
# modules through the Go module proxy, into a cache directory outside the repo:
#
#   $VALKEY_KRM_TOOLS_DIR (default ~/.cache/valkey-krm/tools)
#     k8s-<ver>/kube-apiserver           from k8s.io/kubernetes
#     k8s-<ver>/kube-controller-manager  from k8s.io/kubernetes (the same module)
#     k8s-<ver>/kube-scheduler           from k8s.io/kubernetes (the real-node tests bind pods with it)
#     k8s-<ver>/kubelet                  from k8s.io/kubernetes (the real node, test/support/node/)
#                                        (the k8s commands that are missing are built together, in one
#                                        `go build`, so each extra one costs only what it does not share)
#     etcd-<ver>/etcd                    from go.etcd.io/etcd/server/v3 (etcdmain)
#     kustomize-<ver>/kustomize          from sigs.k8s.io/kustomize/kustomize/v5
#
# Each binary is built only when missing; with everything cached the script
# does no Go work at all and returns at once. Builds happen in throwaway Go
# modules under $TOOLS_DIR/.build-* (removed afterwards); GOPATH, GOMODCACHE
# and GOCACHE stay wherever Go puts them by default.
#
# Usage:
#   scripts/build-tools.sh               build what is missing, report, print "tools: <dir>"
#   scripts/build-tools.sh --print-env   the same, but stdout carries only
#                                        KUBE_APISERVER=... / KUBE_CONTROLLER_MANAGER=... /
#                                        KUBE_SCHEDULER=... / KUBELET=... / ETCD=... / KUSTOMIZE=...
#                                        lines (progress goes to stderr)
#   scripts/build-tools.sh --coredns     also CoreDNS (coredns-<ver>/coredns, github.com/coredns/coredns):
#                                        only for tests that resolve pod hostnames; about 13 minutes
#                                        and 1.5 GB of module cache on 2 cores, so not built by default
#                                        (COREDNS=... is printed when it is present)
#
# Overridable: K8S_VERSION, ETCD_VERSION, KUSTOMIZE_VERSION (must build with the
# local Go toolchain; GOTOOLCHAIN is forced to "local").
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.34.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.8.2}"
COREDNS_VERSION="${COREDNS_VERSION:-v1.14.7}"
TOOLS_DIR="${VALKEY_KRM_TOOLS_DIR:-$HOME/.cache/valkey-krm/tools}"

print_env=0
want_coredns=0
for arg in "$@"; do
  case "$arg" in
    --print-env) print_env=1 ;;
    --coredns) want_coredns=1 ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-tools.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

KUBE_APISERVER="$TOOLS_DIR/k8s-$K8S_VERSION/kube-apiserver"
KUBE_CONTROLLER_MANAGER="$TOOLS_DIR/k8s-$K8S_VERSION/kube-controller-manager"
KUBE_SCHEDULER="$TOOLS_DIR/k8s-$K8S_VERSION/kube-scheduler"
KUBELET="$TOOLS_DIR/k8s-$K8S_VERSION/kubelet"
COREDNS="$TOOLS_DIR/coredns-$COREDNS_VERSION/coredns"
ETCD="$TOOLS_DIR/etcd-$ETCD_VERSION/etcd"
KUSTOMIZE="$TOOLS_DIR/kustomize-$KUSTOMIZE_VERSION/kustomize"

# With --print-env, stdout is reserved for the KEY=value lines.
if [[ $print_env == 1 ]]; then exec 3>&2; else exec 3>&1; fi
say() { echo "$@" >&3; }

K8S_COMMANDS=(kube-apiserver kube-controller-manager kube-scheduler kubelet)
k8s_present() { local c; for c in "${K8S_COMMANDS[@]}"; do [[ -x $TOOLS_DIR/k8s-$K8S_VERSION/$c ]] || return 1; done; }
all_present() { k8s_present && [[ -x $ETCD && -x $KUSTOMIZE ]] && { [[ $want_coredns == 0 ]] || [[ -x $COREDNS ]]; }; }
CACHED_MSG="cached: ${K8S_COMMANDS[*]} $K8S_VERSION, etcd $ETCD_VERSION, kustomize $KUSTOMIZE_VERSION"

finish() {
  if [[ $print_env == 1 ]]; then
    echo "KUBE_APISERVER=$KUBE_APISERVER"
    echo "KUBE_CONTROLLER_MANAGER=$KUBE_CONTROLLER_MANAGER"
    echo "KUBE_SCHEDULER=$KUBE_SCHEDULER"
    echo "KUBELET=$KUBELET"
    [[ ! -x $COREDNS ]] || echo "COREDNS=$COREDNS"
    echo "ETCD=$ETCD"
    echo "KUSTOMIZE=$KUSTOMIZE"
  fi
  say "tools: $TOOLS_DIR"
}

# Fast path: everything cached, no lock, no Go.
if all_present; then
  say "$CACHED_MSG"
  finish
  exit 0
fi

command -v go >/dev/null || { echo "build-tools.sh: 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$TOOLS_DIR"

# Serialise concurrent invocations (parallel test workers, several shells).
exec 9>"$TOOLS_DIR/.lock"
if ! flock -n 9; then
  say "another build-tools.sh is building in $TOOLS_DIR; waiting for it ..."
  flock 9
fi

export GOTOOLCHAIN=local GOWORK=off GOFLAGS="-mod=mod -buildvcs=false"
# CGO is not needed by any of the three; static binaries are easier to move around.
export CGO_ENABLED=0

modcache="$(go env GOMODCACHE)"
mib() { if [[ -d $1 ]]; then du -sm "$1" 2>/dev/null | cut -f1; else echo 0; fi; }
modcache_before="$(mib "$modcache")"
built=()

# Throwaway build modules are removed even when a build fails.
build_dirs=()
cleanup_build_dirs() { ((${#build_dirs[@]} == 0)) || rm -rf -- "${build_dirs[@]}"; }
trap cleanup_build_dirs EXIT

# new_build_module <name>: a throwaway module dir, printed on stdout.
new_build_module() {
  local dir
  dir="$(mktemp -d "$TOOLS_DIR/.build-$1.XXXXXX")"
  printf 'module valkey-krm.local/build-%s\n\ngo 1.24.0\n' "$1" >"$dir/go.mod"
  echo "$dir"
}

# install_bin <built file> <final path>: atomic move into place.
install_bin() {
  mkdir -p "$(dirname "$2")"
  mv -f "$1" "$2.tmp.$$"
  mv -f "$2.tmp.$$" "$2"
}

# build_k8s <command>...: the given commands of k8s.io/kubernetes (kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet) from one throwaway module and one `go build`, so a
# second command costs only the packages it does not share with the first.
build_k8s() {
  local t0 dir gomod replaces minor cmd
  local -a pkgs=()
  t0=$SECONDS
  say "building $* $K8S_VERSION (k8s.io/kubernetes; long on few cores) ..."
  dir="$(new_build_module k8s)"
  build_dirs+=("$dir")
  # k8s.io/kubernetes requires its staging modules as v0.0.0 and replaces them
  # with ./staging/src/... paths, which a dependent module cannot use: pin each
  # one to the published v0.<minor>.<patch> matching the kubernetes version.
  local dl
  dl="$(cd "$dir" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" 2>&1)" || true
  gomod="$(sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p' <<<"$dl")"
  [[ -n $gomod && -f $gomod ]] || { echo "cannot download k8s.io/kubernetes@$K8S_VERSION:" >&2; echo "$dl" >&2; exit 1; }
  local staging_version="v0.${K8S_VERSION#v1.}"
  replaces="$(awk -v sv="$staging_version" '
      /^require[[:space:]]*\(/ { inreq = 1; next }
      inreq && /^\)/           { inreq = 0; next }
      inreq && $1 ~ /^k8s\.io\// && $2 == "v0.0.0" { printf "\t%s => %s %s\n", $1, $1, sv }
    ' "$gomod")"
  [[ -n $replaces ]] || { echo "no staging modules found in $gomod" >&2; exit 1; }
  {
    printf '\nrequire k8s.io/kubernetes %s\n\nreplace (\n%s\n)\n' "$K8S_VERSION" "$replaces"
  } >>"$dir/go.mod"
  minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  local vpkg=k8s.io/component-base/version
  local ldflags="-s -w"
  ldflags+=" -X $vpkg.gitVersion=$K8S_VERSION -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor"
  ldflags+=" -X $vpkg.gitTreeState=clean -X $vpkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for cmd in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$cmd"); done
  mkdir -p "$dir/bin"
  (
    cd "$dir"
    for pkg in "${pkgs[@]}"; do go get "$pkg@$K8S_VERSION" >&3 2>&1; done
    # With several packages and -o <dir>/, go build writes one binary per command.
    go build -trimpath -ldflags "$ldflags" -o "$dir/bin/" "${pkgs[@]}"
  )
  for cmd in "$@"; do install_bin "$dir/bin/$cmd" "$TOOLS_DIR/k8s-$K8S_VERSION/$cmd"; done
  rm -rf "$dir"
  built+=("$* $K8S_VERSION in $((SECONDS - t0))s")
}

build_coredns() {
  local t0 dir
  t0=$SECONDS
  say "building coredns $COREDNS_VERSION (github.com/coredns/coredns; about 13 minutes on 2 cores) ..."
  dir="$(new_build_module coredns)"
  build_dirs+=("$dir")
  (
    cd "$dir"
    # CoreDNS's own go.mod has no replace directives: go install of the module at its version works.
    GOBIN="$dir/bin" GOFLAGS="-buildvcs=false" go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION" >&3 2>&1
  )
  install_bin "$dir/bin/coredns" "$COREDNS"
  rm -rf "$dir"
  built+=("coredns $COREDNS_VERSION in $((SECONDS - t0))s")
}

build_etcd() {
  local t0 dir
  t0=$SECONDS
  say "building etcd $ETCD_VERSION (go.etcd.io/etcd/server/v3/etcdmain) ..."
  dir="$(new_build_module etcd)"
  build_dirs+=("$dir")
  # The etcd binary's own main (module go.etcd.io/etcd/v3) is not reliably on the
  # proxy; its whole body is this call.
  cat >"$dir/main.go" <<'EOF'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  (
    cd "$dir"
    go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&3 2>&1
    go mod tidy >&3 2>&1
    go build -trimpath -ldflags "-s -w" -o "$dir/etcd" .
  )
  install_bin "$dir/etcd" "$ETCD"
  rm -rf "$dir"
  built+=("etcd $ETCD_VERSION in $((SECONDS - t0))s")
}

build_kustomize() {
  local t0 dir
  t0=$SECONDS
  say "building kustomize $KUSTOMIZE_VERSION (sigs.k8s.io/kustomize/kustomize/v5) ..."
  dir="$(new_build_module kustomize)"
  build_dirs+=("$dir")
  local ldflags="-s -w -X sigs.k8s.io/kustomize/api/provenance.version=kustomize/$KUSTOMIZE_VERSION"
  ldflags+=" -X sigs.k8s.io/kustomize/api/provenance.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  (
    cd "$dir"
    go get "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" >&3 2>&1
    go build -trimpath -ldflags "$ldflags" -o "$dir/kustomize" sigs.k8s.io/kustomize/kustomize/v5
  )
  install_bin "$dir/kustomize" "$KUSTOMIZE"
  rm -rf "$dir"
  built+=("kustomize $KUSTOMIZE_VERSION in $((SECONDS - t0))s")
}

# Re-check under the lock: a concurrent run may have built some of them.
[[ -x $KUSTOMIZE ]] || build_kustomize
[[ -x $ETCD ]] || build_etcd
k8s_missing=()
for cmd in "${K8S_COMMANDS[@]}"; do [[ -x $TOOLS_DIR/k8s-$K8S_VERSION/$cmd ]] || k8s_missing+=("$cmd"); done
((${#k8s_missing[@]} == 0)) || build_k8s "${k8s_missing[@]}"
[[ $want_coredns == 0 || -x $COREDNS ]] || build_coredns

if ((${#built[@]})); then
  for b in "${built[@]}"; do say "built: $b"; done
  say "go module cache $modcache: ${modcache_before} MiB -> $(mib "$modcache") MiB"
else
  say "$CACHED_MSG"
fi
finish
