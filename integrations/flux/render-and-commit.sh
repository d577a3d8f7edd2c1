#!/bin/sh
# Render valkey-krm packages in CI, for Flux (which runs no plugins, so it can only apply
# what is already rendered). Copy this script into the repository that holds your packages.
#
#   render-and-commit.sh [--check | --commit] [--config FILE] OUTPUT PATH...
#
# Renders PATH... (kpt packages, directories or files: menus, clusters, your own manifests)
# with render-valkey's plain-files mode into the single file OUTPUT, which a Flux
# Kustomization (or `flux push artifact`) then picks up.
#
#   (default)  write OUTPUT if the render succeeds
#   --check    write nothing; exit 1 if OUTPUT is missing or differs from a fresh render
#              (run it on pull requests: a stale render fails the build)
#   --commit   write OUTPUT, then `git commit` it if it changed (run it on the main branch)
#   --config   the render config file (default: the one ValkeyRenderConfig among PATH...)
#
# Any render error leaves OUTPUT untouched and exits 1: an empty render would make Flux prune
# every cluster. RENDER_VALKEY overrides the command (default: render-valkey on PATH), e.g.
#   RENDER_VALKEY="docker run --rm -i -v $PWD:/src:ro -w /src ghcr.io/valkey-krm/valkey-krm:0.1.0"
set -eu

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
  exit "${1:-2}"
}

mode=write
config=
while [ "$#" -gt 0 ]; do
  case "$1" in
    --check) mode=check; shift ;;
    --commit) mode=commit; shift ;;
    --config) [ "$#" -ge 2 ] || usage; config=$2; shift 2 ;;
    --config=*) config=${1#--config=}; shift ;;
    -h|--help) usage 0 ;;
    --) shift; break ;;
    -*) echo "render-and-commit.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ "$#" -ge 2 ] || usage
output=$1
shift

# OUTPUT must not be read back as input: its copies of the clusters would be duplicates.
here=$(pwd -P)
case "$output" in /*) output_abs=$output ;; *) output_abs=$here/$output ;; esac
for p in "$@"; do
  [ -d "$p" ] || continue
  dir=$(cd "$p" && pwd -P)
  case "$output_abs" in
    "$dir"/*)
      echo "render-and-commit.sh: $output is inside $p, which is rendered; write it outside the rendered paths" >&2
      exit 2 ;;
  esac
done

tmp=$(mktemp "${TMPDIR:-/tmp}/valkey-render.XXXXXX")
trap 'rm -f "$tmp"' EXIT

# No pipe: render-valkey's own exit status decides, and its report stays on stderr.
if [ -n "$config" ]; then set -- --config "$config" "$@"; fi
${RENDER_VALKEY:-render-valkey} "$@" >"$tmp" || {
  echo "render-and-commit.sh: render failed; $output left as it was" >&2
  exit 1
}
if [ ! -s "$tmp" ]; then
  echo "render-and-commit.sh: the render is empty; refusing to write $output (Flux would prune everything)" >&2
  exit 1
fi

if [ "$mode" = check ]; then
  if [ -f "$output" ] && cmp -s "$tmp" "$output"; then
    echo "render-and-commit.sh: $output is up to date" >&2
    exit 0
  fi
  echo "render-and-commit.sh: $output is stale; run render-and-commit.sh and commit the result:" >&2
  if [ -f "$output" ]; then diff -u "$output" "$tmp" >&2 || true; else echo "  ($output does not exist)" >&2; fi
  exit 1
fi

mkdir -p "$(dirname "$output")"
if [ -f "$output" ] && cmp -s "$tmp" "$output"; then
  echo "render-and-commit.sh: $output is up to date" >&2
else
  # Same directory, then rename: readers never see a half-written file.
  cat "$tmp" >"$output.tmp.$$"
  mv -f "$output.tmp.$$" "$output"
  echo "render-and-commit.sh: wrote $output" >&2
fi

if [ "$mode" = commit ]; then
  git add -- "$output"
  if git diff --cached --quiet -- "$output"; then
    echo "render-and-commit.sh: nothing to commit" >&2
  else
    git commit --quiet -m "valkey-krm: render $output" -- "$output"
    echo "render-and-commit.sh: committed $output ($(git rev-parse --short HEAD))" >&2
  fi
fi
