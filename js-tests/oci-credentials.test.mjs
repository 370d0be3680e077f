// Where push and publish --from-registry find registry credentials, against
// the real docker-registry with htpasswd (Basic) auth: docker's config.json
// (DOCKER_CONFIG), containers auth.json (REGISTRY_AUTH_FILE, XDG_RUNTIME_DIR),
// docker credential helpers (a fake docker-credential-fake on PATH, through
// credHelpers and credsStore), flags over files, and what a 401 or a broken
// config says — never the secret. Identity tokens (docker's identitytoken, a
// helper's "<token>" answer) go to a Bearer realm as an OAuth2 refresh grant
// (a token proxy in front of a second registry). Every child gets HOME and
// the XDG dirs in a temp dir, so the machine's own files are never read.
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { runCli, tempDir } from "./helpers/cli.mjs";
import { OciLayoutBuilder } from "./helpers/oci-layout.mjs";
import { publishFromRegistry, pushLayout } from "./helpers/oci-steps.mjs";
import { startProxy } from "./helpers/registry-proxy.mjs";
import { startRegistry } from "./helpers/registry.mjs";

const USER = "alice";
const PASSWORD = "pw-9f3c1d7e-correct";
const WRONG = "pw-0000-wrong-horse";
const IDENTITY_TOKEN = "refresh-7b1e0c5a-identity";
const basic = (user, password) => Buffer.from(`${user}:${password}`).toString("base64");

let registry;
let plain;
let proxy;
let dir;
let layout;
let snapshot;
let fakeBin;

before(async () => {
  registry = await startRegistry("oci-creds", { htpasswd: { [USER]: PASSWORD } });
  plain = await startRegistry("oci-creds-bearer");
  proxy = await startProxy(plain.url, { auth: "bearer", refreshTokens: { [IDENTITY_TOKEN]: USER } });
  dir = await tempDir("oci-creds");
  const builder = new OciLayoutBuilder();
  builder.tag("v1", builder.image({ layers: [builder.layer("creds-0"), builder.layer("creds-1")], label: "creds" }));
  layout = await builder.write(join(dir.path, "layout"));
  fakeBin = join(dir.path, "bin");
  await mkdir(fakeBin);
  // The docker credential-helper protocol: `get`, the server address on stdin.
  await writeFile(
    join(fakeBin, "docker-credential-fake"),
    [
      "#!/bin/sh",
      '[ "$1" = get ] || { echo "unexpected action $1" >&2; exit 3; }',
      "IFS= read -r server",
      'printf \'%s\' "$server" > "$FAKE_HELPER_LOG"',
      'case "$FAKE_HELPER_MODE" in',
      '  found) printf \'{"ServerURL":"%s","Username":"%s","Secret":"%s"}\\n\' "$server" "$FAKE_USER" "$FAKE_SECRET" ;;',
      '  token) printf \'{"ServerURL":"%s","Username":"<token>","Secret":"%s"}\\n\' "$server" "$FAKE_SECRET" ;;',
      "  missing) echo 'credentials not found in native keychain'; exit 1 ;;",
      '  garbage) echo "not json $FAKE_SECRET" ;;',
      "  hang) exec sleep 120 ;;",
      "esac",
      "",
    ].join("\n"),
  );
  await chmod(join(fakeBin, "docker-credential-fake"), 0o755);
  const empty = join(dir.path, "empty.abf1");
  const { run } = await publishFromRegistry(registry.url, "seed", empty, {
    extra: ["--username", USER],
    env: { ...(await isolatedEnv("seed")).env, ARTIFACT_BLOOM_REGISTRY_PASSWORD: PASSWORD },
  });
  assert.equal(run.code, 0, run.stderr);
  snapshot = empty;
});
after(async () => {
  await proxy?.stop();
  await plain?.stop();
  await registry?.stop();
  await dir?.remove();
});

/** A child environment whose HOME and XDG dirs are fresh temp dirs: no file of this machine is read. */
async function isolatedEnv(label, extra = {}) {
  const root = await mkdtemp(join(dir.path, `${label}-`));
  const home = join(root, "home");
  const run = join(root, "run");
  const config = join(root, "config");
  for (const path of [home, run, config]) await mkdir(path, { recursive: true });
  return {
    root,
    run,
    config,
    env: {
      HOME: home,
      XDG_RUNTIME_DIR: run,
      XDG_CONFIG_HOME: config,
      DOCKER_CONFIG: "",
      REGISTRY_AUTH_FILE: "",
      ARTIFACT_BLOOM_REGISTRY_PASSWORD: "",
      PATH: `${fakeBin}${delimiter}${process.env.PATH}`,
      FAKE_HELPER_LOG: join(root, "helper-input"),
      ...extra,
    },
  };
}

async function writeJson(path, value) {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

/** No secret in anything the CLI printed. */
function assertNoSecret(run, ...secrets) {
  for (const secret of [PASSWORD, WRONG, IDENTITY_TOKEN, basic(USER, PASSWORD), basic(USER, WRONG), ...secrets]) {
    assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), `the output holds a secret: ${secret}`);
  }
}

const push = (repository, env, extra = []) => pushLayout(layout, `${registry.host}/${repository}:v1`, snapshot, { env, extra });

describe("credential files", () => {
  test("none anywhere: push and publish exit 3 with 'unauthorized', naming every file looked in and how to give credentials", async () => {
    const { env, run: runDir, config } = await isolatedEnv("none");
    const { run } = await push("none", env);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /push: unauthorized \(HTTP 401\)/);
    assert.match(run.stderr, /no credentials for 127\.0\.0\.1:\d+ were found/);
    for (const path of [
      join(runDir, "containers", "auth.json"),
      join(config, "containers", "auth.json"),
      join(env.HOME, ".docker", "config.json"),
    ]) {
      assert.ok(run.stderr.includes(`${path} (absent)`), `stderr names ${path}: ${run.stderr}`);
    }
    assert.match(run.stderr, /--username NAME and ARTIFACT_BLOOM_REGISTRY_PASSWORD/);
    assert.match(run.stderr, /docker login \/ skopeo login/);
    const published = await publishFromRegistry(registry.url, "none", join(dir.path, "none.abf1"), { env });
    assert.equal(published.run.code, 3, published.run.stderr);
    assert.match(published.run.stderr, /unauthorized \(HTTP 401\)[^\n]*no credentials for 127\.0\.0\.1:\d+ were found/);
  });

  test("docker config.json via DOCKER_CONFIG, keyed the docker way (https://HOST/v1/): publish and push succeed", async () => {
    const { env, root } = await isolatedEnv("docker");
    const dockerDir = join(root, "docker-config");
    await writeJson(join(dockerDir, "config.json"), {
      auths: { [`https://${registry.host}/v1/`]: { auth: basic(USER, PASSWORD) } },
    });
    env.DOCKER_CONFIG = dockerDir;
    const published = await publishFromRegistry(registry.url, "docker", join(dir.path, "docker.abf1"), { env });
    assert.equal(published.run.code, 0, published.run.stderr);
    const { run, summary } = await push("docker", env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.tagged, true);
    assertNoSecret(run);
  });

  test("auth.json via REGISTRY_AUTH_FILE: the most specific key wins (HOST/NAME over HOST)", async () => {
    const { env, root } = await isolatedEnv("authfile");
    env.REGISTRY_AUTH_FILE = await writeJson(join(root, "my-auth.json"), {
      auths: { [registry.host]: { auth: basic(USER, WRONG) }, [`${registry.host}/team/app`]: { auth: basic(USER, PASSWORD) } },
    });
    const { run } = await push("team/app", env);
    assert.equal(run.code, 0, run.stderr);
    const other = await push("team/other", env);
    assert.equal(other.run.code, 3, "team/other gets the HOST entry, whose password is wrong");
    assert.ok(
      other.run.stderr.includes(
        `the credentials used came from $REGISTRY_AUTH_FILE ${env.REGISTRY_AUTH_FILE} auths["${registry.host}"]`,
      ),
      other.run.stderr,
    );
    assertNoSecret(other.run);
  });

  test("$XDG_RUNTIME_DIR/containers/auth.json is read before docker's config.json", async () => {
    const { env, root, run: runDir } = await isolatedEnv("order");
    await writeJson(join(runDir, "containers", "auth.json"), { auths: { [registry.host]: { auth: basic(USER, PASSWORD) } } });
    env.DOCKER_CONFIG = join(root, "docker");
    await writeJson(join(env.DOCKER_CONFIG, "config.json"), { auths: { [registry.host]: { auth: basic(USER, WRONG) } } });
    const { run } = await push("order", env);
    assert.equal(run.code, 0, run.stderr);
  });

  test("--username with the password variable overrides the files, both ways", async () => {
    const { env, root } = await isolatedEnv("flags");
    env.DOCKER_CONFIG = join(root, "docker");
    await writeJson(join(env.DOCKER_CONFIG, "config.json"), { auths: { [registry.host]: { auth: basic(USER, WRONG) } } });
    const good = await push("flags", { ...env, ARTIFACT_BLOOM_REGISTRY_PASSWORD: PASSWORD }, ["--username", USER]);
    assert.equal(good.run.code, 0, good.run.stderr);
    await writeJson(join(env.DOCKER_CONFIG, "config.json"), { auths: { [registry.host]: { auth: basic(USER, PASSWORD) } } });
    const bad = await push("flags", { ...env, ARTIFACT_BLOOM_REGISTRY_PASSWORD: WRONG }, ["--username", USER]);
    assert.equal(bad.run.code, 3, "the flags' wrong password is used, not the file's right one");
    assert.match(bad.run.stderr, /the credentials used came from --username/);
    assertNoSecret(bad.run);
  });

  test("a wrong password from a file: exit 3, the message names the file and key, and neither it nor --json holds the secret", async () => {
    const { env, root } = await isolatedEnv("wrong");
    env.DOCKER_CONFIG = join(root, "docker");
    const path = await writeJson(join(env.DOCKER_CONFIG, "config.json"), {
      auths: { [registry.host]: { auth: basic(USER, WRONG) } },
    });
    const { run, summary } = await push("wrong", env);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /refused the credentials|unauthorized/);
    assert.ok(run.stderr.includes(`$DOCKER_CONFIG/config.json ${path} auths["${registry.host}"]`), run.stderr);
    assert.equal(summary.error.code, "unauthorized");
    assertNoSecret(run);
  });

  test("a malformed config: exit 2 naming the file, no request sent", async () => {
    const { env, root } = await isolatedEnv("malformed");
    env.DOCKER_CONFIG = join(root, "docker");
    const path = await writeJson(
      join(env.DOCKER_CONFIG, "config.json"),
      `{"auths": {"${registry.host}": {"auth": "${basic(USER, PASSWORD)}"`,
    );
    await registry.settle();
    const mark = registry.mark();
    const { run } = await push("malformed", env);
    assert.equal(run.code, 2, run.stderr);
    assert.ok(run.stderr.includes(`$DOCKER_CONFIG/config.json ${path} is not valid JSON`), run.stderr);
    assertNoSecret(run);
    const badAuth = await writeJson(join(root, "auth.json"), { auths: { [registry.host]: { auth: "not base64 at all!" } } });
    const second = await push("malformed", { ...env, REGISTRY_AUTH_FILE: badAuth });
    assert.equal(second.run.code, 2, second.run.stderr);
    assert.match(second.run.stderr, /auths\["127\.0\.0\.1:\d+"\]: "auth" must be base64 of USER:PASSWORD/);
    await registry.settle();
    assert.deepEqual(
      registry.since(mark).filter((entry) => !entry.path.startsWith("/v2/?settle=")),
      [],
      "nothing reached the registry",
    );
  });
});

describe("credential helpers (docker-credential-NAME get)", () => {
  test("credHelpers[HOST]: the helper gets the host on stdin and its answer is used", async () => {
    const { env, root } = await isolatedEnv("helper", { FAKE_HELPER_MODE: "found", FAKE_USER: USER, FAKE_SECRET: PASSWORD });
    env.DOCKER_CONFIG = join(root, "docker");
    await writeJson(join(env.DOCKER_CONFIG, "config.json"), {
      auths: { [registry.host]: {} },
      credHelpers: { [registry.host]: "fake" },
    });
    const { run } = await push("helper", env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await readFile(env.FAKE_HELPER_LOG, "utf8"), registry.host);
    assertNoSecret(run);
  });

  test("credsStore, and a helper that has none falls back to the file's auths entry", async () => {
    const { env, root } = await isolatedEnv("store", { FAKE_HELPER_MODE: "found", FAKE_USER: USER, FAKE_SECRET: PASSWORD });
    env.REGISTRY_AUTH_FILE = await writeJson(join(root, "auth.json"), {
      credsStore: "fake",
      auths: { [registry.host]: { auth: basic(USER, WRONG) } },
    });
    const stored = await push("store", env);
    assert.equal(stored.run.code, 0, `the store's answer wins over the entry: ${stored.run.stderr}`);
    const missing = await push("store", { ...env, FAKE_HELPER_MODE: "missing" });
    assert.equal(missing.run.code, 3, "the entry's wrong password was used after the store had none");
    assert.match(missing.run.stderr, /credsStore: docker-credential-fake has none for 127\.0\.0\.1:\d+/);
    assertNoSecret(missing.run);
  });

  test("a helper that hangs is stopped at --timeout-ms (exit 2); one not on PATH or answering garbage is a clear error", async () => {
    const { env, root } = await isolatedEnv("hang", { FAKE_HELPER_MODE: "hang" });
    env.DOCKER_CONFIG = join(root, "docker");
    await writeJson(join(env.DOCKER_CONFIG, "config.json"), { credHelpers: { [registry.host]: "fake" } });
    const hung = await push("hang", env, ["--timeout-ms", "1500"]);
    assert.equal(hung.run.code, 2, hung.run.stderr);
    assert.match(hung.run.stderr, /credential helper docker-credential-fake did not answer within 1500 ms/);
    const garbage = await push("hang", { ...env, FAKE_HELPER_MODE: "garbage", FAKE_SECRET: PASSWORD });
    assert.equal(garbage.run.code, 2);
    assert.match(garbage.run.stderr, /docker-credential-fake get answered something that is not JSON/);
    assertNoSecret(garbage.run);
    await writeJson(join(env.DOCKER_CONFIG, "config.json"), { credHelpers: { [registry.host]: "absent-helper" } });
    const absent = await push("hang", env);
    assert.equal(absent.run.code, 2);
    assert.match(absent.run.stderr, /credential helper docker-credential-absent-helper is not on PATH/);
  });
});

describe("identity tokens (OAuth2 refresh grant at the Bearer realm)", () => {
  const pushViaProxy = (repository, env, snapshotPath) =>
    pushLayout(layout, `${proxy.host}/${repository}:v1`, snapshotPath, { env });

  test("config.json identitytoken: publish and push get their tokens by POST grant_type=refresh_token", async () => {
    const { env, root } = await isolatedEnv("identity");
    env.DOCKER_CONFIG = join(root, "docker");
    await writeJson(join(env.DOCKER_CONFIG, "config.json"), {
      auths: { [proxy.host]: { auth: basic(USER, WRONG), identitytoken: IDENTITY_TOKEN } },
    });
    const before = proxy.stats.refreshForms.length;
    const out = join(dir.path, "identity.abf1");
    const published = await publishFromRegistry(proxy.url, "identity", out, { env });
    assert.equal(published.run.code, 0, published.run.stderr);
    const { run, summary } = await pushViaProxy("identity", env, out);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.tagged, true);
    assertNoSecret(run);
    const forms = proxy.stats.refreshForms.slice(before);
    assert.ok(forms.length >= 2, "both commands used the refresh grant");
    for (const { query, form } of forms) {
      assert.equal(query, "", "service, scope and the token travel in the form body, not the URL");
      assert.equal(form.grant_type, "refresh_token");
      assert.equal(form.refresh_token, IDENTITY_TOKEN);
      assert.equal(form.service, "test-registry");
      assert.match(form.scope, /^repository:identity:pull/);
    }
    assert.ok(
      forms.some(({ form }) => form.scope === "repository:identity:pull,push"),
      "the push asked for push rights",
    );
    assert.equal(
      proxy.stats.log.filter((entry) => entry.path.startsWith("/token") && entry.authorization !== undefined).length,
      0,
      "no Basic credentials went to the realm beside the identity token",
    );
  });

  test("a helper's <token> answer is an identity token; a refused one is exit 3 without the token in the message", async () => {
    const { env, root } = await isolatedEnv("helper-token", { FAKE_HELPER_MODE: "token", FAKE_SECRET: IDENTITY_TOKEN });
    env.DOCKER_CONFIG = join(root, "docker");
    await writeJson(join(env.DOCKER_CONFIG, "config.json"), { credHelpers: { [proxy.host]: "fake" } });
    const out = join(dir.path, "helper-token.abf1");
    const published = await publishFromRegistry(proxy.url, "helper-token", out, { env });
    assert.equal(published.run.code, 0, published.run.stderr);
    const { run } = await pushViaProxy("helper-token", env, out);
    assert.equal(run.code, 0, run.stderr);
    const refused = await pushViaProxy("helper-token", { ...env, FAKE_SECRET: "refresh-unknown-token" }, out);
    assert.equal(refused.run.code, 3, refused.run.stderr);
    assert.match(
      refused.run.stderr,
      /unauthorized[^\n]*POST http:\/\/127\.0\.0\.1:\d+\/token[^\n]*credentials used came from \$DOCKER_CONFIG/,
    );
    assertNoSecret(refused.run, "refresh-unknown-token");
  });
});

test("push --help and publish --help say where credentials are looked for", async () => {
  for (const command of ["push", "publish"]) {
    const { code, stdout } = await runCli([command, "--help"]);
    assert.equal(code, 0);
    for (const place of [
      "$REGISTRY_AUTH_FILE",
      "$XDG_RUNTIME_DIR/containers/auth.json",
      "$XDG_CONFIG_HOME/containers/auth.json",
      "$DOCKER_CONFIG/config.json",
      "~/.docker/config.json",
      "credHelpers[HOST]",
      "credsStore",
      "docker-credential-NAME get",
      "identitytoken",
    ]) {
      assert.ok(stdout.includes(place), `${command} --help names ${place}`);
    }
  }
});
