#!/usr/bin/env bash
# Makes a release's artifacts, the same steps the release workflow (.github/workflows/release.yml)
# runs on a tag, so each can be run and checked on a workstation:
#
#   1. the version: package.json's, and with --tag vX.Y.Z the tag must name it, and CHANGELOG.md
#      must have its section
#   2. the tests (scripts/test-all.sh, the CI suite); --skip-tests when they just ran
#   3. the npm tarball: npm run build, then npm pack          -> valkey-krm-X.Y.Z.tgz
#   4. the image: scripts/build-image.sh (podman, this machine's architecture, on a local base),
#      saved as an OCI archive                                -> valkey-krm-X.Y.Z.oci.tar
#      (the workflow builds linux/amd64 and linux/arm64 with docker buildx on the Dockerfile's
#      pinned public base instead, and pushes them)
#   5. the SBOM of what the tarball and the image ship: npm sbom, CycloneDX, production
#      dependencies only                                     -> valkey-krm-X.Y.Z.sbom.cdx.json
#   6. checksums of everything above                         -> SHA256SUMS
#
# Publishing (npm publish, the image push, the GitHub release) happens only in the workflow, with
# its credentials; this script never publishes.
#
# Usage: scripts/release.sh [--tag vX.Y.Z] [--skip-tests] [--out DIR]   (default DIR: release/)
set -euo pipefail
cd "$(dirname "$0")/.."

tag="" skip_tests=0 out="release"
while (($#)); do
  case "$1" in
    --tag) tag="${2:?--tag needs vX.Y.Z}"; shift ;;
    --skip-tests) skip_tests=1 ;;
    --out) out="${2:?--out needs a directory}"; shift ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "release.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

version="$(node -p 'require("./package.json").version')"
say() { echo "release.sh: $*" >&2; }

# 1. The version.
if [[ -n $tag && $tag != "v$version" ]]; then
  say "the tag $tag does not name package.json's version $version: bump package.json (and CHANGELOG.md) first"
  exit 1
fi
if ! grep -Eq "^## \[${version//./\\.}\] - [0-9]{4}-[0-9]{2}-[0-9]{2}$" CHANGELOG.md; then
  say "CHANGELOG.md has no section '## [$version] - YYYY-MM-DD': rename [Unreleased] to it first"
  exit 1
fi
say "version $version"

# 2. The tests.
if ((skip_tests)); then say "tests skipped (--skip-tests)"; else bash scripts/test-all.sh; fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -f "$out"/valkey-krm-* "$out/SHA256SUMS"

# 3. The npm tarball (package.json "files": dist, crds, schemas, deploy; LICENSE and NOTICE too).
npm run -s build
npm pack --silent --pack-destination "$out" >/dev/null
[ -f "$out/valkey-krm-$version.tgz" ] || { say "npm pack made no valkey-krm-$version.tgz"; exit 1; }
say "npm tarball: $out/valkey-krm-$version.tgz"

# 4. The image, as an OCI archive.
image="$(bash scripts/build-image.sh --print-env | sed -n 's/^IMAGE=//p')"
[ -n "$image" ] || { say "scripts/build-image.sh printed no IMAGE="; exit 1; }
label="$(podman image inspect --format '{{index .Labels "org.opencontainers.image.version"}}' "$image")"
[ "$label" = "$version" ] || { say "the image's version label is '$label', not $version"; exit 1; }
rm -f "$out/valkey-krm-$version.oci.tar"
podman save --quiet --format oci-archive -o "$out/valkey-krm-$version.oci.tar" "$image"
say "image $image (label version $label): $out/valkey-krm-$version.oci.tar"

# 5. The SBOM.
npm sbom --sbom-format cyclonedx --omit dev --omit optional >"$out/valkey-krm-$version.sbom.cdx.json"
node -e '
  const sbom = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  if (sbom.bomFormat !== "CycloneDX" || !Array.isArray(sbom.components) || sbom.components.length === 0) process.exit(1);
' "$out/valkey-krm-$version.sbom.cdx.json" || { say "npm sbom made no CycloneDX document with components"; exit 1; }
say "SBOM: $out/valkey-krm-$version.sbom.cdx.json"

# 6. Checksums.
(cd "$out" && sha256sum "valkey-krm-$version".* >SHA256SUMS && sha256sum --check --quiet SHA256SUMS)
say "checksums: $out/SHA256SUMS"
cat "$out/SHA256SUMS"
