#!/bin/sh
# The autoscaling job (contributing/autoscaling-design.md): the controller decides and writes
# status.autoscaling.desiredShards; this job turns each decision into a commit, and the normal
# render / plan / review / sync path carries it out. Copy it into the repository that holds your
# packages and run it on a schedule (a CI job, or a CronJob with a deploy key).
#
#   autoscale-commit.sh [--dry-run] [--push] [--branch PREFIX] PATH...
#
# For every ValkeyCluster whose status.autoscaling.desiredShards differs from spec.shards (read
# with kubectl from the cluster the controller runs in), sets spec.shards in the one file under
# PATH... that defines it (render-valkey set-shards: one line changes, every other byte stays),
# and commits it, one commit per cluster, with the decision's reason and `render-valkey plan` of
# the change in the message.
#
#   --dry-run        change and commit nothing: print each commit message it would write
#   --push           git push after the commits (with --branch: push each branch to origin)
#   --branch PREFIX  where merges need a review: each decision is committed on its own branch,
#                    PREFIX/NAMESPACE-NAME-SHARDS, made from the current branch (which is left as
#                    it was); a decision whose branch exists already (locally or on origin) is
#                    skipped, its pull request is still open. With --push, the command in
#                    AUTOSCALE_OPEN_PR (e.g. 'gh pr create --head "$AUTOSCALE_BRANCH" --fill')
#                    runs after each push, with AUTOSCALE_BRANCH, AUTOSCALE_TITLE and
#                    AUTOSCALE_BODY in its environment
#
# The edit is a compare-and-swap: spec.shards in git changes only while it still says the count the
# decision was made from (status.autoscaling.lastDecisionFromShards, else the running spec.shards).
# A file that says another count has moved on since (a newer commit, not synced yet): the stale
# decision is reported and skipped, never written over it; the controller decides again once the
# newer count runs. A cluster git already has at the desired count (the commit is made, the sync
# has not run yet) is skipped. A failure (the file cannot be found, the commit fails) is reported and the job goes
# on with the next cluster; it exits 1 if any failed, and the next run tries again.
# KUBECTL and RENDER_VALKEY override the commands (default: kubectl and render-valkey on PATH).
set -eu

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
  exit "${1:-2}"
}

dry_run=
push=
prefix=
while [ "$#" -gt 0 ]; do
  case "$1" in
    --dry-run) dry_run=1; shift ;;
    --push) push=1; shift ;;
    --branch)
      [ "$#" -ge 2 ] && [ -n "$2" ] || { echo "autoscale-commit.sh: --branch needs a prefix, e.g. --branch autoscale" >&2; usage; }
      prefix=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    --) shift; break ;;
    -*) echo "autoscale-commit.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ "$#" -ge 1 ] || usage

kubectl=${KUBECTL:-kubectl}
render=${RENDER_VALKEY:-render-valkey}
base=
if [ -n "$prefix" ]; then
  base=$(git symbolic-ref --quiet --short HEAD) || { echo "autoscale-commit.sh: --branch needs a checked-out branch to start from" >&2; exit 2; }
fi

list=$(mktemp)
trap 'rm -f "$list"' EXIT
$kubectl get valkeyclusters --all-namespaces -o json | jq -r '
  .items[]
  | select(.status.autoscaling.desiredShards != null and .status.autoscaling.desiredShards != .spec.shards)
  | [.metadata.namespace, .metadata.name, ((.status.autoscaling.lastDecisionFromShards // .spec.shards) | tostring),
     (.status.autoscaling.desiredShards | tostring),
     (.status.autoscaling.lastDecision // "Scale"), (.status.autoscaling.lastDecisionReason // "")]
  | @tsv' >"$list"

failed=0
committed=0
tab=$(printf '\t')
while IFS=$tab read -r ns name from to direction reason; do
  [ -n "$ns" ] || continue
  branch=
  if [ -n "$prefix" ]; then
    branch="$prefix/$ns-$name-$to"
    # With --push, origin is asked (a branch someone else's run pushed counts too).
    if git rev-parse --verify --quiet "refs/heads/$branch" >/dev/null ||
      { [ -n "$push" ] && git ls-remote --exit-code --heads origin "$branch" >/dev/null 2>&1; }; then
      echo "$ns/$name: $from -> $to shard(s) is proposed on branch $branch already; waiting for its review"
      continue
    fi
  fi
  set +e
  file=$($render set-shards --from "$from" "$ns/$name" "$to" "$@")
  status=$?
  set -e
  if [ "$status" = 3 ]; then
    echo "$ns/$name: $direction $from -> $to is stale (see above); not committed" >&2
    continue
  fi
  if [ "$status" != 0 ]; then
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
  if [ -n "$branch" ]; then
    # The edit goes with the checkout to the new branch; the base branch is left as it was.
    if ! git checkout --quiet -b "$branch" || ! git commit --quiet -m "$message" -- "$file"; then
      git checkout --quiet -- "$file" 2>/dev/null || true
      git checkout --quiet "$base" 2>/dev/null || true
      git branch --quiet -D "$branch" 2>/dev/null || true
      echo "autoscale-commit.sh: $ns/$name: the commit on branch $branch failed" >&2
      failed=1
      continue
    fi
    git checkout --quiet "$base"
    echo "$ns/$name: committed $from -> $to shard(s) in $file on branch $branch"
    [ -n "$push" ] || continue
    if ! git push --quiet -u origin "$branch"; then
      echo "autoscale-commit.sh: $ns/$name: git push of $branch failed; the branch stays local" >&2
      failed=1
      continue
    fi
    if [ -n "${AUTOSCALE_OPEN_PR:-}" ]; then
      if ! AUTOSCALE_BRANCH=$branch AUTOSCALE_TITLE="autoscale $ns/$name: $direction, shards $from -> $to" AUTOSCALE_BODY=$message \
        sh -c "$AUTOSCALE_OPEN_PR"; then
        echo "autoscale-commit.sh: $ns/$name: AUTOSCALE_OPEN_PR failed for branch $branch (it is pushed)" >&2
        failed=1
      fi
    fi
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

if [ -z "$prefix" ] && [ -n "$push" ] && [ "$committed" = 1 ]; then
  git push --quiet || { echo "autoscale-commit.sh: git push failed; the commits stay local" >&2; failed=1; }
fi
exit "$failed"
