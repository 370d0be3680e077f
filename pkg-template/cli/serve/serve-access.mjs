// serve's access flags (docs/security.md): --token-file, --public-read,
// --cors-origin and --rate-limit become the library's withAccessControl
// around serve's handler. A token file is JSON — an array of
// { "token": "…", "scopes": ["read", "existence", "admin"], "name": "ci" } —
// read once at start; no token is ever printed: a bad file is named with the
// entry's index and what was wrong.
import { stat } from "node:fs/promises";
import { readBoundedText } from "../bounded-file.mjs";
import { UsageError, errorMessage, integerOption } from "../common.mjs";

/** A token file larger than this is refused (thousands of tokens fit). */
const TOKEN_FILE_LIMIT = 1024 * 1024;

/**
 * What the flags ask for, or undefined when none is given (serve is then
 * open to whoever reaches it, as before).
 * @param {Record<string, any>} values the parsed options
 * @returns {Promise<{ tokens?: unknown[], publicRead: boolean, cors?: string[], rateLimit?: number } | undefined>}
 */
export async function accessRequest(values) {
  const path = values["token-file"];
  const cors = values["cors-origin"];
  const rateLimit = values["rate-limit"] === undefined ? undefined : integerOption(values, "rate-limit", 1, 1_000_000_000);
  const publicRead = values["public-read"] === true;
  if (publicRead && path === undefined)
    throw new UsageError("--public-read makes reads public while tokens guard the rest: it needs --token-file");
  if (path === undefined && cors === undefined && rateLimit === undefined) return undefined;
  return {
    ...(path === undefined ? {} : { tokens: await readTokenFile(path) }),
    publicRead,
    ...(cors === undefined ? {} : { cors }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
  };
}

/**
 * The entries of a token file; warns (stderr) when others may read it.
 * @param {string} path
 * @returns {Promise<unknown[]>}
 */
async function readTokenFile(path) {
  const text = await readBoundedText(path, TOKEN_FILE_LIMIT, "token file");
  let entries;
  try {
    entries = JSON.parse(text);
  } catch (error) {
    // JSON.parse's message may quote the text near the error: not shown.
    throw new UsageError(`--token-file ${path}: not JSON (${errorMessage(error).split(":")[0]})`);
  }
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new UsageError(`--token-file ${path}: expected a non-empty JSON array of { token, scopes, name? }`);
  }
  const mode = (await stat(path)).mode;
  if ((mode & 0o077) !== 0) {
    process.stderr.write(
      `serve: warning: --token-file ${path} is readable by others (mode ${(mode & 0o777).toString(8)}); chmod 600 it\n`,
    );
  }
  return entries;
}

/**
 * `handler` behind the library's guard, as `request` asks.
 * @param {import("artifact-bloom/server").FetchHandler} handler
 * @param {NonNullable<Awaited<ReturnType<typeof accessRequest>>>} request
 * @param {typeof import("artifact-bloom/server")} library
 * @param {{ maxBodyBytes: number, bodyBudgetBytes: number, maxDigests: number }} limits
 */
export function guardHandler(handler, request, library, limits) {
  const { bearerTokenAuthorizer, createRateLimiter, withAccessControl } = library;
  /** @type {import("artifact-bloom/server").AccessScope[]} */
  const publicScopes = request.tokens === undefined ? ["read", "existence", "admin"] : request.publicRead ? ["read"] : [];
  let authorize;
  try {
    authorize = bearerTokenAuthorizer(/** @type {any} */ (request.tokens ?? []), { publicScopes });
  } catch (error) {
    // The library names the entry by index, never its token.
    throw new UsageError(`--token-file: ${errorMessage(error)}`);
  }
  const rateLimit =
    request.rateLimit === undefined
      ? undefined
      : {
          // A burst holds at least one full findMissing, so no allowed request is refused for good.
          limiter: createRateLimiter({
            burst: Math.max(request.rateLimit, limits.maxDigests),
            digestsPerSecond: request.rateLimit,
          }),
        };
  return withAccessControl(handler, {
    authorize,
    maxBodyBytes: limits.maxBodyBytes,
    bodyBudgetBytes: limits.bodyBudgetBytes,
    ...(request.cors === undefined ? {} : { cors: request.cors }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
  });
}
