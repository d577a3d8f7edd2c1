#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what it needs, then runs every test.
# This is the README's test command and exactly what CI runs (.ci/run).
#   - redis-server / redis-cli from Debian (a real server of the Valkey protocol), busybox
#   - npm dependencies (npm ci)
#   - kube-apiserver, etcd and kustomize built from their Go modules, cached under ~/.cache
#     (the first build takes about 11 minutes on 2 cores; later runs reuse the binaries)
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
command -v busybox >/dev/null 2>&1 || missing+=(busybox)   # the Argo CD plugin test runs its commands under BusyBox too
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

npm ci --no-audit --no-fund --loglevel=error
bash scripts/build-tools.sh >&2
npx tsx scripts/gen-crds.ts --check
npm run -s typecheck
npm run -s build
npx vitest run
