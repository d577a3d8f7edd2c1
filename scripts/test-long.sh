#!/usr/bin/env bash
# The longer suites, run before a change to the controller's day-2 paths is called done (not in CI:
# CI's command, scripts/test-all.sh, must stay well under 15 minutes on 2 cores):
#   - vitest project `long`: the kube-world suites of minutes each (rolls, migrations, interrupted
#     migrations, restarts, one merge that rolls and scales two clusters), each with a workload
#     counting lost writes;
#   - the longer real-node cases (test/node/long/, vitest.node.config.ts), among them the rendered
#     NetworkPolicy enforced by kube-router (scripts/build-kube-router.sh; test-only).
# Run scripts/test-all.sh once first on a fresh machine: it installs the Debian packages, the npm
# dependencies and the image these suites use. About 20 minutes for the first part on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build-tools.sh >&2
bash scripts/build-kube-router.sh >&2   # the NetworkPolicy enforcement test's enforcer (test-only)
npm run -s build

report=$(mktemp)
node_report=$(mktemp)
trap 'rm -f "$report" "$node_report"' EXIT
status=0
groups_code=0
node_code=0
npx vitest run --project long --reporter=default --reporter=json --outputFile.json="$report" || groups_code=$?
npx vitest run --config vitest.node.config.ts test/node/long \
  --reporter=default --reporter=json --outputFile.json="$node_report" || node_code=$?
[ "$groups_code" -eq 0 ] || status=$groups_code
[ "$node_code" -eq 0 ] || status=$node_code
node scripts/test-summary.cjs "$report:$groups_code" "$node_report:$node_code"
exit "$status"
