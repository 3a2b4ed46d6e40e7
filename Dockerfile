# The engine (`mrtq serve`) of docker-compose.yml. The TypeScript runs through tsx at start, as with
# `npm start`, so the image holds the sources and the production dependencies; there is no build step.
# Never built on the project's build machines (no Docker engine there): test/unit/deploy checks it.
FROM node:20-bookworm-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so that editing the sources reuses this layer. npm ci runs the postinstall
# (patch-package), which needs patches/: the ZooKeeper client refuses to start unpatched.
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# tsconfig.json too, so tsx compiles with the same settings as in development.
COPY tsconfig.json ./
COPY bin ./bin
COPY machines ./machines
COPY otel ./otel
COPY src ./src
COPY ui ./ui
# The default MRTQ_PROFILES_DIR is <app>/profiles.
COPY profiles ./profiles

# The local store, inventory, minter, outbox and working directories live under the data directory,
# a volume owned by the unprivileged user (a new named volume takes this ownership).
RUN mkdir -p /var/lib/mrtq && chown node:node /var/lib/mrtq
# Inside a container the API must listen beyond loopback; without MRTQ_API_TOKEN it stays read-only.
ENV MRTQ_DATA_DIR=/var/lib/mrtq MRTQ_CONTAINERS=off MRTQ_HTTP_HOST=0.0.0.0
# The engine's heap budget (src/serve-flags.ts says why); override NODE_OPTIONS to change it.
ENV NODE_OPTIONS=--max-old-space-size=1024
USER node

EXPOSE 8470
# slim has no curl: node's own fetch asks /healthz (alive; /readyz would also wait for ZooKeeper).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.MRTQ_HTTP_PORT || 8470) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/mrtq.js"]
CMD ["serve"]
