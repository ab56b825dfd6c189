# syntax=docker/dockerfile:1
# The product's image: one image, two roles. `tcr worker` (workflows + per-account registry activity
# workers) and `tcr ingress` (signed webhook receiver). temporal-docker/docker-compose.yml runs both.
# No secret is ever copied into or set in this image: configuration comes from the environment and
# from Docker secrets at run time (docs/operations.md).

ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# --- build: full dependencies, compile TypeScript to dist/ -----------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm ci`: exactly what package-lock.json locks (it refuses a lock file out of step with package.json).
# --ignore-scripts: no dependency's install script runs in the build. The two that have one do not
# need it: protobufjs (a version notice) and @swc/core (checks its platform binary, which comes as an
# optional dependency of the lock file).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- prod-deps: production dependencies only, from the same lock file --------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime -----------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# jemalloc instead of glibc's malloc: the worker's native memory (the SDK's Rust core and its threads)
# fragments far less as workflows are cached and evicted. At 10,000 open registrations with a 2,000
# cache the worker held 880 MB instead of 1,309 MB (glibc with two arenas) and 1,236-1,360 MB (glibc's
# defaults); docs/benchmarks.md, section 7. Debian's package at the version scripts/toolchain.env pins
# (JEMALLOC_DEB_VERSION); the link gives it one path on amd64 and arm64. Freed pages go back to the
# system after a second (dirty) and at once (muzzy), by jemalloc's background thread.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libjemalloc2=5.3.0-1 \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s "/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2" /usr/local/lib/libjemalloc.so.2
ENV LD_PRELOAD=/usr/local/lib/libjemalloc.so.2
ENV MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0
WORKDIR /app
COPY --from=prod-deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
# Pinned tool versions: read by src/toolchain/paths.ts when `tcr dev` looks for a Temporal CLI.
COPY --chown=root:root scripts/toolchain.env ./scripts/toolchain.env
# The `node` user (uid 1000) ships with the image; the code is owned by root and read-only to it.
USER node
# 8470: webhook ingress (+ /healthz, /readyz, /metrics); 9464: worker Prometheus metrics.
EXPOSE 8470 9464
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["worker"]
