#!/bin/sh
# The autoscaling job (docs/design/autoscaling.md): the controller decides and writes
# status.autoscaling.desiredShards; this job turns each decision into a commit, and the normal
# render / plan / review / sync path carries it out. Copy it into the repository that holds your
# packages and run it on a schedule (a CI job, or a CronJob with a deploy key).
#
#   autoscale-commit.sh [--dry-run] [--push] PATH...
#
# For every ValkeyCluster whose status.autoscaling.desiredShards differs from spec.shards (read
# with kubectl from the cluster the controller runs in), sets spec.shards in the one file under
# PATH... that defines it (render-valkey set-shards: one line changes, every other byte stays),
# and commits it, one commit per cluster, with the decision's reason and `render-valkey plan` of
# the change in the message.
#
#   --dry-run  change and commit nothing: print each commit message it would write
#   --push     git push after the commits (open a pull request instead by pushing a branch
#              and calling your forge's CLI, if merges to main need a review)
#
# A cluster git already has at the desired count (the commit is made, the sync has not run yet)
# is skipped. A failure (the file cannot be found, the commit fails) is reported and the job goes
# on with the next cluster; it exits 1 if any failed, and the next run tries again.
# KUBECTL and RENDER_VALKEY override the commands (default: kubectl and render-valkey on PATH).
set -eu

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
  exit "${1:-2}"
}

dry_run=
push=
while [ "$#" -gt 0 ]; do
  case "$1" in
    --dry-run) dry_run=1; shift ;;
    --push) push=1; shift ;;
    -h|--help) usage 0 ;;
    --) shift; break ;;
    -*) echo "autoscale-commit.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ "$#" -ge 1 ] || usage

kubectl=${KUBECTL:-kubectl}
render=${RENDER_VALKEY:-render-valkey}

list=$(mktemp)
trap 'rm -f "$list"' EXIT
$kubectl get valkeyclusters --all-namespaces -o json | jq -r '
  .items[]
  | select(.status.autoscaling.desiredShards != null and .status.autoscaling.desiredShards != .spec.shards)
  | [.metadata.namespace, .metadata.name, (.spec.shards | tostring), (.status.autoscaling.desiredShards | tostring),
     (.status.autoscaling.lastDecision // "Scale"), (.status.autoscaling.lastDecisionReason // "")]
  | @tsv' >"$list"

failed=0
committed=0
tab=$(printf '\t')
while IFS=$tab read -r ns name from to direction reason; do
  [ -n "$ns" ] || continue
  if ! file=$($render set-shards "$ns/$name" "$to" "$@"); then
    echo "autoscale-commit.sh: $ns/$name: cannot set $to shard(s) (see above)" >&2
    failed=1
    continue
  fi
  if git diff --quiet -- "$file"; then
    echo "$ns/$name: git already has $to shard(s) in $file; waiting for the sync"
    continue
  fi
  # The plan of exactly this change: the packages at HEAD against them as edited.
  plan=$($render plan --base-rev HEAD "$@" 2>&1 || true)
  message=$(printf 'autoscale %s/%s: %s, shards %s -> %s\n\n%s\n\n%s\n' "$ns" "$name" "$direction" "$from" "$to" "$reason" "$plan")
  if [ -n "$dry_run" ]; then
    git checkout --quiet -- "$file"
    printf '%s\n--- would commit %s\n' "$message" "$file"
    continue
  fi
  if git commit --quiet -m "$message" -- "$file"; then
    committed=1
    echo "$ns/$name: committed $from -> $to shard(s) in $file"
  else
    git checkout --quiet -- "$file" || true
    echo "autoscale-commit.sh: $ns/$name: the commit failed" >&2
    failed=1
  fi
done <"$list"

if [ -n "$push" ] && [ "$committed" = 1 ]; then
  git push --quiet || { echo "autoscale-commit.sh: git push failed; the commits stay local" >&2; failed=1; }
fi
exit "$failed"
