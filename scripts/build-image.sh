#!/usr/bin/env bash
# Builds the project's image with podman from the Dockerfile at the repository root, on a local
# base image made from this machine's own packages: no container registry is needed (the npm
# registry is, for the build stage's `npm ci`, unless its layer is cached).
#
#   base   localhost/valkey-krm-base:<hash>  imported from a tarball: this machine's `node` and
#          npm, BusyBox (sh, env, find, grep, head...: what Alpine's node image has), the shared
#          libraries they load, /etc/passwd with root and nobody, /tmp, and this machine's CA
#          bundle (NODE_EXTRA_CA_CERTS: npm reaches the registry through whatever TLS proxy the
#          machine trusts).
#   image  localhost/valkey-krm:<hash>       `podman build --build-arg BASE=<base>` of the Dockerfile.
#
# Each <hash> is a SHA-256 of the inputs (the node, npm, BusyBox and CA bundle on this machine and
# build_base below for the base; the base, the Dockerfile, .dockerignore and every file of the build
# context for the image): when nothing changed, nothing is built and the script returns at once.
# Older tags of the image are removed after a build; the layer cache stays.
#
# Usage:
#   scripts/build-image.sh               build what is missing, print the image's name and size
#   scripts/build-image.sh --print-env   the same, but stdout carries only IMAGE=..., BASE=...,
#                                        CONTAINERS_CONF=... lines (progress goes to stderr)
#   scripts/build-image.sh --tag NAME [--push]
#                                        also tag the image NAME (your registry's name for it, e.g.
#                                        registry.example.com/platform/valkey-krm:0.1.0) and, with
#                                        --push, `podman push` it there (log in first: podman login)
#
# CONTAINERS_CONF: when unset, scripts/podman-containers.conf is used (runc, cgroupfs).
# VALKEY_KRM_IMAGE_DIR: where the lock and the containers.conf copy live (~/.cache/valkey-krm/image).
# Elsewhere, with a registry, build on the pinned public base instead: `docker build -t valkey-krm .`
set -euo pipefail
cd "$(dirname "$0")/.."

print_env=0
tag=""
push=0
while (($#)); do
  case "$1" in
    --print-env) print_env=1 ;;
    --tag) [[ $# -ge 2 && -n $2 ]] || { echo "build-image.sh: --tag needs an image name" >&2; exit 2; }; tag="$2"; shift ;;
    --push) push=1 ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-image.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
[[ $push == 0 || -n $tag ]] || { echo "build-image.sh: --push needs --tag NAME (where to push)" >&2; exit 2; }
if [[ $print_env == 1 ]]; then exec 3>&2; else exec 3>&1; fi
say() { echo "$@" >&3; }

for tool in podman node npm busybox sha256sum flock; do
  command -v "$tool" >/dev/null 2>&1 || { echo "build-image.sh: $tool is required on PATH (scripts/test-all.sh installs podman, runc and busybox)" >&2; exit 1; }
done

CACHE_DIR="${VALKEY_KRM_IMAGE_DIR:-$HOME/.cache/valkey-krm/image}"
mkdir -p "$CACHE_DIR"
if [[ -z ${CONTAINERS_CONF:-} ]]; then
  cp scripts/podman-containers.conf "$CACHE_DIR/containers.conf"
  export CONTAINERS_CONF="$CACHE_DIR/containers.conf"
fi

NODE_BIN="$(readlink -f "$(command -v node)")"
NPM_DIR="$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)"
BUSYBOX_BIN="$(readlink -f "$(command -v busybox)")"
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
NODE_VERSION="$("$NODE_BIN" --version)"

# The base image: a root filesystem made from this machine's files, imported as one layer.
build_base() {
  say "building the base image $BASE from this machine's node $NODE_VERSION, npm and BusyBox ..."
  rootfs="$(mktemp -d)"
  trap 'rm -rf "$rootfs"' EXIT
  mkdir -p "$rootfs"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,usr/local/lib/node_modules,etc,root}
  install -d -m 1777 "$rootfs/tmp"
  # Where the official node images have them: node and npm under /usr/local.
  cp -L "$NODE_BIN" "$rootfs/usr/local/bin/node"
  cp -a "$NPM_DIR" "$rootfs/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  cp -L "$BUSYBOX_BIN" "$rootfs/bin/busybox"
  for applet in $("$BUSYBOX_BIN" --list-full); do
    [[ -e $rootfs/$applet || -L $rootfs/$applet ]] || ln -s /bin/busybox "$rootfs/$applet"
  done
  # The shared libraries node and BusyBox load, at the paths the loader looks them up.
  for lib in $(ldd "$NODE_BIN" "$BUSYBOX_BIN" | grep -oE '/[^ ]+\.so[^ ]*' | sort -u); do
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -L "$lib" "$rootfs$lib"
  done
  printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' >"$rootfs/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$rootfs/etc/group"
  mkdir -p "$rootfs/etc/ssl/certs"
  cp -L "$CA_BUNDLE" "$rootfs/etc/ssl/certs/ca-certificates.crt"
  printf '%s\n' 'passwd: files' 'group: files' 'hosts: files dns' >"$rootfs/etc/nsswitch.conf"
  tar -C "$rootfs" --owner=0 --group=0 --numeric-owner -c . |
    podman import --quiet \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" \
      --change 'ENV NPM_CONFIG_UPDATE_NOTIFIER=false' \
      --change 'CMD ["node"]' \
      --message "valkey-krm local base: node $NODE_VERSION, npm, BusyBox" \
      - "$BASE" >/dev/null
  rm -rf "$rootfs"
  trap - EXIT
}

hash_of() { sha256sum | cut -c1-16; }
BASE_HASH="$( { sha256sum "$NODE_BIN" "$BUSYBOX_BIN" "$NPM_DIR/package.json" "$CA_BUNDLE" | cut -d' ' -f1; declare -f build_base; } | hash_of)"
BASE="localhost/valkey-krm-base:node${NODE_VERSION#v}-$BASE_HASH"

# The build context as .dockerignore lets it through (an allow list: these paths, every file).
CONTEXT=(package.json package-lock.json tsconfig.json scripts functions src kptfile-examples)
IMAGE_HASH="$( {
  echo "$BASE"
  sha256sum Dockerfile .dockerignore
  find "${CONTEXT[@]}" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
} | hash_of)"
IMAGE="localhost/valkey-krm:$IMAGE_HASH"

bytes() { podman image inspect --format '{{.Size}}' "$1"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
finish() {
  if [[ $print_env == 1 ]]; then
    echo "IMAGE=$IMAGE"
    echo "BASE=$BASE"
    echo "CONTAINERS_CONF=$CONTAINERS_CONF"
  fi
  local image base
  image="$(bytes "$IMAGE")"
  base="$(bytes "$BASE")"
  say "image: $IMAGE, $(mib "$image"): $(mib "$((image - base))") on the base $BASE ($(mib "$base"))"
  if [[ -n $tag ]]; then
    podman tag "$IMAGE" "$tag"
    say "tagged: $tag"
    if [[ $push == 1 ]]; then
      podman push --quiet "$tag" >&3
      say "pushed: $tag"
    fi
  fi
}

# Fast path: both images exist, no lock.
if podman image exists "$IMAGE" && podman image exists "$BASE"; then
  finish
  exit 0
fi

# Serialise concurrent invocations (parallel test files).
exec 9>"$CACHE_DIR/.lock"
flock 9

if ! podman image exists "$BASE"; then build_base; fi

if ! podman image exists "$IMAGE"; then
  say "building $IMAGE on $BASE ..."
  version="$(node -p 'require("./package.json").version')"   # the image label org.opencontainers.image.version
  podman build --quiet --layers --build-arg "BASE=$BASE" --build-arg "VERSION=$version" --label "valkey-krm.inputs=$IMAGE_HASH" -t "$IMAGE" -f Dockerfile . >&3
  # Older builds of the image (other hashes): untag them; the layer cache stays.
  podman images --format '{{.Repository}}:{{.Tag}}' --filter reference=localhost/valkey-krm |
    { grep -vxF "$IMAGE" || true; } | xargs -r podman rmi --force >/dev/null 2>&1 || true
fi
finish
