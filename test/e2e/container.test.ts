import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configSchema, parseConfig } from "#src/config";
import { parseYamlSubset, type YamlValue } from "../kit/yaml-subset";
import { startWorld } from "../kit/world";

/**
 * No container engine runs on the machines this is built on, so the Dockerfile and compose.yaml
 * are read instead, and held to the app they package: what they set, probe and run must be what
 * the app knows, serves and does.
 */
const dockerfile = readFileSync("Dockerfile", "utf8");
const composeText = readFileSync("compose.yaml", "utf8");
const compose = parseYamlSubset(composeText) as { services: Record<string, Record<string, YamlValue>> };
const known = new Set(Object.keys(configSchema.shape));

/** The services that run the bot: those built from this repository. */
const botServices = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);

function environmentOf(service: Record<string, YamlValue>): Record<string, string> {
  const environment = service.environment;
  if (environment === undefined || environment === null) return {};
  if (Array.isArray(environment))
    return Object.fromEntries(environment.map((entry) => String(entry).split(/=(.*)/s).slice(0, 2)));
  return environment as Record<string, string>;
}

/** The Dockerfile's instructions, continuation lines joined; only those of the final stage. */
function finalStage(): Array<{ instruction: string; args: string }> {
  const joined = dockerfile.replace(/\\\r?\n/g, " ");
  const instructions = joined
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [instruction, ...rest] = line.split(/\s+/);
      return { instruction: instruction!.toUpperCase(), args: rest.join(" ") };
    });
  const lastFrom = instructions.map((each) => each.instruction).lastIndexOf("FROM");
  return instructions.slice(lastFrom);
}

/** Seconds in a compose duration ("20s", "1m30s", "1500ms"). */
function durationSeconds(text: string): number {
  let seconds = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g))
    seconds += Number(amount) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as "ms" | "s" | "m" | "h"];
  return seconds;
}

describe("the container (Dockerfile and compose.yaml, read: no engine runs here)", () => {
  it("compose runs the bot in at least one service", () => {
    expect(botServices.length).toBeGreaterThan(0);
  });

  it("sets only variables the config knows, in compose and in the image", () => {
    for (const [name, service] of botServices) {
      for (const variable of Object.keys(environmentOf(service)))
        expect(known.has(variable), `${name} sets ${variable}, which src/config.ts does not know`).toBe(true);
    }
    const imageEnv = finalStage()
      .filter((each) => each.instruction === "ENV")
      .flatMap((each) => [...each.args.matchAll(/([A-Z_][A-Z0-9_]*)=/g)].map((match) => match[1]!));
    expect(imageEnv.length).toBeGreaterThan(0);
    for (const variable of imageEnv)
      expect(known.has(variable), `the image sets ${variable}, which src/config.ts does not know`).toBe(true);
  });

  it("requires MARKETPLACE_URL wherever the bot runs on PostgreSQL, as the config itself does", () => {
    const onPostgres = botServices.filter(([, service]) =>
      /^postgres(ql)?:/.test(environmentOf(service).DATABASE_URL ?? ""),
    );
    expect(onPostgres.length).toBeGreaterThan(0);
    for (const [name, service] of onPostgres) {
      // ${MARKETPLACE_URL:?…}: compose refuses to start without it, instead of the bot failing later.
      expect(environmentOf(service).MARKETPLACE_URL, name).toMatch(/^\$\{MARKETPLACE_URL:\?/);
    }
    const env = {
      BOT_TOKEN: "123456789:AAEexampleexampleexampleexample0000",
      DATABASE_URL: "postgres://bot:bot@postgres:5432/bot",
      SECRET_KEY: Buffer.alloc(32, 1).toString("base64"),
    };
    const without = parseConfig(env);
    expect(without.ok).toBe(false);
    expect(without.ok ? [] : without.problems.join("\n")).toMatch(/^MARKETPLACE_URL: required/m);
    expect(parseConfig({ ...env, MARKETPLACE_URL: "https://marketplace.example" }).ok).toBe(true);
  });

  it("probes health on paths the app serves", async () => {
    const paths = new Set<string>();
    const imageCheck = finalStage().find((each) => each.instruction === "HEALTHCHECK");
    expect(imageCheck, "the image has a HEALTHCHECK").toBeDefined();
    for (const match of imageCheck!.args.matchAll(/['"`]\s*(\/[a-z]+)['"`]/g)) paths.add(match[1]!);
    for (const [, service] of botServices) {
      const test = (service.healthcheck as { test?: YamlValue } | undefined)?.test;
      for (const match of JSON.stringify(test ?? "").matchAll(/127\.0\.0\.1:\d+(\/[a-z]+)/g)) paths.add(match[1]!);
    }
    expect([...paths].sort()).toEqual(["/healthz", "/readyz"]);
    const world = await startWorld();
    try {
      for (const path of paths) expect((await fetch(`${world.app.url}${path}`)).status, path).toBe(200);
      expect((await fetch(`${world.app.url}/healthz-not-a-route`)).status).toBe(404);
    } finally {
      await world.stop();
    }
  });

  it("runs as a non-root user", () => {
    const users = finalStage().filter((each) => each.instruction === "USER");
    expect(users.length, "the final stage sets USER").toBeGreaterThan(0);
    expect(users[users.length - 1]!.args).toBe("node");
  });

  it("starts with the command `npm start` runs after its build (the README's)", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
    const started = /(?:^|&&\s*)exec\s+(node\s[^&]+)$/.exec(pkg.scripts.start!)?.[1]?.trim();
    expect(started).toBe("node --enable-source-maps dist/main.mjs");
    expect(readFileSync("README.md", "utf8")).toContain("npm start");
    const cmd = finalStage().find((each) => each.instruction === "CMD");
    expect((JSON.parse(cmd!.args) as string[]).join(" ")).toBe(started);
    // The build the start command runs from happens in the image.
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
  });

  it("gives the bot longer to stop than its own drain takes", () => {
    const main = readFileSync("src/main.ts", "utf8");
    const drainMs = Number(
      /"shutdown took longer than[^"]*"\);\s*process\.exit\(1\);\s*\},\s*([\d_]+)\)/.exec(main)?.[1]?.replace(/_/g, ""),
    );
    expect(drainMs, "src/main.ts's shutdown bound").toBeGreaterThan(0);
    for (const [name, service] of botServices) {
      const grace = service.stop_grace_period;
      expect(typeof grace, `${name} sets stop_grace_period`).toBe("string");
      expect(durationSeconds(grace as string), name).toBeGreaterThan(drainMs / 1000);
    }
  });
});

/** The packages the server's own code (not the browser code under web/) imports. */
function serverImports(dir = "src"): Set<string> {
  const found = new Set<string>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "web") for (const name of serverImports(path)) found.add(name);
    } else if (entry.name.endsWith(".ts")) {
      const text = readFileSync(path, "utf8");
      const specs = [
        ...text.matchAll(/^(?:import|export)\b[^;]*?from "([^".#][^"]*)"/gm),
        ...text.matchAll(/\bimport\("([^".#][^"]*)"\)/g),
      ].map((match) => match[1]!);
      for (const spec of specs) found.add(/^(@[^/]+\/[^/]+|[^/]+)/.exec(spec)![1]!);
    }
  }
  return found;
}

describe("a lean image", () => {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };

  it("ships as runtime dependencies only what the server imports; build tools and browser-only packages are dev dependencies", () => {
    for (const name of [
      "esbuild",
      "typescript",
      "@telegram-apps/bridge",
      "@telegram-apps/transformers",
      "preact",
      "htm",
    ]) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.devDependencies[name], name).toBeDefined();
    }
    const imported = serverImports();
    for (const name of ["grammy", "pg", "@telegram-apps/init-data-node"])
      expect(imported.has(name), `the scan finds ${name}`).toBe(true);
    const builtins = new Set(builtinModules);
    for (const name of imported)
      if (!name.startsWith("node:") && !builtins.has(name))
        expect(pkg.dependencies[name], `src imports ${name} at run time`).toBeDefined();
  });

  it("builds with dev dependencies, prunes them before the runtime stage, labels the image and declares no volume", () => {
    expect(dockerfile).toMatch(/^RUN npm ci$/m);
    expect(dockerfile).toMatch(/^RUN npm prune --omit=dev\b.*rm -rf node_modules\/typescript/m);
    const labels = finalStage()
      .filter((each) => each.instruction === "LABEL")
      .map((each) => each.args)
      .join(" ");
    for (const key of ["version", "source", "licenses"]) expect(labels).toContain(`org.opencontainers.image.${key}=`);
    expect(finalStage().filter((each) => each.instruction === "VOLUME")).toEqual([]);
  });

  it("the balancer health-checks each replica on /readyz (static upstreams: dynamic ones get no active checks)", () => {
    const caddyfile = String(
      (compose as unknown as { configs: Record<string, { content?: string }> }).configs.caddyfile?.content ?? "",
    );
    expect(caddyfile).not.toMatch(/\bdynamic\b/);
    expect(caddyfile).toMatch(/health_uri \/readyz/);
    const upstreams = /reverse_proxy ([^{]+)\{/.exec(caddyfile)?.[1]?.trim().split(/\s+/) ?? [];
    expect(upstreams.sort()).toEqual(botServices.map(([name]) => `${name}:8080`).sort());
  });
});
