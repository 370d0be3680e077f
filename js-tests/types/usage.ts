// Uses the artifact-bloom API as a TypeScript user would. Nothing runs: this
// file exists so `tsc --noEmit -p js-tests/types` proves that index.d.ts
// resolves by package name, narrows the result union, supports `using`, and
// rejects misuse (the @ts-expect-error lines must stay errors).
import { createHash } from "node:crypto";
import init, {
  ArtifactBloomFilter,
  HttpArtifactRepository,
  Sha256,
  type SnapshotHolder,
  fetchSnapshot,
  loadSnapshotStream,
  sha256,
  wasmMemoryBytes,
  DEFAULT_WHOLE_FILE_LIMIT,
  hashFiles,
  type HashFileResult,
  type HashFilesOptions,
  type HashFilesRunner,
  type BloomError,
  type BloomSpec,
  type FetchSnapshotOptions,
  type FetchSnapshotDeltaOptions,
  type FetchSnapshotResult,
  type SnapshotDeltaPollingOptions,
  type SnapshotTransfer,
  type HttpClientError,
  type HttpClientErrorCode,
  type Result,
  type Timers,
} from "artifact-bloom";

await init(); // a no-op everywhere now (the wasm is instantiated on first use); kept for older code

const spec = {
  expectedItemCount: 1_000,
  targetFalsePositiveRate: 0.001,
} satisfies BloomSpec;

const digests: Uint8Array[] = Array.from(
  { length: 100 },
  (_, i) => createHash("sha256").update(`artifact:${i}`).digest(), // a Buffer is a Uint8Array
);

/** Every BloomError must be handled: a new code breaks the `never` check. */
function explain(error: BloomError): string {
  switch (error) {
    case "invalidExpectedItemCount":
      return "expectedItemCount must be an integer in 1..2^30";
    case "invalidFalsePositiveRate":
      return "targetFalsePositiveRate must be in (0, 1)";
    case "capacityExceeded":
      return "more digests than expectedItemCount";
    case "filterTooLarge":
      return "no layout fits in 2^30 bits";
    case "invalidDigest":
      return "a digest is not a 32-byte Uint8Array";
    case "outOfMemory":
      return "wasm memory (at most 4 GiB) has no room: free() filters no longer needed";
    default: {
      const unreachable: never = error;
      return unreachable;
    }
  }
}

// The union is exactly these six codes, in both directions.
const allErrors = [
  "invalidExpectedItemCount",
  "invalidFalsePositiveRate",
  "capacityExceeded",
  "filterTooLarge",
  "invalidDigest",
  "outOfMemory",
] as const satisfies readonly BloomError[];
type Missing = Exclude<BloomError, (typeof allErrors)[number]>;
const noneMissing: [Missing] extends [never] ? true : false = true;

export function build(): ArtifactBloomFilter {
  const result: Result<ArtifactBloomFilter> = ArtifactBloomFilter.create(digests, spec);
  if (result.kind === "failure") {
    throw new Error(explain(result.error));
  }
  return result.value; // narrowed by `kind`
}

export function precheck(digest: Uint8Array): boolean {
  using filter = build(); // freed at the end of the scope
  const maybe: boolean = filter.mightContain(digest);
  const flags: Uint8Array = filter.mightContainMany(new Uint8Array(64));
  const maybeCount: number = filter.countMaybe(new Uint8Array(64));
  const sizes: number[] = [
    filter.getBitCount(),
    filter.getHashCount(),
    filter.getInsertedItemCount(),
    filter.getExpectedItemCount(),
    filter.getTargetFalsePositiveRate(),
    filter.estimateFalsePositiveRate(),
    filter.getFillRatio(),
  ];
  const bits: Uint8Array = filter.serializeBits();
  const freed: boolean = filter.freed;

  // @ts-expect-error a hex string is not a digest: pass bytes
  filter.mightContain("ab".repeat(32));
  // @ts-expect-error freed is read-only
  filter.freed = true;
  return maybe && flags.length + maybeCount + sizes.length + bits.length > 0 && !freed;
}

export function packed(): number {
  const result = ArtifactBloomFilter.createPacked(new Uint8Array(32 * 4), spec);
  if (result.kind === "success") {
    const filter = result.value;
    try {
      return filter.getBitCount();
    } finally {
      filter.free();
    }
  }
  const error: BloomError = result.error;
  return error.length;
}

export function merge(a: ArtifactBloomFilter, b: ArtifactBloomFilter): ArtifactBloomFilter | undefined {
  const merged = ArtifactBloomFilter.union(a, b);
  if (merged.kind === "failure") {
    // union has its own, narrower error type
    const error: "incompatibleFilters" | "capacityExceeded" | "outOfMemory" = merged.error;
    // @ts-expect-error "incompatibleFilters" is not a BloomError
    explain(merged.error);
    return error ? undefined : undefined;
  }
  return merged.value;
}

export function hashFile(chunks: readonly Uint8Array[]): Uint8Array {
  using hasher = new Sha256();
  for (const chunk of chunks) hasher.update(chunk).update(new Uint8Array(0)); // update chains
  const digest: Uint8Array = hasher.digest();
  const oneShot: Uint8Array = sha256(digest);
  const memory: number = wasmMemoryBytes();
  return memory > 0 ? oneShot : digest;
}

export async function hashPicked(files: readonly Blob[], signal: AbortSignal): Promise<Uint8Array[]> {
  const options: HashFilesOptions = {
    signal,
    concurrency: 2,
    wholeFileLimit: DEFAULT_WHOLE_FILE_LIMIT / 4,
    onProgress: ({ bytes, total, index, fileBytes }) => {
      const share: number | undefined = total === undefined ? undefined : bytes / total;
      return share ?? index + fileBytes;
    },
    onFile: ({ index, result, ms, runner }) => {
      const where: HashFilesRunner = runner;
      // @ts-expect-error a runner is one of three names
      const wrong: HashFilesRunner = "main-thread";
      return result.kind === "success"
        ? result.value.length
        : `${index} ${result.error} ${result.message} ${ms} ${where} ${wrong}`;
    },
  };
  const results: HashFileResult[] = await hashFiles(files, options);
  // @ts-expect-error a digest exists only on success
  results[0]?.value;
  // @ts-expect-error concurrency is a number
  await hashFiles(files, { concurrency: "2" });
  return results.flatMap((r) => (r.kind === "success" ? [r.value] : []));
}

// @ts-expect-error the constructor is private: use ArtifactBloomFilter.create
new ArtifactBloomFilter();

const frozen: BloomSpec = spec;
// @ts-expect-error a BloomSpec is readonly
frozen.expectedItemCount = 5;

// @ts-expect-error a spec field missing
ArtifactBloomFilter.create(digests, { expectedItemCount: 10 });

// The HTTP clients' time limits and coded errors.
const timers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};
const fetchOptions: FetchSnapshotOptions = {
  timeoutMs: 5_000,
  idleTimeoutMs: 1_000,
  timers,
  signal: AbortSignal.timeout(60_000),
};

export async function refresh(url: string, holder: SnapshotHolder): Promise<string> {
  const loaded = await fetchSnapshot(url, fetchOptions);
  if (loaded.kind === "failure") {
    if (loaded.error === "timeout") return "the catalog server did not answer in time";
    const status: number | undefined = loaded.status;
    return `${loaded.error} ${status ?? ""}`;
  }
  holder.replace(loaded.value);
  holder.startPolling(url, { intervalMs: 60_000, timeoutMs: 10_000 });
  // Deltas: the snapshot in service as `base`; the result says what the download cost.
  const deltaOptions: FetchSnapshotDeltaOptions = { ...fetchOptions, base: holder.current() };
  const next: FetchSnapshotResult = await fetchSnapshot(url, deltaOptions);
  if (next.kind === "success") {
    const transfer: SnapshotTransfer = next.transfer;
    const saved: number = transfer.fullBytes - transfer.bytes + holder.bytesSaved + holder.deltaRefreshCount;
    if (transfer.delta && saved < 0) return "impossible";
  }
  // fetchSnapshot's own failures narrow by code: a conflict carries the server's snapshot.
  if (next.kind === "failure" && next.error === "versionConflict") next.snapshot.filter.free();
  if (next.kind === "failure" && next.error === "networkError") return `no answer: ${next.causeCode ?? "unknown cause"}`;
  const counted: number = holder.versionConflictCount;
  const polling: SnapshotDeltaPollingOptions = {
    intervalMs: 60_000,
    delta: true,
    timers,
    onRefresh: (result) => {
      if (result.outcome === "failure" && result.error === "versionConflict" && result.replaced)
        console.warn(result.message, counted);
    },
  };
  holder.startPolling(url, polling);
  // @ts-expect-error delta is a boolean
  holder.startPolling(url, { intervalMs: 60_000, delta: "yes" });
  const streamed = await loadSnapshotStream(new Response(new Uint8Array(0)), { idleTimeoutMs: 250 });
  return streamed.kind;
}

/** Every HttpClientErrorCode must be handled: a new code breaks the `never` check. */
function advise(code: HttpClientErrorCode): string {
  switch (code) {
    case "redirect":
      return "point baseUrl at the repository itself";
    case "unexpectedStatus":
      return "the repository answered neither 200 nor 404";
    case "notExistenceApi":
      return "baseUrl is not an existence API (a static host or a wrong path): fix the URL";
    case "versionMismatch":
      return "the repository answers for another catalogVersion: load its snapshot";
    case "malformedResponse":
      return "the findMissing reply was not { catalogVersion, missing }";
    case "timeout":
      return "retry later";
    case "networkError":
      return "no HTTP answer (see causeCode): retry later";
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}

export async function exists(digest: Uint8Array): Promise<boolean | string> {
  const repository = new HttpArtifactRepository("http://127.0.0.1:8080/", { timeoutMs: 5_000, timers });
  try {
    return await repository.existsAtVersionAsync(digest, 43, AbortSignal.timeout(1_000));
  } catch (error) {
    const { code, status } = error as HttpClientError;
    return `${advise(code)} (${status ?? "no status"})`;
  }
}

// @ts-expect-error timeoutMs is a number of milliseconds
new HttpArtifactRepository("http://127.0.0.1:8080/", { timeoutMs: "5s" });
// @ts-expect-error "notFound" is not an HttpClientErrorCode
advise("notFound");

export { noneMissing };
