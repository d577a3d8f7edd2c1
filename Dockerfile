# valkey-krm: the KRM function image.
#
#   docker build -t valkey-krm .
#
# The default entrypoint is render-valkey, so the image works as a kpt or kustomize
# container function (`image:` in a Kptfile; `container.image` in a kustomize function
# annotation): a ResourceList on stdin, a ResourceList on stdout. With arguments it is the
# plain-files renderer (`docker run --rm -v "$PWD:/src:ro" -w /src IMAGE PATH...`).
# The same image is the Argo CD plugin sidecar (integrations/argocd) and carries every other
# bundled entry point (validate-valkey, valkey-status-sync): override the entrypoint, or set a
# container `command:`, to run them.
#
# Only dist/ is copied into the runtime stage (the launchers, the shared KRM bundle with its V8
# code cache, the controller bundle): no node_modules, no sources. Both stages use the same Node
# image, so the code cache made at build time is valid at run time.
# BASE is the Node image of both stages: by default the pinned public one (pin it by digest when
# you publish). Without a registry, scripts/build-image.sh builds a local base from the machine's
# own node, npm and BusyBox and passes it here (`--build-arg BASE=...`): that is how the tests
# build and run this image with podman (docs/image.md).
ARG BASE=node:22.20.0-alpine3.22

# --- build: install the exact lockfile, bundle functions/*.ts into dist/ ---
FROM ${BASE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/ scripts/
COPY functions/ functions/
COPY src/ src/
# The build renders the examples once to make the code cache the functions start with.
COPY kptfile-examples/ kptfile-examples/
RUN node scripts/build.mjs

# --- runtime: node and the bundles, as a non-root user ---
FROM ${BASE} AS runtime
# The release (package.json's version): scripts/build-image.sh and the release workflow pass it.
ARG VERSION
LABEL org.opencontainers.image.title="valkey-krm" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="https://github.com/valkey-krm/valkey-krm" \
      org.opencontainers.image.description="KRM function that renders Valkey clusters from a menu of images and configs" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production
COPY --from=build /src/dist/ /opt/valkey-krm/
# Every bundle on PATH under its command name: render-valkey, validate-valkey, ...
RUN set -eu; \
    for f in /opt/valkey-krm/*.mjs /opt/valkey-krm/*.cjs; do \
      chmod 0755 "$f"; \
      name="$(basename "$f")"; \
      ln -s "$f" "/usr/local/bin/${name%.*}"; \
    done; \
    /usr/local/bin/render-valkey --version
# 65532: no home, no shell login, not root. kpt runs container functions as `nobody` anyway;
# Argo CD's sidecar sets runAsUser 999. The bundles are world-readable, so any uid works.
USER 65532:65532
WORKDIR /src
ENTRYPOINT ["/usr/local/bin/render-valkey"]
