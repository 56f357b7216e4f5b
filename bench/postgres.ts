/**
 * The PostgreSQL the multi-replica part of the benchmark runs on: a fresh database on the server
 * BENCH_DATABASE_URL names, else a throwaway cluster on loopback started from Debian's packages
 * (/usr/lib/postgresql/N/bin), owned by the `postgres` user when running as root. Null (and the
 * part is skipped with a line saying why) when neither is available.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";

export interface BenchPostgres {
  url: string;
  stop(): Promise<void>;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function findBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : null;
}

export async function benchPostgres(log: (line: string) => void, freePort: () => Promise<number>): Promise<BenchPostgres | null> {
  const server = process.env.BENCH_DATABASE_URL;
  if (server) {
    const name = `bench_${randomBytes(4).toString("hex")}`;
    await withClient(server, (client) => client.query(`CREATE DATABASE "${name}"`));
    const url = new URL(server);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      stop: async () => {
        await withClient(server, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => undefined);
      },
    };
  }
  const bin = findBinDir();
  if (!bin) {
    log("replicas: skipped (no PostgreSQL: install Debian's postgresql or set BENCH_DATABASE_URL)");
    return null;
  }
  const root = userInfo().uid === 0;
  const asOwner = (command: string) => {
    if (root) execFileSync("su", ["postgres", "-s", "/bin/sh", "-c", command], { stdio: "ignore" });
    else execFileSync("/bin/sh", ["-c", command], { stdio: "ignore" });
  };
  if (root) {
    try {
      execFileSync("id", ["-u", "postgres"], { stdio: "ignore" });
    } catch {
      execFileSync("useradd", ["--system", "--no-create-home", "postgres"], { stdio: "ignore" });
    }
  }
  const dir = mkdtempSync(join(tmpdir(), "bench-pg-"));
  chmodSync(dir, 0o755);
  if (root) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), Number(execFileSync("id", ["-g", "postgres"]).toString().trim()));
  const port = await freePort();
  asOwner(`'${bin}/initdb' -D '${dir}/data' -U bench --auth=trust -E UTF8 --no-sync`);
  // Durable commits as in production (fsync on); max_connections for three replicas' pools.
  asOwner(`'${bin}/pg_ctl' -D '${dir}/data' -l '${dir}/log' -w -t 60 -o "-p ${port} -k '${dir}' -c listen_addresses=127.0.0.1 -c max_connections=200" start`);
  asOwner(`'${bin}/createdb' -h 127.0.0.1 -p ${port} -U bench bench`);
  log(`replicas: throwaway PostgreSQL cluster on 127.0.0.1:${port}`);
  return {
    url: `postgres://bench@127.0.0.1:${port}/bench`,
    stop: async () => {
      try {
        asOwner(`'${bin}/pg_ctl' -D '${dir}/data' -m immediate stop`);
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
