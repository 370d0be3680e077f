// Every digest one repository of a registry serves, for
// `publish --from-registry URL --repository NAME`: the tags (paginated by
// the Link header) → each tag's manifest or index (OCI and Docker media
// types, nested indexes followed) → config and layer blobs, plus every
// manifest's own digest. Each manifest's bytes are hashed and must match the
// digest that named it (the tag's Docker-Content-Digest, or the index
// entry); nothing is guessed.
//
// What it cannot see: manifests pushed by digest and never tagged (the
// registry has no API listing them), so their blobs are absent from the
// snapshot unless a tag reaches them. A pusher then uploads such a blob
// again — harmless, the registry keeps one copy.
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { OciRegistryError } from "artifact-bloom/oci";
import { UsageError, errorMessage, hexToBytes } from "../common.mjs";
import { INDEX_TYPES, MANIFEST_TYPES, MAX_INDEX_DEPTH, OCI_DIGEST } from "./oci-layout.mjs";
import { RegistryFailure } from "../exit-codes.mjs";
import { clientFromOptions, describeFailure, failureLine } from "./registry-common.mjs";
import { tlsAdvice, urlSchemeHints } from "./registry-tls.mjs";

const ACCEPT = [...MANIFEST_TYPES, ...INDEX_TYPES].join(", ");
const PAGE_SIZE = 100;
const MAX_PAGES = 100_000; // a Link chain longer than this is refused, not followed forever
const CONCURRENCY = 8;

/**
 * The next-page URL of a Link header (`<url>; rel="next"`), resolved; one on
 * another origin than the registry is refused (crossOrigin), see oci-client.js.
 * @param {import("artifact-bloom/oci").RegistryClient} client
 * @param {string | null} header the Link header
 * @param {URL} base the page's URL
 * @returns {URL | undefined}
 */
function nextLink(client, header, base) {
  if (!header) return undefined;
  for (const part of header.split(",")) {
    const match = /<([^>]*)>\s*;(.*)$/.exec(part.trim());
    if (match && /\brel\s*=\s*"?next"?/i.test(match[2] ?? "")) {
      return client.resolve(match[1] ?? "", base, `the tag list's Link header of GET ${base}`);
    }
  }
  return undefined;
}

/** @param {unknown} value @param {string} where @returns {string} hex */
function digestHex(value, where) {
  const match = typeof value === "string" ? OCI_DIGEST.exec(value) : null;
  if (match === null) {
    throw new OciRegistryError(`${where}: expected a sha256:<64 hex> digest, got ${JSON.stringify(value)}`, {
      code: "badResponse",
    });
  }
  return /** @type {string} */ (match[1]);
}

/**
 * Enumerates the repository behind `client`.
 * @param {import("artifact-bloom/oci").RegistryClient} client
 * @returns {Promise<{ digests: Set<string>, tags: number, tagNames: string[], manifests: number }>} digests as hex
 */
async function enumerateRepository(client) {
  const tags = await listTags(client);
  /** @type {Set<string>} */
  const digests = new Set();
  /** @type {Set<string>} */
  const manifests = new Set();
  /** @type {(reference: string, expectedHex: string | undefined, where: string, depth: number) => Promise<void>} */
  const visit = async (reference, expectedHex, where, depth) => {
    if (expectedHex !== undefined && manifests.has(expectedHex)) return;
    if (depth > MAX_INDEX_DEPTH) {
      throw new OciRegistryError(`${where}: indexes nested deeper than ${MAX_INDEX_DEPTH}`, { code: "badResponse" });
    }
    const response = await client.expect("GET", `manifests/${reference}`, [200], {
      headers: { accept: ACCEPT },
      limit: "manifest",
    });
    const hex = createHash("sha256").update(response.body).digest("hex");
    const named = response.headers.get("docker-content-digest");
    if ((expectedHex !== undefined && hex !== expectedHex) || (named !== null && named !== `sha256:${hex}`)) {
      throw new OciRegistryError(
        `GET ${response.url}: the manifest hashes to sha256:${hex},`
          + ` not ${expectedHex === undefined ? named : `sha256:${expectedHex}`}`,
        { code: "digestMismatch", status: 200 },
      );
    }
    if (manifests.has(hex)) return;
    manifests.add(hex);
    digests.add(hex);
    let json;
    try {
      json = JSON.parse(new TextDecoder().decode(response.body));
    } catch {
      throw new OciRegistryError(`GET ${response.url} answered a manifest that is not JSON`, {
        code: "badResponse",
        status: 200,
      });
    }
    const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() || json?.mediaType;
    if (INDEX_TYPES.has(type)) {
      const children = Array.isArray(json?.manifests) ? json.manifests : [];
      for (const [position, child] of children.entries()) {
        const childWhere = `${where} → manifests[${position}]`;
        const childHex = digestHex(child?.digest, childWhere);
        await visit(`sha256:${childHex}`, childHex, childWhere, depth + 1);
      }
    } else if (MANIFEST_TYPES.has(type)) {
      digests.add(digestHex(json?.config?.digest, `${where} config`));
      for (const [position, layer] of (Array.isArray(json?.layers) ? json.layers : []).entries()) {
        digests.add(digestHex(layer?.digest, `${where} layers[${position}]`));
      }
    } else {
      throw new OciRegistryError(`GET ${response.url}: unsupported manifest media type "${type}" (${where})`, {
        code: "badResponse",
        status: 200,
      });
    }
  };
  let next = 0;
  const worker = async () => {
    while (next < tags.length) {
      const tag = tags[next];
      next += 1;
      await visit(tag, undefined, `tag ${tag}`, 0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, tags.length) }, worker));
  return { digests, tags: tags.length, tagNames: tags, manifests: manifests.size };
}

/**
 * Every tag, following Link: rel="next". A repository the registry does not
 * know (404 NAME_UNKNOWN) has no tags.
 * @param {import("artifact-bloom/oci").RegistryClient} client
 * @returns {Promise<string[]>}
 */
export async function listTags(client) {
  const tags = [];
  const seen = new Set();
  /** @type {URL | undefined} the next page's, none after the last */
  let url = client.url(`tags/list?n=${PAGE_SIZE}`);
  for (let page = 0; url !== undefined; page += 1) {
    if (page >= MAX_PAGES || seen.has(url.href)) {
      throw new OciRegistryError(`tags/list: the Link chain repeats or exceeds ${MAX_PAGES} pages at ${url}`, {
        code: "badResponse",
      });
    }
    seen.add(url.href);
    const response = await client.send("GET", url, { limit: "tagPage" });
    if (
      response.status === 404
      && page === 0
      && response.body.byteLength > 0
      && /NAME_UNKNOWN/.test(new TextDecoder().decode(response.body))
    ) {
      return [];
    }
    if (response.status !== 200) throw client.error("GET", url, response, "expected 200 with { tags: [...] }");
    let json;
    try {
      json = JSON.parse(new TextDecoder().decode(response.body));
    } catch {
      throw new OciRegistryError(`GET ${url} answered a tag list that is not JSON`, { code: "badResponse", status: 200 });
    }
    const pageTags = json?.tags ?? [];
    if (!Array.isArray(pageTags) || !pageTags.every((tag) => typeof tag === "string")) {
      throw new OciRegistryError(`GET ${url} answered { tags } that is not a list of strings`, {
        code: "badResponse",
        status: 200,
      });
    }
    // One by one: push(...pageTags) passes every tag as an argument, and a
    // page of ~125k tags overflows the call stack.
    for (const tag of pageTags) tags.push(tag);
    url = nextLink(client, response.headers.get("link"), url);
  }
  return [...new Set(tags)];
}

/**
 * `publish --from-registry`: the enumeration as publish's digest input
 * (`{ packed, lines }`, like readHexDigests), with what was found on stderr.
 * @param {Record<string, string | boolean | (string | boolean)[] | undefined>} values parsed options
 */
export async function readRegistryDigests(values) {
  const url = String(values["from-registry"]);
  if (values.repository === undefined) throw new UsageError("--from-registry needs --repository NAME");
  if (!/^https?:\/\//i.test(url)) throw new UsageError(`--from-registry must be an http(s) URL, got "${url}"`);
  const client = await clientFromOptions(url, String(values.repository), values);
  const started = performance.now();
  let found;
  try {
    found = await enumerateRepository(client);
  } catch (error) {
    const failure = describeFailure(error, client);
    const advice = await tlsAdvice(error, urlSchemeHints("--from-registry", url));
    throw new RegistryFailure(`--from-registry ${url}: ${failureLine(failure)}${advice ? `; ${advice}` : ""}`, {
      code: failure.code,
      status: failure.status,
      cause: error,
    });
  }
  const milliseconds = performance.now() - started;
  const hexes = [...found.digests].sort();
  if (values["save-digests"] !== undefined) {
    const path = String(values["save-digests"]);
    try {
      await writeFile(path, hexes.map((hex) => `${hex}\n`).join(""));
    } catch (error) {
      throw new UsageError(`cannot write --save-digests ${path}: ${errorMessage(error)}`);
    }
  }
  const packed = new Uint8Array(hexes.length * 32);
  hexes.forEach((hex, index) => {
    packed.set(hexToBytes(hex), index * 32);
  });
  const requests = client.requests;
  process.stderr.write(
    `from-registry ${url} ${client.name}: ${found.tags} tags, ${found.manifests} manifests, ${hexes.length} digests`
      + ` in ${milliseconds.toFixed(0)} ms (${requests.get} GET, ${requests.token} token requests)\n`,
  );
  return {
    packed,
    lines: hexes.length,
    hexes,
    tagNames: found.tagNames,
    registry: { url, repository: client.name, tags: found.tags, manifests: found.manifests, milliseconds, requests },
  };
}
