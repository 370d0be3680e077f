// Uses every export of "artifact-bloom", "artifact-bloom/variants" and
// "artifact-bloom/delta" — each declaration of index.d.ts, variants/index.d.ts
// and delta/index.d.ts appears here by name
// (consumers.test.mjs checks that). Compiled, never run, under each module
// system of the type matrix (CommonJS node16, ESM node16, nodenext, bundler,
// browser-only), so it is platform-neutral: no Node or DOM types, no
// top-level await, no import.meta.
import init, {
  ABF1_HEADER_LENGTH,
  ArtifactBloomFilter,
  ArtifactExistenceService,
  HttpArtifactRepository,
  MAXIMUM_EXPECTED_ITEM_COUNT,
  MAXIMUM_SNAPSHOT_BYTES,
  Sha256,
  SnapshotHolder,
  dedupePacked,
  encodeSnapshot,
  fetchSnapshot,
  init as namedInit,
  initSync,
  loadSnapshot,
  loadSnapshotStream,
  readSnapshotHeader,
  renderPrometheus,
  sha256,
  wasmMemoryBytes,
  type ArtifactBloomMetrics,
  type ArtifactExistenceServiceOptions,
  type ArtifactIndexSnapshot,
  type ArtifactRepository,
  type BloomError,
  type BloomSpec,
  type Bytes,
  type CatalogVersion,
  type Result,
  type SnapshotHeader,
  type SnapshotHolderOptions,
  type SnapshotLoadError,
  type SnapshotLoaderResult,
  type SnapshotMeta,
  type SnapshotPollingOptions,
  type SnapshotRefreshResult,
  type SnapshotResult,
  type SnapshotStreamOptions,
  DEFAULT_WHOLE_FILE_LIMIT,
  OciRegistryError,
  OciRegistryRepository,
  hashFiles,
  type FetchSnapshotOptions,
  type HashFileResult,
  type HashFilesOptions,
  type HashFilesProgress,
  type HashFilesRunner,
  type HttpArtifactRepositoryOptions,
  type HttpClientError,
  type HttpClientErrorCode,
  type OciRegistryErrorCode,
  type OciRegistryRepositoryOptions,
  type TlsProblemKind,
  type RegistryCredentials,
  type RegistryRequestCounts,
  type SnapshotDeltaApplyError,
  type SnapshotDeltaComposeError,
  type SnapshotDeltaEncodeError,
  type SnapshotDeltaError,
  type SnapshotDeltaHeader,
  type SnapshotDeltaPollingOptions,
  type SnapshotTransfer,
  type FetchSnapshotDeltaOptions,
  type FetchSnapshotResult,
  type SnapshotDeltaResult,
  type SnapshotHeaderResult,
  type SnapshotProgress,
  type SnapshotSource,
  type Timers,
} from "artifact-bloom";
import {
  MergeableBloomFilter,
  MergeableDelta,
  ScalableBloomFilter,
  TlBloom,
  alertFillRatio,
  expectedFillRatio,
  fppFromFillRatio,
  optimalParams,
  variantsMemoryBytes,
  type BloomItem,
  type OptimalParams,
  type Bytes as VariantBytes,
  type DecodeResult,
  type MergeableDecodeError,
  type MergeableDeltaEntry,
  type ScalableBloomFilterOptions,
  type ScalableDecodeError,
  type SystemsArgumentError,
  type TlbfDecodeError,
} from "artifact-bloom/variants";
import {
  applySnapshotDelta,
  composeSnapshotDeltas,
  encodeSnapshotDelta,
  fetchSnapshot as fetchSnapshotWithDeltas,
  readSnapshotDeltaHeader,
} from "artifact-bloom/delta";

/** Byte results are fresh arrays over an ArrayBuffer (`Uint8Array<ArrayBuffer>` on TS ≥ 5.7). */
function owned(bytes: Uint8Array<ArrayBuffer>): number {
  return bytes.byteLength;
}

export async function useMainEntry(digests: Uint8Array[]): Promise<number> {
  await init();
  await namedInit({ ignored: true });
  initSync();
  const spec: BloomSpec = { expectedItemCount: 1_000, targetFalsePositiveRate: 0.001 };
  const built: Result<ArtifactBloomFilter> = ArtifactBloomFilter.create(digests, spec);
  if (built.kind === "failure") {
    const code: BloomError = built.error;
    return code.length;
  }
  const filter = built.value;
  const maybe: boolean = filter.mightContain(digests[0] ?? new Uint8Array(32));
  const flags: Bytes = filter.mightContainMany(new Uint8Array(64));
  const bits: Uint8Array<ArrayBuffer> = filter.serializeBits();

  const hasher = new Sha256();
  const digest: Bytes = hasher.update(new Uint8Array([1, 2, 3])).digest();
  hasher.free();
  const oneShot = sha256(digest);

  const bytes = encodeSnapshot(filter, { catalogVersion: 42 });
  const meta: SnapshotMeta = { source: "memory" };
  const loaded: SnapshotResult = loadSnapshot(bytes, meta);
  if (loaded.kind === "failure") {
    const code: SnapshotLoadError = loaded.error;
    return code.length;
  }
  const header: SnapshotHeader = loaded.value.header;
  const claimed = readSnapshotHeader(bytes.subarray(0, ABF1_HEADER_LENGTH));
  const largestFile: number = MAXIMUM_SNAPSHOT_BYTES;
  const largestCount: number = MAXIMUM_EXPECTED_ITEM_COUNT;
  void (largestFile + largestCount);
  const streamOptions: SnapshotStreamOptions = { maxBytes: 1 << 20, onProgress: ({ bytes: seen }) => void seen };
  const streamed = await loadSnapshotStream([bytes], streamOptions);
  const fetched = await fetchSnapshot("https://catalog.example/snapshot", { etag: '"v42"' });

  const { unique, duplicates } = dedupePacked(new Uint8Array(64));
  const version: CatalogVersion = loaded.value.catalogVersion;
  const snapshot: ArtifactIndexSnapshot = { catalogVersion: version, filter: loaded.value.filter };
  const repository: ArtifactRepository = new HttpArtifactRepository("https://catalog.example/");
  const holderOptions: SnapshotHolderOptions = { allowSameOrOlder: false };
  const holder = new SnapshotHolder(snapshot, holderOptions);
  const refreshed: SnapshotRefreshResult = await holder.refreshFrom(
    (): SnapshotLoaderResult => ({ kind: "success", value: snapshot }),
  );
  const polling: SnapshotPollingOptions = { intervalMs: 60_000, freeReplacedAfterMs: 5_000 };
  holder.startPolling("https://catalog.example/snapshot", polling);
  const deltaPolling: SnapshotDeltaPollingOptions = { ...polling, delta: true };
  holder.startPolling("https://catalog.example/snapshot", deltaPolling);
  const deltaFetch: FetchSnapshotDeltaOptions = { base: holder.current() };
  // The main entry's fetchSnapshot takes `base` too (conditional only); the delta entry's asks for a delta.
  const conditional: FetchSnapshotResult = await fetchSnapshot("https://catalog.example/snapshot", deltaFetch);
  const deltaFetched: FetchSnapshotResult =
    conditional.kind === "failure" && conditional.error === "notModified"
      ? conditional
      : await fetchSnapshotWithDeltas("https://catalog.example/snapshot", deltaFetch);
  const transfer: SnapshotTransfer | undefined = deltaFetched.kind === "success" ? deltaFetched.transfer : undefined;
  const counted: number = holder.deltaRefreshCount + holder.fullRefreshCount + holder.bytesTransferred + holder.bytesSaved;
  holder.stopPolling();
  const serviceOptions: ArtifactExistenceServiceOptions = { batchSize: 100, concurrency: 4 };
  const service = new ArtifactExistenceService(holder, repository, serviceOptions);
  // The caller's own digest objects come back: their buffer type is the caller's.
  const missing: Uint8Array[] = await service.findMissingAsync([new Uint8Array(32)]);
  const metrics: ArtifactBloomMetrics = service.metrics();
  const text: string = renderPrometheus(metrics);

  filter.free();
  return [
    maybe,
    flags,
    owned(bits),
    oneShot,
    header,
    claimed,
    streamed,
    fetched,
    unique,
    duplicates,
    refreshed,
    missing,
    text,
    transfer,
    counted,
    wasmMemoryBytes(),
  ].length;
}

export function useVariants(): number {
  const item: BloomItem = "cat";
  const tl = TlBloom.withRate(4, 0.1).insert(item);
  const tlBytes: VariantBytes = tl.toBytes();
  const tlLoaded: DecodeResult<TlBloom, TlbfDecodeError> = TlBloom.fromBytes(tlBytes);

  const replica = MergeableBloomFilter.create(1_000, 0.01);
  const delta: MergeableDelta = replica.add("alice");
  const entries: readonly MergeableDeltaEntry[] = delta.entries;
  const decoded: DecodeResult<MergeableDelta, MergeableDecodeError> = MergeableDelta.decode(delta.encode());
  replica.piece(delta);

  const options: ScalableBloomFilterOptions = { initialCapacity: 1_000, targetFalsePositiveRate: 0.01 };
  const scalable = new ScalableBloomFilter(options).add("bob");
  const scalableLoaded: DecodeResult<ScalableBloomFilter, ScalableDecodeError> = ScalableBloomFilter.decode(scalable.encode());

  const sized: OptimalParams = optimalParams(1_000, 0.01);
  const { m, k } = sized;
  const fill = expectedFillRatio(1_000, m, k);
  const rates = [fppFromFillRatio(fill, k), alertFillRatio(0.01, k)];
  const code: SystemsArgumentError = "invalidHashCount";

  tl.free();
  replica.free();
  scalable.free();
  return [owned(tlBytes), tlLoaded, entries, decoded, scalableLoaded, rates, code, variantsMemoryBytes()].length;
}

/** The HTTP clients, the registry repository, deltas and hashFiles (typed, never run). */
export async function useClientsAndDeltas(
  base: ArtifactIndexSnapshot,
  target: ArtifactIndexSnapshot,
  files: readonly Blob[],
): Promise<number> {
  const timers: Timers = {
    setTimeout: (callback, ms) => setTimeout(callback, ms),
    clearTimeout: (handle) => clearTimeout(handle as number),
  };
  const httpOptions: HttpArtifactRepositoryOptions = { timeoutMs: 5_000, timers };
  const http = new HttpArtifactRepository("https://catalog.example/", httpOptions);
  const fetchOptions: FetchSnapshotOptions = { timeoutMs: 10_000, etag: '"v1"' };
  const fetched = await fetchSnapshot("https://catalog.example/snapshot", fetchOptions);
  const header: SnapshotHeaderResult = readSnapshotHeader(new Uint8Array(96));
  const progress: SnapshotProgress = { bytes: 0, total: undefined };
  const source: SnapshotSource = [new Uint8Array(96)];
  const httpCode: HttpClientErrorCode = "redirect";
  const onFailure = (error: HttpClientError): number | undefined => error.status;

  const credentials: RegistryCredentials = { username: "ci", password: "secret" };
  const ociOptions: OciRegistryRepositoryOptions = { credentials, timeoutMs: 5_000 };
  const registry = new OciRegistryRepository("https://registry.example", "team/app", ociOptions);
  const counts: RegistryRequestCounts | undefined = undefined;
  const ociCode: OciRegistryErrorCode = "unauthorized";
  const tlsProblem: TlsProblemKind | undefined = new OciRegistryError("x", { code: "networkError" }).tlsProblem;
  const isRegistryError = (error: unknown): boolean => error instanceof OciRegistryError;

  const delta: SnapshotDeltaResult<Uint8Array, SnapshotDeltaEncodeError> = encodeSnapshotDelta(base, target);
  const bytes = delta.kind === "success" ? delta.value : new Uint8Array(0);
  const applied: SnapshotResult | SnapshotDeltaResult<never, SnapshotDeltaApplyError> = applySnapshotDelta(base, bytes);
  const composed: SnapshotDeltaResult<Uint8Array, SnapshotDeltaComposeError> = composeSnapshotDeltas(bytes, bytes);
  const deltaHeader: SnapshotDeltaResult<SnapshotDeltaHeader, SnapshotDeltaError> = readSnapshotDeltaHeader(bytes);

  const hashOptions: HashFilesOptions = {
    concurrency: 2,
    wholeFileLimit: DEFAULT_WHOLE_FILE_LIMIT,
    onProgress: (p: HashFilesProgress) => void p.bytes,
    onFile: ({ runner }: { runner: HashFilesRunner }) => void runner,
  };
  const hashed: HashFileResult[] = await hashFiles(files, hashOptions);
  return [
    http,
    fetched,
    header,
    progress,
    source,
    httpCode,
    onFailure,
    registry,
    counts,
    ociCode,
    tlsProblem,
    isRegistryError,
    applied,
    composed,
    deltaHeader,
    hashed,
  ].length;
}
