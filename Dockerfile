# Multi-stage image: the build stage installs every dependency (better-sqlite3 compiles; esbuild
# bundles the server and the browser code), builds, then drops the dev dependencies; the runtime
# stage carries only what `npm start` needs. Podman: build with `--format docker` (the OCI format
# drops HEALTHCHECK).
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY src ./src
COPY migrations ./migrations
COPY locales ./locales
RUN npm run build
# The browser-only packages and esbuild are bundled into dist/ above: gone from here on. npm keeps
# TypeScript as an optional peer of valibot (under @telegram-apps/init-data-node); nothing loads it
# at run time.
RUN npm prune --omit=dev && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver && npm cache clean --force

FROM node:24-bookworm-slim
# Set at build time: --build-arg VERSION=$(node -p "require('./package.json').version") --build-arg SOURCE=<repository URL>.
ARG VERSION=0.1.0
ARG SOURCE=""
LABEL org.opencontainers.image.title="tron-energy-bot" \
      org.opencontainers.image.description="Telegram front-end for the TRON energy & bandwidth marketplace" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="MIT"
# HOST=0.0.0.0 so the published port reaches the server. Without BOT_TOKEN that would serve the
# local playground (demo key, every simulated user) to the network, so the container refuses to
# start and says so; PLAYGROUND_PUBLIC is deliberately not set here: exposing the playground is
# the operator's explicit choice (docker run -e PLAYGROUND_PUBLIC=true …), never the image's.
ENV NODE_ENV=production \
    DATABASE_URL=file:/data/bot.db \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
# The /stats chart's fonts: DejaVu Sans for Latin and Cyrillic, WenQuanYi Micro Hei for Chinese.
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core fonts-wqy-microhei && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/src ./src
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/locales ./locales
# SQLite's folder (DATABASE_URL=file:/data/bot.db, the generated secret key beside it). No VOLUME
# here: with PostgreSQL nothing is kept on disk, so each replica would get an unused anonymous
# volume; mount one at /data when running on SQLite (docker run -v bot-data:/data …).
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
# GIT_COMMIT names the build in /metrics (bot_build_info): docker build --build-arg GIT_COMMIT=$(git rev-parse HEAD) .
# Last, so a new commit rebuilds no layer above.
ARG GIT_COMMIT=unknown
ENV GIT_COMMIT=$GIT_COMMIT
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "--enable-source-maps", "dist/main.mjs"]
