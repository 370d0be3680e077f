// The version rule of `publish` and `merge`: one catalogVersion names one
// catalog. A client that holds catalogVersion N ignores every snapshot that is
// not newer, and the server answers "maybe" at version N from its own catalog;
// so a second, different snapshot under N (or an older N over a newer one)
// leaves clients answering "definitely absent" for artifacts the server has.
// Both commands therefore refuse to write a catalogVersion that is not
// greater than the one at OUT, unless it is byte-identical (a retried publish
// of the same catalog changes nothing) or the operator passes the override.
import { readSnapshotHeader } from "artifact-bloom";
import { readCurrentSnapshot } from "./replace.mjs";
import { ALLOW_VERSION_REUSE } from "./option-groups.mjs";

/**
 * Why `bytes` (a complete ABF1 file of `catalogVersion`) must not replace
 * `out` under the version rule, or undefined when it may (no OUT yet, a
 * greater version, identical bytes, or the override). `command` starts the
 * sentence ("publish", "merge").
 *
 * @param {string} out
 * @param {Uint8Array} bytes
 * @param {{ command: string; allowReuse: boolean }} how
 * @returns {Promise<string | undefined>}
 */
export async function versionRuleProblem(out, bytes, { command, allowReuse }) {
  if (allowReuse) return undefined;
  const current = await readCurrentSnapshot(out);
  if (current.kind === "none") return undefined;
  const next = readSnapshotHeader(bytes);
  // The bytes were just encoded by this command: a header that does not load is a bug.
  if (next.kind === "failure") throw new Error(`${command}: the encoded snapshot's header does not load: ${next.message}`);
  const { catalogVersion, checksum } = next.value;
  const override = `pass --${ALLOW_VERSION_REUSE} if that is intended`;
  if (current.kind === "unloadable") {
    return (
      `refusing to replace ${out}: its header does not load (${current.error}), so its catalogVersion cannot be `
      + `compared with ${catalogVersion}; remove it if no client uses it, or ${override}`
    );
  }
  const held = current.header;
  if (catalogVersion > held.catalogVersion || checksum === held.checksum) return undefined;
  const clash =
    catalogVersion === held.catalogVersion
      ? `which holds catalogVersion ${held.catalogVersion} with other content (checksum ${held.checksum.slice(0, 16)}…, `
        + `new ${checksum.slice(0, 16)}…): clients holding it would keep it`
      : `which holds the newer catalogVersion ${held.catalogVersion}: clients holding it would ignore ${catalogVersion}`;
  return (
    `refusing to write catalogVersion ${catalogVersion} to ${out}, ${clash} and answer "definitely absent" `
    + `for artifacts the new catalog has; publish a catalogVersion greater than ${held.catalogVersion}, or ${override}`
  );
}
