#!/usr/bin/env bash
# The test suite CI runs, from a fresh clone: installs what it needs, then runs the unit,
# integration and e2e groups, then the real-node smoke set. This is the README's test command and
# exactly what CI runs (.ci/run). The kube-world suites of minutes each (vitest project `long`)
# and the longer real-node cases run with scripts/test-long.sh (npm run test:long).
#   - redis-server from Debian (the "not Valkey at all" case of the version gate), busybox
#   - the real Valkey servers the tests run come from ../shared/valkey/ (see its README)
#   - npm dependencies (npm ci)
#   - kube-apiserver, kube-controller-manager, etcd and kustomize built from their Go modules,
#     cached under ~/.cache (the first build takes about 15 minutes on 2 cores; later runs reuse them)
#   - jq and python3-jsonschema from Debian (the plan's pull-request script and its JSON Schema)
#   - podman and runc from Debian, and the project's image built with them on a local base
#     (scripts/build-image.sh: about a minute the first time, nothing when nothing changed)
#   - the YAML round-trip oracle (go-yaml v2 and v3, scripts/yaml-oracle), cached the same way
#   - for the real-node smoke set (test/node/, run alone after the rest, one file at a time): kubelet
#     and kube-scheduler built with the other Kubernetes tools, and from Debian containerd, runc,
#     the CNI plugins, iptables, conntrack, podman (to build the node's images), BusyBox (their
#     /bin/sh), gcc and libc6-dev (the static pause binary), curl and openssl (the node's PKI),
#     ipset (kube-router's sets, for the long suite's NetworkPolicy enforcement test)
#   - the GitOps readers (scripts/gitops-oracles: Argo CD's Lua sandbox via gopher-lua, Flux's
#     kstatus from sigs.k8s.io/cli-utils, and kubeconform), cached the same way (about 4 minutes)
#   - promtool (scripts/promtool, github.com/prometheus/prometheus), for deploy/monitoring's
#     alert rules, cached the same way
set -euo pipefail
cd "$(dirname "$0")/.."

# The runner reads the last line ("N passed, N failed"): a setup step that fails before any test
# runs (an install, a tool build, a generated file out of date, the formatter) says so there too.
summarized=0
on_exit() {
  local code=$?
  rm -rf "${report:-}" "${node_report:-}" "${podman_conf:-}"
  if [ "$summarized" -ne 1 ] && [ "$code" -ne 0 ]; then
    echo "test-all: a setup step failed (exit $code) before the tests ran; see above" >&2
    echo "0 passed, 1 failed"
  fi
}
trap on_exit EXIT

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v busybox >/dev/null 2>&1 || missing+=(busybox)   # the Argo CD plugin test runs its commands under BusyBox too
command -v jq >/dev/null 2>&1 || missing+=(jq)             # the plan's pull-request comment script reads GitHub's answers with jq
python3 -c 'import jsonschema' >/dev/null 2>&1 || missing+=(python3-jsonschema)   # an independent reader of the plan's JSON Schema
command -v podman >/dev/null 2>&1 || missing+=(podman)     # the image tests build and run the image
command -v runc >/dev/null 2>&1 || missing+=(runc)         # podman's runtime here (crun fails on these hosts' cgroups)
command -v containerd >/dev/null 2>&1 || missing+=(containerd)   # the real node's container runtime (and ctr)
[ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)  # the real node's pod network: bridge, host-local, portmap
command -v iptables >/dev/null 2>&1 || missing+=(iptables)       # the real node's one ClusterIP (the API server's) is a DNAT rule
command -v conntrack >/dev/null 2>&1 || missing+=(conntrack)     # the kubelet and CNI expect it
command -v gcc >/dev/null 2>&1 || missing+=(gcc)                 # the pod sandbox's pause binary, compiled static
[ -e "$(gcc -print-file-name=libc.a 2>/dev/null)" ] || missing+=(libc6-dev)
command -v curl >/dev/null 2>&1 || missing+=(curl)               # the real node waits for the API server with it
command -v openssl >/dev/null 2>&1 || missing+=(openssl)         # the real node's certificates
command -v ipset >/dev/null 2>&1 || missing+=(ipset)             # kube-router's policy sets (the long suite's NetworkPolicy enforcement test)
if ((${#missing[@]})); then
  echo "test-all: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for tool in node npm go kpt kubectl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "test-all: $tool is required on PATH" >&2; exit 1; }
done

for build in 9.1.2 8.0.1 unstable-2024-10; do
  [ -x "../shared/valkey/$build/valkey-server" ] || { echo "test-all: ../shared/valkey/$build/valkey-server is missing (see the README, Developing)" >&2; exit 1; }
done

# Podman's settings for these machines (runc, cgroupfs, no default ulimits), for this run only.
podman_conf="$(mktemp -d)"
cp scripts/podman-containers.conf "$podman_conf/containers.conf"
export CONTAINERS_CONF="$podman_conf/containers.conf"

npm ci --no-audit --no-fund --loglevel=error
bash scripts/build-tools.sh >&2
bash scripts/build-yaml-oracle.sh >&2
bash scripts/build-gitops-oracles.sh >&2
bash scripts/build-promtool.sh >&2
npx tsx scripts/gen-crds.ts --check
npx tsx scripts/gen-json-schemas.ts --check
npx tsx scripts/gen-api-reference.ts --check
npm run -s typecheck
npm run -s lint
npm run -s build
bash scripts/build-image.sh >&2

report=$(mktemp)
node_report=$(mktemp)
status=0
groups_code=0
node_code=0
npx vitest run --project unit --project integration --project e2e \
  --reporter=default --reporter=json --outputFile.json="$report" || groups_code=$?
# The real-node smoke set: root, minutes per file, one file at a time, after the rest (it takes
# the machine's two cores for itself).
npx vitest run --project node --no-file-parallelism \
  --reporter=default --reporter=json --outputFile.json="$node_report" || node_code=$?
summarized=1
[ "$groups_code" -eq 0 ] || status=$groups_code
[ "$node_code" -eq 0 ] || status=$node_code
node scripts/test-summary.cjs "$report:$groups_code" "$node_report:$node_code"
exit "$status"
