// postgresCatalog against a real PostgreSQL (Debian's, started here on a
// Unix socket in a temp dir; helpers/postgres.mjs), through publishCatalog:
// the version and the digest list come from one REPEATABLE READ
// transaction, so rows inserted and a version bumped while the publish
// streams its cursor never mix in (the snapshot is the one of the moment
// it began); the next publish sees them. bytea and hex text columns.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { ArtifactBloomFilter, encodeSnapshot } from "artifact-bloom";
import { postgresCatalog, publishCatalog } from "artifact-bloom/server";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { tempDir } from "./helpers/cli.mjs";
import { postgresBin, startPostgres } from "./helpers/postgres.mjs";

const SPEC = { expectedItemCount: 40_000, targetFalsePositiveRate: 0.01 };
const digests = splitDigests(packedDigests("postgres", 25_000));
const hexOf = (digest) => Buffer.from(digest).toString("hex");
// In CI the server must be there (scripts/test.sh installs it); elsewhere its absence skips.
const skip =
  postgresBin() === undefined && process.env.CI !== "true" && "PostgreSQL not installed (bash scripts/setup.sh --postgres)";

function referenceFile(list, version) {
  const created = ArtifactBloomFilter.create(list, SPEC);
  assert.equal(created.kind, "success");
  const bytes = encodeSnapshot(created.value, { catalogVersion: version });
  created.value.free();
  return bytes;
}

describe("postgresCatalog", { skip }, () => {
  let server;
  let dir;
  let reader;
  let writer;
  before(async () => {
    server = await startPostgres();
    dir = await tempDir("catalog-postgres");
    const connect = async () => {
      const client = new pg.Client({ host: server.host, port: server.port, user: server.user, database: "postgres" });
      await client.connect();
      return client;
    };
    reader = await connect();
    writer = await connect();
    await writer.query("CREATE TABLE blobs (digest bytea PRIMARY KEY, size bigint)");
    await writer.query("CREATE TABLE catalog_version (version bigint NOT NULL)");
    await writer.query("INSERT INTO catalog_version VALUES (1)");
    await insert(digests.slice(0, 20_000));
  });
  after(async () => {
    await reader?.end();
    await writer?.end();
    await server?.stop();
    await dir?.remove();
  });

  /** Inserts `list` into blobs, 1,000 rows a statement. */
  async function insert(list, client = writer) {
    for (let offset = 0; offset < list.length; offset += 1000) {
      const slice = list.slice(offset, offset + 1000);
      const values = slice.map((_, index) => `($${index + 1}, 1)`).join(", ");
      await client.query(
        `INSERT INTO blobs (digest, size) VALUES ${values}`,
        slice.map((digest) => Buffer.from(digest)),
      );
    }
  }

  const loader = (client) =>
    postgresCatalog({
      client,
      digestsQuery: "SELECT digest FROM blobs",
      versionQuery: "SELECT version FROM catalog_version",
      batchSize: 1000,
    });

  test("rows inserted and the version bumped during a publish stay out of it; the next publish has them", async () => {
    const layout = join(dir.path, "layout");
    let fetches = 0;
    // The reader's client, with a writer's transaction committed right after the cursor's first FETCH.
    const racing = {
      async query(text) {
        const result = await reader.query(text);
        if (text.startsWith("FETCH") && ++fetches === 1) {
          await writer.query("BEGIN");
          await insert(digests.slice(20_000), writer);
          await writer.query("UPDATE catalog_version SET version = 2");
          await writer.query("COMMIT");
        }
        return result;
      },
    };
    const first = await publishCatalog(layout, loader(racing), SPEC);
    assert.equal(first.kind, "success", first.message);
    assert.ok(fetches > 20, "the cursor was read in batches");
    assert.equal(first.value.manifest.catalogVersion, 1, "the version of the transaction's snapshot");
    assert.equal(first.value.uniqueCount, 20_000, "the list of the same snapshot");
    const v1 = JSON.parse(await readFile(join(layout, "manifest.json"), "utf8"));
    assert.deepEqual(new Uint8Array(await readFile(join(layout, v1.snapshot.url))), referenceFile(digests.slice(0, 20_000), 1));

    const second = await publishCatalog(layout, loader(reader), SPEC);
    assert.equal(second.kind, "success", second.message);
    assert.equal(second.value.manifest.catalogVersion, 2);
    assert.equal(second.value.uniqueCount, 25_000);
    assert.equal(second.value.manifest.deltas.length, 1, "a delta from version 1");
    const { rows } = await reader.query("SELECT count(*) AS open FROM pg_stat_activity WHERE state = 'idle in transaction'");
    assert.equal(Number(rows[0].open), 0, "no transaction left open");
  });

  test("a publish refused before reading (its spec) ends the transaction: no session left idle in one", async () => {
    const refused = await publishCatalog(join(dir.path, "refused"), loader(reader), { ...SPEC, expectedItemCount: 0 });
    assert.equal(refused.error, "invalidExpectedItemCount");
    const { rows } = await writer.query("SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'idle in transaction'");
    assert.equal(Number(rows[0].n), 0);
    // The client is usable again: the next publish opens its own transaction.
    const next = await publishCatalog(join(dir.path, "after-refused"), loader(reader), SPEC);
    assert.equal(next.kind, "success", next.message);
  });

  test("a text column of hex digests, duplicates and mixed case: hex: true", async () => {
    await writer.query("CREATE TABLE hex_blobs (digest text)");
    const list = digests.slice(0, 3000);
    for (let offset = 0; offset < list.length; offset += 500) {
      const slice = list
        .slice(offset, offset + 500)
        .map((digest, index) => (index % 2 ? hexOf(digest).toUpperCase() : hexOf(digest)));
      const values = slice.map((_, index) => `($${index + 1}), ($${index + 1})`).join(", ");
      await writer.query(`INSERT INTO hex_blobs (digest) VALUES ${values}`, slice);
    }
    const built = await publishCatalog(
      join(dir.path, "hex-layout"),
      postgresCatalog({ client: reader, digestsQuery: "SELECT digest FROM hex_blobs", versionQuery: "SELECT 7", hex: true }),
      SPEC,
    );
    assert.equal(built.kind, "success", built.message);
    assert.equal(built.value.uniqueCount, 3000);
    assert.equal(built.value.manifest.catalogVersion, 7);
  });
});
