# One image for the API, the workflow worker and the provider workers; the command picks the process.
FROM node:24-bookworm-slim

# ffmpeg: the built-in video provider renders with it.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ffmpeg ca-certificates \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
ENV NODE_ENV=production
# glibc gives each thread that allocates its own malloc arena (up to 8 per core) and keeps what an arena once held.
# The workflow worker's threads (the Temporal core's, the workflow thread, libuv's) kept 100 MB and more freed after
# a burst of 1,000 jobs, with the same live heaps; two arenas return it (npm run bench build, docs/scaling.md). sharp,
# on the provider workers, suffers the same allocator behaviour.
ENV MALLOC_ARENA_MAX=2

COPY package.json package-lock.json ./
# Every workspace's package.json (npm ci installs them with the root).
COPY bin/package.json bin/
COPY clients/typescript/package.json clients/typescript/
COPY console/package.json console/
# Development dependencies too: Vite builds the web console below. @contentauth/c2pa-node keeps the Linux x86-64
# binary its npm package ships: its install step, which would download one from GitHub, is skipped (package.json
# denies it in allowScripts; SKIP_RUST_BUILD tells the step itself, for an npm that does not read allowScripts).
RUN SKIP_RUST_BUILD=1 npm ci --no-audit --no-fund --include=dev

COPY . .
# The web console, served by the API from console/dist at /console.
RUN npm run console:build
# The processes as plain JavaScript in dist/ and the workflow bundles made once here, not at each worker start
# (npm run build; it generates the Prisma client first, which npm ci leaves ungenerated, and type-checks against it).
RUN npm run build
# Node's compile cache, filled here for the modules the processes load at start: each start reads their compiled code
# instead of compiling it again (npm run bench build). Written by root at build time, read by the node user.
ENV NODE_COMPILE_CACHE=/app/.node-compile-cache
RUN node -e "require('./dist/src/api/app'); require('./dist/src/workers/workflowWorker'); require('./dist/src/workers/providerWorker')" \
    && chown -R node:node /app/.node-compile-cache

USER node
EXPOSE 3000
# The API's V8 options (API_NODE_OPTIONS in scripts/lib/app.js): Node 24 would let its young generation grow to
# 128 MB during a burst of submits and hold it (docs/scaling.md).
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "dist/src/api/server.js"]
