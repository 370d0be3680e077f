// The exit codes of every artifact-bloom command, in one table: the
// dispatcher's --help, each command's --help and every return path use
// these, so the same kind of failure ends every command with the same code.

/** Done: published, pushed, checked, merged, served. */
export const EXIT_OK = 0;
/** The command ran and found problems: a snapshot that does not load, a guard that refused. */
export const EXIT_PROBLEMS = 1;
/** Bad arguments or unusable input: options, files, layouts, snapshots, credential configuration. */
export const EXIT_USAGE = 2;
/** The registry or the network failed: unreachable, timeout, refused credentials, an error or malformed answer. */
export const EXIT_REGISTRY = 3;

/** The table as printed in every --help. */
export const EXIT_CODES_HELP = `Exit codes (the same for every command):
  0  done
  1  the command ran and found problems (a snapshot that does not load, a
     guard or the version rule refused); nothing was replaced
  2  bad arguments or input (options, files, OCI layouts — a blob that is
     not what its digest says —, snapshots, credential files or helpers),
     an output error, a runtime without WebAssembly, or anything else that
     stopped the command (one line; ARTIFACT_BLOOM_DEBUG=1 adds the stack)
  3  a registry or network failure (unreachable, timeout, credentials
     refused, an error status, an answer that breaks the protocol such as
     a digest mismatch)`;

/**
 * A failure of the registry or the network that ends a command with
 * EXIT_REGISTRY and a one-line message (the message names the request; it
 * never holds a credential).
 */
export class RegistryFailure extends Error {
  /**
   * @param {string} message
   * @param {{ code?: string, status?: number, cause?: unknown }} [details]
   */
  constructor(message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "RegistryFailure";
    this.code = details.code ?? "registryError";
    if (details.status !== undefined) this.status = details.status;
  }

  get exitCode() {
    return EXIT_REGISTRY;
  }
}

/**
 * The exit code for an error that reached the dispatcher: a RegistryFailure
 * is 3; a usage error, and anything else that stopped the command, is 2.
 * @param {unknown} error
 * @returns {number}
 */
export function exitCodeOf(error) {
  return error instanceof RegistryFailure ? EXIT_REGISTRY : EXIT_USAGE;
}
