// The TLS options of the commands that talk to a registry or fetch a
// snapshot URL (push, publish --from-registry): --ca-file and
// --tls-verify=false, and the advice printed when a handshake fails or the
// scheme is the wrong one.
//
// Without either option requests go through Node's global fetch (which
// already trusts NODE_EXTRA_CA_CERTS). With one, they go through
// ./https-fetch.mjs, since global fetch takes no CA without undici's
// dispatcher. --ca-file ADDS to the roots Node trusts anyway (its bundled
// store and NODE_EXTRA_CA_CERTS): naming a private CA must not make public
// registries or token realms untrusted.
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import * as tls from "node:tls";
import { tlsProblemOf } from "artifact-bloom/oci";
import { createNodeFetch } from "./https-fetch.mjs";
import { SMALL_FILE_LIMIT, readBoundedText } from "../bounded-file.mjs";
import { UsageError, errorMessage } from "../common.mjs";

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const PROBE_TIMEOUT_MS = 5000;

/** The fetch each parsed-options object chose, so push's snapshot and registry share one pool. */
const chosen = new WeakMap();
/** Hosts already warned about in this process. */
const warnedHosts = new Set();

/**
 * The certificates of a --ca-file, each checked to parse.
 * @param {string} path
 * @returns {Promise<string[]>}
 */
async function readCaFile(path) {
  let text;
  try {
    // Capped: a PEM bundle is small (the system's is ≈ 220 KB); /dev/zero is not.
    text = await readBoundedText(path, SMALL_FILE_LIMIT, "--ca-file");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read --ca-file ${path}: ${errorMessage(error)}`);
  }
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) {
    throw new UsageError(`--ca-file ${path} holds no PEM certificate (expected -----BEGIN CERTIFICATE----- blocks)`);
  }
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block); // eslint-disable-line no-new
    } catch (error) {
      throw new UsageError(
        `--ca-file ${path}: certificate ${index + 1} of ${blocks.length} does not parse: ${errorMessage(error)}`,
      );
    }
  });
  return blocks;
}

/** Node's default trust: its bundled roots plus NODE_EXTRA_CA_CERTS (which an explicit `ca` would drop). */
function defaultRoots() {
  // Node ≥ 22.15 lists them itself; older ones only have the bundled roots.
  const listed = /** @type {{ getCACertificates?: (which: string) => string[] }} */ (tls).getCACertificates;
  if (typeof listed === "function") return listed("default");
  const roots = [...tls.rootCertificates];
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra) {
    try {
      roots.push(...(readFileSync(extra, "utf8").match(PEM_BLOCK) ?? []));
    } catch {
      // Node itself warned at startup that it could not read the file.
    }
  }
  return roots;
}

/**
 * The fetch for these options: undefined (the default, global fetch)
 * unless --ca-file or --tls-verify=false asks for another TLS policy.
 * @param {Record<string, unknown>} values parsed options
 * @returns {Promise<typeof fetch | undefined>}
 */
export async function fetchForTlsOptions(values) {
  if (chosen.has(values)) return chosen.get(values);
  const verify = values["tls-verify"];
  if (verify !== undefined && verify !== "true" && verify !== "false") {
    throw new UsageError(`--tls-verify must be true or false (as in --tls-verify=false), got "${verify}"`);
  }
  const caFile = values["ca-file"];
  if (caFile !== undefined && verify === "false") {
    throw new UsageError("--ca-file and --tls-verify=false contradict: a CA only matters when certificates are verified");
  }
  let fetchImpl;
  if (caFile !== undefined) {
    fetchImpl = createNodeFetch({ ca: [...defaultRoots(), ...(await readCaFile(String(caFile)))] });
  } else if (verify === "false") {
    fetchImpl = createNodeFetch({ rejectUnauthorized: false, onHttpsRequest: warnUnverified });
  }
  chosen.set(values, fetchImpl);
  return fetchImpl;
}

/** @param {URL} url */
function warnUnverified(url) {
  if (warnedHosts.has(url.host)) return;
  warnedHosts.add(url.host);
  process.stderr.write(
    `artifact-bloom: WARNING: TLS verification is OFF for ${url.host} (--tls-verify=false): its certificate is not checked, `
      + "so anyone on the network path can read and change this traffic\n",
  );
}

/**
 * How to fix a failure, or "" when it is none of the TLS or scheme cases.
 * `plainHint` / `tlsHint` say how this command switches scheme (push:
 * "use --plain-http" / "drop --plain-http"; a URL: "use an http:// URL").
 * A 400 or a dropped connection on an http:// request that the library
 * could not attribute (a HEAD has no body to read; Node's TLS servers just
 * hang up) is checked by probing the port for a TLS handshake.
 * @param {unknown} error an OciRegistryError, a fetchSnapshot failure ({ causeCode }), or the TypeError
 * @param {{ url?: URL | string, plainHint: string, tlsHint: string }} context
 * @returns {Promise<string>}
 */
export async function tlsAdvice(error, { url, plainHint, tlsHint }) {
  const failure = /** @type {{ code?: unknown, tlsProblem?: unknown, status?: unknown }} */ (error ?? {});
  // The library codes what a TLS or scheme mix-up was (`tlsProblem`, on its
  // failures and errors); a raw fetch error is read by tlsProblemOf.
  const kind = typeof failure.tlsProblem === "string" ? failure.tlsProblem : tlsProblemOf(error)?.kind;
  switch (kind) {
    case "untrusted":
      return (
        "to trust it, pass --ca-file PEM with the CA that signed it (or set NODE_EXTRA_CA_CERTS=PEM); "
        + "--tls-verify=false skips the check (insecure)"
      );
    case "expired":
    case "notYetValid":
      return "the server's certificate must be renewed (or this machine's clock is wrong)";
    case "wrongName":
      return "use a host name the certificate lists (its subjectAltName), or reissue the certificate with this one";
    case "plainHttpServer":
      // The message already says "the server speaks plain HTTP, not TLS".
      return plainHint;
    default:
      break;
  }
  // A TLS port asked in plain HTTP answers 400 (Go, nginx) or just closes the connection (Node).
  const maybePlainOnTls =
    failure.status === 400
    || failure.code === "networkError"
    || /** @type {{ error?: unknown }} */ (failure).error === "networkError";
  if (kind === "tlsServer") return tlsHint;
  if (!maybePlainOnTls || url === undefined || !String(url).startsWith("http:")) return "";
  return (await speaksTls(new URL(url))) ? `the server speaks TLS; ${tlsHint}` : "";
}

/**
 * tlsAdvice's context for an option that names a URL (`--snapshot`,
 * `--from-registry`): the fix for a scheme mix-up is the URL with the other one.
 * @param {string} option
 * @param {string} url
 */
export function urlSchemeHints(option, url) {
  return {
    url,
    plainHint: `try ${option} ${url.replace(/^https:/i, "http:")}`,
    tlsHint: `try ${option} ${url.replace(/^http:/i, "https:")}`,
  };
}

/**
 * Whether host:port completes a TLS handshake (any certificate): one
 * bounded connection to the address the command already talks to.
 * @param {URL} url an http: URL
 * @returns {Promise<boolean>}
 */
function speaksTls(url) {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const socket = tls.connect({
      host,
      port: Number(url.port || 80),
      rejectUnauthorized: false,
      ...(/^[\d.:]+$/.test(host) ? {} : { servername: host }),
    });
    const done = (/** @type {boolean} */ answer) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), PROBE_TIMEOUT_MS);
    socket.once("secureConnect", () => done(true));
    socket.once("error", () => done(false));
  });
}
