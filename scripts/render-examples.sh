#!/usr/bin/env bash
# Renders every example package under kptfile-examples/ with the built function and prints the
# manifests (multi-document YAML), one package after another.
set -euo pipefail
cd "$(dirname "$0")/.."
for pkg in kptfile-examples/*/; do
  [ -f "$pkg/Kptfile" ] || continue
  echo "# ---- ${pkg%/}: node dist/render-valkey.cjs ${pkg%/}"
  node dist/render-valkey.cjs "${pkg%/}"
done
