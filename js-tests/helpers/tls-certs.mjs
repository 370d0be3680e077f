// Test certificates made with openssl at test time (EC P-256, so it is
// quick): a private CA and, signed by it, a server certificate for
// IP:127.0.0.1, one naming another host, and one that expired yesterday;
// plus a self-signed server certificate and the server certificate bundled
// with its CA (a chain whose root is untrusted). Nothing is committed to
// the repository, and every openssl call is bounded.
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const OPENSSL_TIMEOUT_MS = 30_000;
const CURVE = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** @param {string[]} args */
async function openssl(args) {
  try {
    await run("openssl", args, { timeout: OPENSSL_TIMEOUT_MS });
  } catch (error) {
    throw new Error(`openssl ${args.slice(0, 2).join(" ")} failed: ${error.stderr || error.message}`);
  }
}

/** Extension lines for a server certificate naming `san`. */
function serverExtensions(san) {
  return [
    `subjectAltName=${san}`,
    "basicConstraints=CA:FALSE",
    "keyUsage=digitalSignature",
    "extendedKeyUsage=serverAuth",
    "",
  ].join("\n");
}

/**
 * A key and a certificate signed by the CA.
 * @returns {Promise<{ certificate: string, key: string }>} paths
 */
async function signed(dir, name, san, days, ca) {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const certificate = join(dir, `${name}.pem`);
  const ext = join(dir, `${name}.ext`);
  await writeFile(ext, serverExtensions(san));
  await openssl(["req", ...CURVE, "-keyout", key, "-out", csr, "-subj", `/CN=${name}`]);
  await openssl([
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    ca.certificate,
    "-CAkey",
    ca.key,
    "-set_serial",
    String(Date.now()),
    "-days",
    String(days),
    "-extfile",
    ext,
    "-out",
    certificate,
  ]);
  return { certificate, key };
}

/**
 * Makes the certificates in `dir` → paths (and `caPem`, the CA's PEM text).
 * @param {string} dir an empty temp dir
 */
export async function makeTestCertificates(dir) {
  const ca = { certificate: join(dir, "ca.pem"), key: join(dir, "ca.key") };
  await openssl([
    "req",
    "-x509",
    ...CURVE,
    "-keyout",
    ca.key,
    "-out",
    ca.certificate,
    "-days",
    "2",
    "-subj",
    "/CN=artifact-bloom test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  const server = await signed(dir, "server", "IP:127.0.0.1", 2, ca);
  const wrongName = await signed(dir, "wrong-name", "DNS:registry.invalid", 2, ca);
  // -days -1: notAfter is a day before notBefore, so it is expired now.
  const expired = await signed(dir, "expired", "IP:127.0.0.1", -1, ca);
  const selfSigned = { certificate: join(dir, "self.pem"), key: join(dir, "self.key") };
  await openssl([
    "req",
    "-x509",
    ...CURVE,
    "-keyout",
    selfSigned.key,
    "-out",
    selfSigned.certificate,
    "-days",
    "2",
    "-subj",
    "/CN=self",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
  ]);
  const chain = { certificate: join(dir, "chain.pem"), key: server.key };
  const caPem = await readFile(ca.certificate, "utf8");
  await writeFile(chain.certificate, `${await readFile(server.certificate, "utf8")}${caPem}`);
  return { ca: ca.certificate, caPem, server, wrongName, expired, selfSigned, chain };
}
