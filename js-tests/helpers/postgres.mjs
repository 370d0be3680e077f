// A throwaway PostgreSQL for the catalog-loader tests: Debian's server
// binaries (scripts/setup.sh --postgres), a cluster in a temp dir, listening
// only on a Unix socket in that dir (no TCP port at all), fsync off; stopped
// and removed by stop(). PostgreSQL refuses to run as root, so as root the
// cluster belongs to `nobody` and its commands run through runuser.
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The directory of initdb and pg_ctl, or undefined when PostgreSQL is not installed. */
export function postgresBin() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? undefined : join(root, versions[0], "bin");
}

/** Starts a cluster → { host (the socket dir), port, user, stop() }. */
export async function startPostgres() {
  const bin = postgresBin();
  if (bin === undefined) throw new Error("PostgreSQL is not installed (bash scripts/setup.sh --postgres)");
  const dir = await mkdtemp(join(tmpdir(), "artifact-bloom-pg-"));
  const asRoot = process.getuid?.() === 0;
  const as = (command, args) => (asRoot ? run("runuser", ["-u", "nobody", "--", command, ...args]) : run(command, args));
  if (asRoot) await chown(dir, 65534, 65534);
  const data = join(dir, "data");
  const port = 5432;
  try {
    await as(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
    const options = `-k ${dir} -c listen_addresses= -p ${port} -c fsync=off -c full_page_writes=off`;
    await as(join(bin, "pg_ctl"), ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "120", "start"]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    host: dir,
    port,
    user: "postgres",
    async stop() {
      await as(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "-t", "60", "stop"]).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
