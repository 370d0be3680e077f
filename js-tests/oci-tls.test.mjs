// TLS as a user meets it (issue 23 §2), against the real docker-registry
// serving HTTPS with a certificate from a private CA made at test time, and
// a node:https server with the same certificate serving a snapshot:
//
//   - push and publish --from-registry fail with "certificate not trusted
//     (CODE)" and say how to trust it; --ca-file PEM, NODE_EXTRA_CA_CERTS
//     and --tls-verify=false (with its warning, once) each make them work;
//   - push --snapshot https://… the same way;
//   - --plain-http to the TLS registry says it speaks TLS, and https:// to a
//     plain registry says it speaks plain HTTP.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:https";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { runCli, tempDir } from "./helpers/cli.mjs";
import { sharedBaseImages } from "./helpers/oci-layout.mjs";
import { publishFromRegistry } from "./helpers/oci-steps.mjs";
import { startRegistry } from "./helpers/registry.mjs";
import { makeTestCertificates } from "./helpers/tls-certs.mjs";

// The commands' own exit codes: a registry failure is EXIT_REGISTRY for
// push and publish --from-registry alike; a --snapshot URL
// that cannot be fetched is unusable input (EXIT_USAGE).
const { EXIT_REGISTRY, EXIT_USAGE } = await import(
  fileURLToPath(new URL("node_modules/artifact-bloom/cli/common.mjs", import.meta.url))
);
const PUSH_REGISTRY_FAILURE = EXIT_REGISTRY;
const PUBLISH_REGISTRY_FAILURE = EXIT_REGISTRY;
const UNTRUSTED = /certificate not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\).*--ca-file PEM.*NODE_EXTRA_CA_CERTS/;

let dir;
let certs;
let registry; // HTTPS only
let plain; // plain HTTP
let snapshotServer;
let snapshotUrl;
let plainSnapshotServer;
let plainSnapshotUrl;
let layout;
let emptySnapshot;

before(async () => {
  dir = await tempDir("oci-tls");
  certs = await makeTestCertificates(dir.path);
  registry = await startRegistry("oci-tls", { tls: { ...certs.server, ca: certs.caPem } });
  plain = await startRegistry("oci-tls-plain");
  const images = sharedBaseImages({ shared: 2, freshSizes: [4096], label: "tls" });
  layout = await images.builder.write(join(dir.path, "layout"));
  emptySnapshot = join(dir.path, "empty.abf1");
  const published = await publishFromRegistry(registry.url, "tls/empty", emptySnapshot, { extra: ["--ca-file", certs.ca] });
  assert.equal(published.run.code, 0, published.run.stderr);
  const bytes = await readFile(emptySnapshot);
  snapshotServer = createServer(
    { cert: await readFile(certs.server.certificate), key: await readFile(certs.server.key) },
    (_request, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.byteLength }).end(bytes);
    },
  );
  await new Promise((resolve) => snapshotServer.listen(0, "127.0.0.1", resolve));
  snapshotUrl = `https://127.0.0.1:${snapshotServer.address().port}/snapshot.abf1`;
  plainSnapshotServer = createHttpServer((_request, response) => response.end(bytes));
  await new Promise((resolve) => plainSnapshotServer.listen(0, "127.0.0.1", resolve));
  plainSnapshotUrl = `http://127.0.0.1:${plainSnapshotServer.address().port}/snapshot.abf1`;
});
after(async () => {
  snapshotServer?.closeAllConnections();
  snapshotServer?.close();
  plainSnapshotServer?.closeAllConnections();
  plainSnapshotServer?.close();
  await registry?.stop();
  await plain?.stop();
  await dir?.remove();
});

/** push LAYOUT HOST/REPO:a --snapshot S --json … (no --plain-http unless given). */
function push(host, repository, extra = [], { snapshot = emptySnapshot, env } = {}) {
  return runCli(["push", layout, `${host}/${repository}:a`, "--snapshot", snapshot, "--json", ...extra], {
    env,
    timeoutMs: 120_000,
  });
}

/** publish --from-registry URL --repository REPO → a fresh snapshot path. */
function publish(url, repository, extra = [], { env } = {}) {
  return publishFromRegistry(
    url,
    repository,
    join(dir.path, `${repository.replaceAll("/", "-")}-${Math.random().toString(36).slice(2)}.abf1`),
    { extra, env },
  );
}

describe("an untrusted registry certificate", () => {
  test("push without a CA: certificate not trusted (CODE), how to trust it, the registry-failure exit code", async () => {
    const run = await push(registry.host, "tls/refused");
    assert.equal(run.code, PUSH_REGISTRY_FAILURE, run.stderr);
    assert.match(run.stderr, /^push: networkError: .*the registry could not be reached: /m);
    assert.match(run.stderr, UNTRUSTED);
    assert.doesNotMatch(run.stderr, /fetch failed/);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.error.code, "networkError");
    assert.match(summary.error.advice, /--ca-file PEM/);
  });

  test("publish --from-registry without a CA: the same message, its registry-failure exit code", async () => {
    const { run } = await publish(registry.url, "tls/refused");
    assert.equal(run.code, PUBLISH_REGISTRY_FAILURE, run.stderr);
    assert.match(run.stderr, /--from-registry https:\/\/127\.0\.0\.1:\d+: networkError: /);
    assert.match(run.stderr, UNTRUSTED);
  });

  test("--ca-file: push succeeds, and publish --from-registry sees what it pushed", async () => {
    const run = await push(registry.host, "tls/ca-file", ["--ca-file", certs.ca]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).tagged, true);
    const { run: published, summary } = await publish(registry.url, "tls/ca-file", ["--ca-file", certs.ca]);
    assert.equal(published.code, 0, published.stderr);
    assert.equal(summary.registry.tags, 1);
    assert.equal(summary.insertedItemCount, 4, "2 layers, the config and the manifest");
  });

  test("NODE_EXTRA_CA_CERTS: push and publish --from-registry succeed with no flag", async () => {
    const env = { NODE_EXTRA_CA_CERTS: certs.ca };
    const run = await push(registry.host, "tls/extra-ca", [], { env });
    assert.equal(run.code, 0, run.stderr);
    const { run: published } = await publish(registry.url, "tls/extra-ca", [], { env });
    assert.equal(published.code, 0, published.stderr);
  });

  test("--ca-file adds to NODE_EXTRA_CA_CERTS rather than replacing it", async () => {
    const other = join(dir.path, "other-ca.pem");
    await writeFile(other, await readFile(certs.selfSigned.certificate, "utf8"));
    const run = await push(registry.host, "tls/both", ["--ca-file", other], { env: { NODE_EXTRA_CA_CERTS: certs.ca } });
    assert.equal(run.code, 0, run.stderr);
  });

  test("--tls-verify=false: push and publish work, each warning once that verification is off", async () => {
    const run = await push(registry.host, "tls/unverified", ["--tls-verify=false"]);
    assert.equal(run.code, 0, run.stderr);
    const warnings = run.stderr.match(/TLS verification is OFF for (\S+)/g) ?? [];
    assert.deepEqual(warnings, [`TLS verification is OFF for ${registry.host}`], run.stderr);
    const { run: published } = await publish(registry.url, "tls/unverified", ["--tls-verify=false"]);
    assert.equal(published.code, 0, published.stderr);
    assert.equal((published.stderr.match(/TLS verification is OFF/g) ?? []).length, 1, published.stderr);
  });

  test("no warning, and verification, without --tls-verify=false", async () => {
    const run = await push(registry.host, "tls/quiet", ["--ca-file", certs.ca, "--tls-verify=true"]);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /TLS verification is OFF/);
  });
});

describe("push --snapshot https://…", () => {
  test("without a CA: exit 2, certificate not trusted (CODE) and how to trust it — not 'fetch failed'", async () => {
    const run = await push(registry.host, "tls/snapshot-refused", [], { snapshot: snapshotUrl });
    assert.equal(run.code, EXIT_USAGE, run.stderr);
    assert.match(run.stderr, /--snapshot https:\/\/127\.0\.0\.1:\d+\/snapshot\.abf1: networkError: /);
    assert.match(run.stderr, UNTRUSTED);
  });

  test("with --ca-file: the snapshot is fetched and the push succeeds", async () => {
    const run = await push(registry.host, "tls/snapshot", ["--ca-file", certs.ca], { snapshot: snapshotUrl });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await getManifestOverTls("tls/snapshot", "a"), 200);
  });
});

describe("push --snapshot with the wrong scheme", () => {
  test("https:// to a plain-HTTP server: exit 2, it speaks plain HTTP, try the http:// URL", async () => {
    const url = plainSnapshotUrl.replace("http:", "https:");
    const run = await push(registry.host, "tls/snapshot-scheme", ["--ca-file", certs.ca], { snapshot: url });
    assert.equal(run.code, EXIT_USAGE, run.stderr);
    assert.match(
      run.stderr,
      /the server speaks plain HTTP, not TLS \(\w+\); try --snapshot http:\/\/127\.0\.0\.1:\d+\/snapshot\.abf1$/m,
    );
  });

  test("http:// to the TLS server (which hangs up): the probe finds TLS, try the https:// URL", async () => {
    const url = snapshotUrl.replace("https:", "http:");
    const run = await push(registry.host, "tls/snapshot-scheme", ["--ca-file", certs.ca], { snapshot: url });
    assert.equal(run.code, EXIT_USAGE, run.stderr);
    assert.match(
      run.stderr,
      /networkError: .*; the server speaks TLS; try --snapshot https:\/\/127\.0\.0\.1:\d+\/snapshot\.abf1$/m,
    );
  });
});

/** The TLS registry's status for GET manifest, asked through the CLI's own transport with the test CA. */
async function getManifestOverTls(repository, reference) {
  const { createNodeFetch } = await import(
    fileURLToPath(new URL("node_modules/artifact-bloom/cli/registry/https-fetch.mjs", import.meta.url))
  );
  const response = await createNodeFetch({ ca: [certs.caPem] })(`${registry.url}/v2/${repository}/manifests/${reference}`, {
    headers: { accept: "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json" },
  });
  await response.arrayBuffer();
  return response.status;
}

describe("the wrong scheme", () => {
  test("push --plain-http to the TLS registry: the server speaks TLS; drop --plain-http", async () => {
    const run = await push(registry.host, "tls/plain-to-tls", ["--plain-http"]);
    assert.equal(run.code, PUSH_REGISTRY_FAILURE, run.stderr);
    assert.match(
      run.stderr,
      /\(HTTP 400\): (?:\d+ blobs failed alike \([^)]*\): )?POST http:.* answered 400 \("Client sent an HTTP request to an HTTPS server"\): the server speaks TLS, so the URL must be https:\/\/; drop --plain-http$/m,
    );
  });

  test("push --plain-http whose first request is a HEAD (no body to read): found by probing the port", async () => {
    const full = join(dir.path, "full.abf1");
    const published = await publishFromRegistry(registry.url, "tls/ca-file", full, { extra: ["--ca-file", certs.ca] });
    assert.equal(published.run.code, 0, published.run.stderr);
    const run = await push(registry.host, "tls/plain-head", ["--plain-http"], { snapshot: full });
    assert.equal(run.code, PUSH_REGISTRY_FAILURE, run.stderr);
    assert.match(run.stderr, /^push: unexpectedStatus \(HTTP 400\): HEAD http:.*the server speaks TLS; drop --plain-http/m);
  });

  test("publish --from-registry http:// to the TLS registry: try the https:// URL", async () => {
    const { run } = await publish(registry.url.replace("https:", "http:"), "tls/plain-to-tls");
    assert.equal(run.code, PUBLISH_REGISTRY_FAILURE, run.stderr);
    assert.match(
      run.stderr,
      /the server speaks TLS, so the URL must be https:\/\/; try --from-registry https:\/\/127\.0\.0\.1:\d+$/m,
    );
  });

  test("push without --plain-http to a plain registry: the server speaks plain HTTP; use --plain-http", async () => {
    const run = await push(plain.host, "tls/tls-to-plain");
    assert.equal(run.code, PUSH_REGISTRY_FAILURE, run.stderr);
    assert.match(
      run.stderr,
      /the server speaks plain HTTP, not TLS \((ERR_SSL_WRONG_VERSION_NUMBER|EPROTO)\); use --plain-http$/m,
    );
  });

  test("publish --from-registry https:// to a plain registry: try the http:// URL", async () => {
    const { run } = await publish(plain.url.replace("http:", "https:"), "tls/tls-to-plain");
    assert.equal(run.code, PUBLISH_REGISTRY_FAILURE, run.stderr);
    assert.match(run.stderr, /the server speaks plain HTTP, not TLS \(\w+\); try --from-registry http:\/\/127\.0\.0\.1:\d+$/m);
  });
});

describe("bad TLS options are one clear usage line", () => {
  const cases = [
    ["a missing --ca-file", () => ["--ca-file", join(dir.path, "missing.pem")], /cannot read --ca-file .*missing\.pem/],
    ["a --ca-file with no certificate", () => ["--ca-file", join(dir.path, "layout", "index.json")], /holds no PEM certificate/],
    ["--tls-verify=maybe", () => ["--tls-verify=maybe"], /--tls-verify must be true or false .* got "maybe"/],
    [
      "--ca-file with --tls-verify=false",
      () => ["--ca-file", certs.ca, "--tls-verify=false"],
      /--ca-file and --tls-verify=false contradict/,
    ],
  ];
  for (const [name, extra, message] of cases) {
    test(`${name}: exit 2 on push and publish, nothing sent`, async () => {
      const mark = registry.mark();
      const run = await push(registry.host, "tls/usage", extra());
      assert.equal(run.code, EXIT_USAGE, run.stderr);
      assert.match(run.stderr, message);
      const { run: published } = await publish(registry.url, "tls/usage", extra());
      assert.equal(published.code, EXIT_USAGE, published.stderr);
      assert.match(published.stderr, message);
      await registry.settle();
      assert.deepEqual(
        registry.since(mark).filter((entry) => !entry.path.startsWith("/v2/?settle=")),
        [],
      );
    });
  }

  test("push --help and publish --help list --ca-file and --tls-verify=false", async () => {
    for (const command of ["push", "publish"]) {
      const run = await runCli([command, "--help"]);
      assert.equal(run.code, 0);
      assert.match(run.stdout, /--ca-file PEM/);
      assert.match(run.stdout, /--tls-verify=false/);
    }
  });
});
