// The CLI's shared option groups and their --help lines: the flags several
// commands take (TLS, registry credentials, --from-registry, deltas, the
// layout, the version rule, the staleness checks) with their defaults.
// Nothing here imports the library, so a command can print its usage or
// refuse its arguments before it loads any of it
// (js-tests/cli-lazy-library.test.mjs).

export const DEFAULT_VERIFY_ABSENT_ABOVE = 16 * 1024 * 1024;

/** The defaults, as the library has them (the help is written before it loads). */
export const DEFAULT_DELTA_HISTORY = 8;

export const DEFAULT_PRUNE_AFTER_SECONDS = 3600;

/** The manifest's limit on deltas (docs/layout.md). */
export const MAX_DELTA_HISTORY = 64;

/** The flag that lifts the rule, named in every refusal and in --help. */
export const ALLOW_VERSION_REUSE = "allow-version-reuse";

/** @typedef {import("./option-table.mjs").OptionSpec} OptionSpec */

/** The version rule's flag (publish and merge). */
export const VERSION_RULE_OPTIONS = /** @type {Record<string, OptionSpec>} */ ({
  [ALLOW_VERSION_REUSE]: {
    type: "boolean",
    default: false,
    help:
      "replace the snapshot already there anyway: a deliberate rollback, or when no client has loaded it. A SnapshotHolder that holds it "
      + "reports versionConflict and adopts the new snapshot (an equal version), or keeps OUT as stale (a lower one); "
      + "publish a greater catalogVersion next",
  },
});

/** The version rule, a note of publish's and merge's help (OUT: the file replaced). */
export const VERSION_RULE_NOTE = `Version rule: one catalogVersion names one catalog. OUT is not replaced (exit
1, OUT untouched, both versions in the message) by a snapshot whose
catalogVersion is lower than OUT's, or equal to it with other content: a
client holding OUT's version would keep answering "definitely absent" from
it. A byte-identical snapshot (a retry) is written as usual. If OUT's header
does not load, OUT is not replaced either: its version is unknown.
--${ALLOW_VERSION_REUSE} lifts the rule.`;

/** publish's delta flags. */
export const DELTA_OPTIONS = /** @type {Record<string, OptionSpec>} */ ({
  "delta-from": {
    type: "string",
    arg: "OLD",
    help: "also write the ABD1 delta from the snapshot OLD (read before PATH is replaced, so OLD may be PATH itself)",
  },
  "delta-out": { type: "string", arg: "DPATH", help: "where to write that delta (atomically, like PATH)" },
});

export const DELTA_NOTE = `Deltas: written only when OLD loads, has the same layout (bitCount and
hashCount: keep --expected-items and --fpp) and an older catalogVersion, and
every digest it held is still set (the catalog only grew). Otherwise publish
prints "no delta: <code>: <why>" on stderr, writes the full snapshot as usual,
removes a delta left at DPATH by an earlier publish (it would describe another
change) and still exits 0. The delta is checked on disk by applying it to OLD:
the result must be the new snapshot, checksum included.`;

/** publish's layout flags. */
export const LAYOUT_OPTIONS = /** @type {Record<string, OptionSpec>} */ ({
  layout: {
    type: "string",
    arg: "DIR",
    help:
      "also (or, without --out, only) publish into the static layout DIR: snapshots/<checksum>.abf1, deltas from "
      + "the last K versions, manifest.json written last (docs/layout.md); any file host serves DIR as it is",
  },
  "delta-history": {
    type: "string",
    arg: "K",
    help: `deltas from up to K earlier versions, 0 .. ${MAX_DELTA_HISTORY} (default ${DEFAULT_DELTA_HISTORY}, as serve's --delta-history)`,
  },
  "prune-after": {
    type: "string",
    arg: "S",
    help: `delete files no manifest names any more S seconds after they stopped being named (default ${DEFAULT_PRUNE_AFTER_SECONDS})`,
  },
});

export const LAYOUT_NOTE = `Layout: the version rule applies to DIR's manifest (a lower catalogVersion,
or the same one with other content, is refused with exit 1 and DIR is left
as it was); publishing the snapshot DIR already serves changes nothing.
--allow-version-reuse does not apply to a layout. The publisher's own record
(versions, files waiting to be pruned) is DIR/layout-state.json.`;

/** TLS policy for registries and URLs (check, inspect, publish, push). */
export const TLS_OPTIONS = /** @type {Record<string, OptionSpec>} */ ({
  "ca-file": {
    type: "string",
    arg: "PEM",
    help:
      "also trust the CA certificate(s) in PEM (one or more BEGIN CERTIFICATE blocks) for the registry, its token "
      + "realm and an https:// snapshot URL; Node's own roots and NODE_EXTRA_CA_CERTS stay trusted; read up to 1 MiB "
      + "(a system bundle is about 200 KiB)",
  },
  "tls-verify": {
    type: "string",
    spelled: "--tls-verify=false",
    help: "do not verify TLS certificates at all (insecure; a warning names each host); the default is true",
  },
});

/** Credentials and the timeout (publish --from-registry, push). */
export const REGISTRY_OPTIONS = /** @type {Record<string, OptionSpec>} */ ({
  username: {
    type: "string",
    arg: "NAME",
    help:
      "authenticate as NAME (Basic, or at the Bearer token realm); the password comes from "
      + "ARTIFACT_BLOOM_REGISTRY_PASSWORD or, with --password-stdin, from standard input",
  },
  "password-stdin": { type: "boolean", default: false, help: "read the password from standard input" },
  "token-realm": {
    type: "string",
    multiple: true,
    arg: "URL",
    help:
      "a Bearer token realm on another host than the registry (e.g. https://auth.docker.io) that may receive the "
      + "--username credentials; repeatable. Without it they go only to the registry's own origin, and a realm "
      + "elsewhere fails with crossOrigin. Requests go only to the registry: a Link or upload Location naming "
      + "another origin fails with crossOrigin, and redirects are not followed",
  },
  "timeout-ms": { type: "string", arg: "N", help: "per-request timeout (default 30000)" },
  ...TLS_OPTIONS,
});

export const CREDENTIALS_NOTE = `Credentials: without --username, credentials for the registry host come from
the first of these that has them (as skopeo, podman and docker read them):
$REGISTRY_AUTH_FILE, else $XDG_RUNTIME_DIR/containers/auth.json; then
$XDG_CONFIG_HOME/containers/auth.json (~/.config/…); then
$DOCKER_CONFIG/config.json (~/.docker/config.json). In each:
credHelpers[HOST], credsStore (run as docker-credential-NAME get, within
--timeout-ms), then auths (HOST/NAME or HOST; "auth" or "identitytoken").
A 401 names the places looked at; no secret is printed. Files are read up to
1 MiB. A helper runs as its own process group, stopped whole at --timeout-ms
or 64 KiB of output; a failing one is named with its exit status and stderr,
never its output. A password sent over --plain-http is warned about once per
host.`;

// The limits are the client's RESPONSE_LIMITS (lib/repositories/oci-limits.js),
// written out: the usage loads no library. js-tests/cli-surface.test.mjs holds
// the two to the same numbers.
/** publish's --from-registry flags, with the registry's. */
export const FROM_REGISTRY_OPTIONS = /** @type {Record<string, OptionSpec>} */ ({
  "from-registry": {
    type: "string",
    arg: "URL",
    help:
      "instead of --input: every digest the repository serves (tags → manifests/indexes → configs, layers, and "
      + "the manifests themselves), e.g. http://127.0.0.1:5000. Answers are read up to a limit: a manifest or "
      + "index 4 MiB (the distribution spec's), a tag page 32 MiB, a token answer 1 MiB; more fails with tooLarge",
  },
  repository: {
    type: "string",
    arg: "NAME",
    help:
      "the repository (with --from-registry); a snapshot is per repository: HEAD answers 404 for a blob that is "
      + "stored in the registry but not linked to NAME",
  },
  "save-digests": { type: "string", arg: "FILE", help: "also write the enumerated digests, one hex per line" },
  ...REGISTRY_OPTIONS,
});

/** push's staleness flags. */
export const STALENESS_OPTIONS = /** @type {Record<string, OptionSpec>} */ ({
  "verify-absent-above": {
    type: "string",
    arg: "BYTES",
    help:
      `a "definitely absent" blob larger than this is HEADed anyway and not uploaded if the registry has it `
      + `(pushed since the snapshot was made: absentButPresent). Default ${DEFAULT_VERIFY_ABSENT_ABOVE} (16 MiB): `
      + "one HEAD costs what uploading 0.1-0.2 MB does (bench/stale-threshold.mjs), about 1 % of such a blob's "
      + 'upload; 0 HEADs every blob; "none" never',
  },
  "snapshot-cache": {
    type: "string",
    arg: "FILE",
    help:
      "with --snapshot URL: keep the fetched snapshot in FILE (and the host's validator in FILE.validator.json) "
      + "and, next time, revalidate it: a layout manifest or the snapshot answered 304 costs no body, and a delta "
      + "from the cached version is used when one is offered",
  },
});

export const STALENESS_NOTE = `Stale snapshots: with the sidecar FILE.meta.json that publish --from-registry
writes (for a URL: URL.meta.json; serve answers GET /snapshot.meta.json),
a "maybe" that answers 404 is stale (staleDeleted: the snapshot was built
from that digest, deleted since) when the sidecar lists it (by its first
64 bits), and a false positive only when it does not; without a sidecar
every such 404 counts as a false positive (keySetKnown false). The push
warns (stderr, and --json "warnings") when the snapshot is of another
repository, or when the tags differ from the ones it saw (one GET tags/list
per 100 tags; a tag moved to another image is not seen). A missing sidecar
is one note.`;

export const SIDECAR_SUFFIX = ".meta.json";
