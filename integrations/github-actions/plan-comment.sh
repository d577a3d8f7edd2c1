#!/bin/sh
# Plan a pull request's change to valkey-krm packages and post the plan on the pull request.
#
#   plan-comment.sh --base-rev REV [--fail-on LEVEL] [--config FILE] PATH...
#
# Run it from the repository root. It extracts PATH... as they are at REV (e.g. origin/main)
# with `git archive` into a hidden directory of the working tree (so a render-valkey container
# that mounts the working tree sees it, and needs no git of its own), runs
# `render-valkey plan --base ... --format markdown PATH...`, and posts the Markdown with
# post_comment below: one comment per pull request, updated on every push.
#
#   --base-rev REV   the revision the pull request merges into (fetch it first)
#   --fail-on LEVEL  held, risky, roll or any: exit 3 after posting when a cluster trips it
#   --config FILE    the render config (default: the one ValkeyRenderConfig among PATH...)
#
# Exit: 0 posted; 1 a side is invalid (the comment says which, and is posted); 2 bad usage or a
# failure that posts nothing; 3 the --fail-on gate tripped (posted).
#
# Environment:
#   RENDER_VALKEY      the command (default: render-valkey on PATH), e.g.
#                      docker run --rm -i -v "$PWD:/src" -w /src ghcr.io/valkey-krm/valkey-krm:0.1.0
#   PLAN_COMMENT_SINK  a file: write the comment there instead of calling GitHub (dry runs, tests)
#   PLAN_COMMENT_AUTHOR  the login that posts (default github-actions[bot], GITHUB_TOKEN's user);
#                      only its own comment is ever edited
#   GITHUB_TOKEN, GITHUB_REPOSITORY (owner/name), PR_NUMBER, GITHUB_API_URL (default
#   https://api.github.com): for posting; curl and jq must be on PATH (GitHub's runners have both)
set -eu

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
  exit "${1:-2}"
}

# post_comment FILE: FILE becomes the pull request's plan comment. The comment that starts with
# the same first line (render-valkey's marker, <!-- valkey-krm-plan -->) AND was written by
# PLAN_COMMENT_AUTHOR is edited in place if there is one among the first 100 comments; otherwise
# a new comment is created. Anyone can write the marker: a comment by someone else is never
# adopted (editing it would put the plan under their name, or fail). With
# PLAN_COMMENT_SINK set, the body is written to that file instead and GitHub is not called.
post_comment() {
  if [ -n "${PLAN_COMMENT_SINK:-}" ]; then
    cp "$1" "$PLAN_COMMENT_SINK"
    echo "plan-comment.sh: wrote the comment to $PLAN_COMMENT_SINK" >&2
    return 0
  fi
  : "${GITHUB_TOKEN:?GITHUB_TOKEN is needed to post}" "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is needed to post}" "${PR_NUMBER:?PR_NUMBER is needed to post}"
  api=${GITHUB_API_URL:-https://api.github.com}/repos/$GITHUB_REPOSITORY/issues
  marker=$(head -n 1 "$1")
  jq -cRs '{body: .}' "$1" >"$work/comment.json"
  # Listing must succeed and give a JSON array: a failed list read as "no comment yet" would post
  # a second plan comment on every run that cannot list.
  if ! curl -fsS -H "Authorization: Bearer $GITHUB_TOKEN" -H 'Accept: application/vnd.github+json' \
    "$api/$PR_NUMBER/comments?per_page=100" >"$work/comments.json"; then
    echo "plan-comment.sh: cannot list the comments of #$PR_NUMBER, so nothing was posted (a new comment could duplicate the plan)" >&2
    return 1
  fi
  if ! existing=$(jq -er --arg marker "$marker" --arg author "${PLAN_COMMENT_AUTHOR:-github-actions[bot]}" \
    'if type == "array" then ([.[] | select(.user.login == $author and (.body | startswith($marker)))][0].id // "") else error("not a list") end' \
    "$work/comments.json"); then
    echo "plan-comment.sh: the comments of #$PR_NUMBER did not come back as a JSON list, so nothing was posted (a new comment could duplicate the plan)" >&2
    return 1
  fi
  if [ -n "$existing" ]; then
    curl -fsS -o /dev/null -X PATCH -H "Authorization: Bearer $GITHUB_TOKEN" -H 'Accept: application/vnd.github+json' \
      --data @"$work/comment.json" "$api/comments/$existing"
    echo "plan-comment.sh: updated comment $existing on #$PR_NUMBER" >&2
  else
    curl -fsS -o /dev/null -X POST -H "Authorization: Bearer $GITHUB_TOKEN" -H 'Accept: application/vnd.github+json' \
      --data @"$work/comment.json" "$api/$PR_NUMBER/comments"
    echo "plan-comment.sh: commented on #$PR_NUMBER" >&2
  fi
}

base_rev=
fail_on=
config=
while [ "$#" -gt 0 ]; do
  case "$1" in
    --base-rev) [ "$#" -ge 2 ] || usage; base_rev=$2; shift 2 ;;
    --fail-on) [ "$#" -ge 2 ] || usage; fail_on=$2; shift 2 ;;
    --config) [ "$#" -ge 2 ] || usage; config=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    --) shift; break ;;
    -*) echo "plan-comment.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ -n "$base_rev" ] && [ "$#" -ge 1 ] || usage
if [ -n "$(git rev-parse --show-prefix)" ]; then
  echo "plan-comment.sh: run it from the repository root" >&2
  exit 2
fi
if ! git rev-parse --verify --quiet "$base_rev^{commit}" >/dev/null; then
  echo "plan-comment.sh: no revision $base_rev (fetch it first, e.g. actions/checkout with fetch-depth: 0)" >&2
  exit 2
fi

work=$(mktemp -d ./.valkey-plan.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/base" "$work/empty"
# The same paths at the base revision; one the base does not have is an empty directory there.
top=$(pwd -P)
for path in "$@"; do
  case "$path" in -*) echo "plan-comment.sh: options go before the paths" >&2; exit 2 ;; esac
  # The pull request controls the working tree: a path that is (or passes through) a link must
  # still lead inside the repository, or the plan would read the CI machine's files.
  real=$(realpath "$path" 2>/dev/null) || real=$top/$path
  case "$real" in
    "$top" | "$top"/*) ;;
    *) echo "plan-comment.sh: $path leads outside the repository (through a link); plan paths inside it" >&2; exit 2 ;;
  esac
  if git cat-file -e "$base_rev:$path" 2>/dev/null; then
    git archive --format=tar "$base_rev" -- "$path" | tar -x -C "$work/base"
    set -- "$@" --base "$work/base/$path"
  else
    set -- "$@" --base "$work/empty"
  fi
done
if [ -n "$fail_on" ]; then set -- --fail-on "$fail_on" "$@"; fi
if [ -n "$config" ]; then set -- --config "$config" "$@"; fi

status=0
${RENDER_VALKEY:-render-valkey} plan --format markdown "$@" >"$work/plan.md" || status=$?
case "$status" in
  0 | 1 | 3) ;;
  *) echo "plan-comment.sh: render-valkey plan failed (exit $status); nothing posted" >&2; exit 2 ;;
esac
if [ ! -s "$work/plan.md" ]; then
  echo "plan-comment.sh: the plan is empty; nothing posted" >&2
  exit 2
fi
post_comment "$work/plan.md"
exit "$status"
