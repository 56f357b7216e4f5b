/**
 * The PostgreSQL the multi-replica part of the benchmark runs on: a fresh database on the server
 * BENCH_DATABASE_URL names, else a throwaway cluster on loopback started from Debian's packages
 * (/usr/lib/postgresql/N/bin), owned by the `postgres` user when running as root. Null (and the
 * part is skipped with a line saying why) when neither is available.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "../test/kit/net";
import { createPostgresDatabase } from "../test/kit/test-database";

/** Why a part that needs PostgreSQL did not run. */
export const NO_POSTGRES = "no PostgreSQL: install Debian's postgresql or set BENCH_DATABASE_URL";

export interface BenchPostgres {
  url: string;
  stop(): Promise<void>;
}

function findBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : null;
}

export async function benchPostgres(log: (line: string) => void, part = "replicas"): Promise<BenchPostgres | null> {
  const server = process.env.BENCH_DATABASE_URL;
  if (server) {
    const database = await createPostgresDatabase(server, "bench");
    return { url: database.url, stop: () => database.drop() };
  }
  const bin = findBinDir();
  if (!bin) {
    log(`${part}: skipped (${NO_POSTGRES})`);
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
  if (root)
    chownSync(
      dir,
      Number(execFileSync("id", ["-u", "postgres"]).toString().trim()),
      Number(execFileSync("id", ["-g", "postgres"]).toString().trim()),
    );
  const port = await freePort();
  asOwner(`'${bin}/initdb' -D '${dir}/data' -U bench --auth=trust -E UTF8 --no-sync`);
  // Durable commits as in production (fsync on); max_connections for three replicas' pools.
  asOwner(
    `'${bin}/pg_ctl' -D '${dir}/data' -l '${dir}/log' -w -t 60 -o "-p ${port} -k '${dir}' -c listen_addresses=127.0.0.1 -c max_connections=200" start`,
  );
  asOwner(`'${bin}/createdb' -h 127.0.0.1 -p ${port} -U bench bench`);
  log(`${part}: throwaway PostgreSQL cluster on 127.0.0.1:${port}`);
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
