// `publish --from-registry` against a real registry: the snapshot's digest
// set equals the set of blobs reachable from the repository's tags, read
// independently from the registry's storage directory — across OCI and
// Docker media types, nested indexes and a paginated tag list — and nothing
// else: not an untagged manifest's layer, not another repository's blobs.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadSnapshot } from "artifact-bloom";
import { tempDir } from "./helpers/cli.mjs";
import { OciLayoutBuilder } from "./helpers/oci-layout.mjs";
import { hexOf, publishFromRegistry, pushLayout, putManifestDirect } from "./helpers/oci-steps.mjs";
import { startProxy } from "./helpers/registry-proxy.mjs";
import { reachableInStorage, startRegistry } from "./helpers/registry.mjs";

const EXTRA_TAGS = 25;
const PAGE = 10; // 4 + 25 + 1 tags → 3 pages
let registry;
let paging; // Debian's registry 2.8 ignores ?n=: this proxy pages the tag list per the spec
let dir;

before(async () => {
  registry = await startRegistry("oci-catalog");
  paging = await startProxy(registry.url, { tagPageSize: PAGE });
  dir = await tempDir("oci-catalog");
});
after(async () => {
  await paging?.stop();
  await registry?.stop();
  await dir?.remove();
});

const at = (name) => join(dir.path, name);

test("publish --from-registry = every blob reachable from the tags (storage dir), across media types, nested indexes, pages", async (t) => {
  const layout = new OciLayoutBuilder();
  const shared = layout.layer("catalog-shared", 2048);
  const oci = layout.image({ layers: [shared, layout.layer("catalog-oci", 1500)], label: "oci" });
  const docker = layout.image({ layers: [shared, layout.layer("catalog-docker", 1600)], label: "docker", flavor: "docker" });
  const amd = layout.image({ layers: [layout.layer("catalog-amd64", 1700)], label: "amd64" });
  const arm = layout.image({
    layers: [layout.layer("catalog-arm64", 1800)],
    label: "arm64",
    platform: { architecture: "arm64", os: "linux" },
  });
  const riscv = layout.image({
    layers: [layout.layer("catalog-riscv", 1900)],
    label: "riscv",
    platform: { architecture: "riscv64", os: "linux" },
  });
  const inner = layout.index([amd, arm]);
  const nested = layout.index([inner, riscv]); // index → index → manifests
  const listA = layout.image({ layers: [layout.layer("catalog-list-a", 1000)], label: "list-a", flavor: "docker" });
  const list = layout.index([listA, docker], { flavor: "docker" });
  layout.tag("oci", oci).tag("docker", docker).tag("nested", nested).tag("list", list);
  const tagged = layout.reachable(); // before the untagged and foreign images are added

  const untaggedLayer = layout.layer("catalog-untagged", 1234);
  const untagged = layout.image({ layers: [untaggedLayer], label: "untagged" });
  layout.tag("untagged", untagged);
  const foreignLayer = layout.layer("catalog-elsewhere", 4321);
  const foreign = layout.image({ layers: [foreignLayer, shared], label: "elsewhere" });
  layout.tag("elsewhere", foreign);
  const dirLayout = await layout.write(at("layout"));

  const empty = at("empty.abf1");
  assert.equal((await publishFromRegistry(registry.url, "catalog", empty)).run.code, 0, "an unknown repository has no digests");
  for (const tag of ["oci", "docker", "nested", "list"]) {
    const { run } = await pushLayout(dirLayout, `${registry.host}/catalog:${tag}`, empty);
    assert.equal(run.code, 0, `push ${tag}: ${run.stderr}`);
  }
  for (let index = 0; index < EXTRA_TAGS; index += 1) {
    await putManifestDirect(registry.url, "catalog", `extra-${index}`, oci, layout.bytes(oci.digest));
  }
  // Untagged in "catalog": pushed under a tag that is then moved away.
  const pushedUntagged = await pushLayout(dirLayout, `${registry.host}/catalog:untagged`, empty);
  assert.equal(pushedUntagged.run.code, 0, pushedUntagged.run.stderr);
  await putManifestDirect(registry.url, "catalog", "untagged", oci, layout.bytes(oci.digest)); // retag: the image is now untagged
  assert.equal((await pushLayout(dirLayout, `${registry.host}/elsewhere:elsewhere`, empty)).run.code, 0);

  const saved = at("digests.txt");
  const before = paging.stats.log.length;
  const { run, summary } = await publishFromRegistry(paging.url, "catalog", at("catalog.abf1"), {
    version: 7,
    extra: ["--save-digests", saved],
  });
  assert.equal(run.code, 0, run.stderr);
  const tagPages = paging.stats.log.slice(before).filter((entry) => entry.path.includes("/tags/list")).length;
  assert.equal(tagPages, Math.ceil((4 + EXTRA_TAGS + 1) / PAGE), "the tag list was followed through its Link headers");

  const published = new Set((await readFile(saved, "utf8")).trim().split("\n"));
  const inStorage = await reachableInStorage(registry.storage, "catalog");
  assert.deepEqual(
    [...published].sort(),
    [...inStorage].sort(),
    "the published set is what the storage dir reaches from the tags",
  );
  assert.deepEqual([...published].sort(), [...tagged].sort(), "and what the layout builder put under those tags");
  for (const outsider of [untaggedLayer.descriptor.digest, untagged.digest, foreignLayer.descriptor.digest, foreign.digest]) {
    assert.equal(published.has(hexOf(outsider)), false, `${outsider} is not reachable from catalog's tags`);
  }
  assert.equal(summary.insertedItemCount, published.size);
  assert.equal(summary.registry.tags, 4 + EXTRA_TAGS + 1);
  assert.equal(summary.registry.repository, "catalog");
  t.diagnostic(
    `snapshot from the registry: ${summary.registry.tags} tags, ${summary.registry.manifests} manifests, `
      + `${published.size} digests in ${summary.registry.milliseconds.toFixed(0)} ms (${summary.registry.requests.get} GETs)`,
  );

  const loaded = loadSnapshot(new Uint8Array(await readFile(at("catalog.abf1"))));
  assert.equal(loaded.kind, "success");
  assert.equal(loaded.value.catalogVersion, 7);
  for (const hex of published) assert.equal(loaded.value.filter.mightContain(Buffer.from(hex, "hex")), true);
  loaded.value.filter.free();
});

test("publish --from-registry: usage errors name the option", async () => {
  const missing = await publishFromRegistry(registry.url, undefined, at("x.abf1"));
  assert.equal(missing.run.code, 2);
  assert.match(missing.run.stderr, /--from-registry needs --repository NAME/);
  const { run } = await publishFromRegistry("ftp://example", "app", at("x.abf1"));
  assert.equal(run.code, 2);
  assert.match(run.stderr, /must be an http\(s\) URL/);
});
