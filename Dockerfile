# Multi-stage image: dependencies are built (better-sqlite3 compiles) in the first stage,
# the runtime stage carries only what `npm start` needs. Untested here: no Docker engine
# runs on our build machines (see README).
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY tsconfig.json ./
COPY src ./src
COPY migrations ./migrations
COPY locales ./locales
RUN npm run build

FROM node:24-bookworm-slim
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
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# GIT_COMMIT names the build in /metrics (bot_build_info): docker build --build-arg GIT_COMMIT=$(git rev-parse HEAD) .
# Last, so a new commit rebuilds no layer above.
ARG GIT_COMMIT=unknown
ENV GIT_COMMIT=$GIT_COMMIT
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "--enable-source-maps", "dist/main.mjs"]
