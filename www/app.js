// The precheck page: load the catalog's Bloom snapshot, hash files with the
// package's hashFiles (WebCrypto up to its size limit, streaming wasm above
// it, in Web Workers), and decide per file whether an upload is needed.
//
//   filter says "definitely absent" → upload; no request is made at all;
//   filter says "maybe"             → ask the server's exact existence API at
//                                     the snapshot's catalogVersion.
//
// State the browser tests read is mirrored in data attributes: body
// data-snapshot (loading|loaded|failed), data-error-code, data-checksum (the
// snapshot's ABF1 checksum) and, after "Check for updates", data-refresh
// (delta|full|notModified|failed) with data-refresh-bytes; per file
// data-digest, data-verdict (absent|present|missing|error), data-hash-ms.

const SNAPSHOT_URL = "/snapshot";
// A filter for 100 million artifacts at 1 % is ~120 MB; refuse anything far
// beyond that rather than let a bad server exhaust the tab's memory.
const MAX_SNAPSHOT_BYTES = 1024 * 1024 * 1024;
// Rows for a big drop are added in slices of this long, so the page keeps
// painting (in Chromium each File's first `size` is a round trip to the
// browser process).
const ROW_SLICE_MS = 8;

// What each snapshot load failure means to the person looking at the page.
const UNREACHABLE = "Cannot reach the catalog server. Check that it is running and that this computer can connect to it.";
const LOAD_ERRORS = {
  truncated: "The snapshot ended early: the download was cut off or the file is incomplete. Nothing was loaded.",
  badMagic: "This is not an ABF1 snapshot: its first bytes are not the ABF1 signature. Nothing was loaded.",
  unsupportedFormatVersion:
    "The snapshot uses a format version this page does not understand. Update artifact-bloom; nothing was loaded.",
  unsupportedHashProtocol:
    "The snapshot probes digests with a hash protocol this page does not implement, "
    + "so its answers would be wrong. Nothing was loaded.",
  invalidHeader:
    "The snapshot header holds impossible values (such as zero bits, zero hash functions or an invalid rate). "
    + "Nothing was loaded.",
  lengthMismatch: "The snapshot's payload is not the length its header declares. Nothing was loaded.",
  checksumMismatch: "The snapshot is corrupted: its SHA-256 does not match. Nothing was loaded.",
  httpError: "The catalog server answered with an error instead of the snapshot.",
  tooLarge: "The snapshot is larger than this page accepts (1 GiB). Nothing was loaded.",
  unreachable: UNREACHABLE,
  // fetchSnapshot's code when no HTTP answer came (server down, connection refused or reset).
  networkError: UNREACHABLE,
  wasmUnavailable: "The artifact-bloom WebAssembly module could not be loaded, so nothing can be checked here.",
};

const $ = (id) => document.getElementById(id);
const integer = new Intl.NumberFormat();

function formatBytes(bytes) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** A probability as a short percentage ("1%", "0.981%"), or in e-notation when tiny. */
function formatProbability(p) {
  if (p === 0) return "0%";
  if (p < 1e-6) return p.toExponential(1);
  return `${Number((p * 100).toPrecision(3))}%`;
}

function formatDuration(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

// ---------------------------------------------------------------------------
// Snapshot

let api; // the package's browser build, once imported

// The package (and its wasm module), loaded once for the snapshot and the files.
const packageReady = (async () => {
  api = await import("/pkg/web.js");
  await api.default(); // instantiate the wasm module (fetched beside web.js)
  return api;
})();

function showLoadFailure(code, message) {
  document.body.dataset.snapshot = "failed";
  document.body.dataset.errorCode = code;
  $("snapshot-loading").hidden = true;
  $("snapshot-pill").textContent = "Not loaded";
  $("snapshot-pill").className = "pill pill-bad";
  $("snapshot-error-code").textContent = code;
  $("snapshot-error-text").textContent = LOAD_ERRORS[code] ?? "The snapshot could not be loaded. Nothing was loaded.";
  $("snapshot-error-detail").textContent = message ? `Details: ${message}` : "";
  $("snapshot-error").hidden = false;
  return undefined;
}

function showProgress({ bytes, total }) {
  const bar = /** @type {HTMLProgressElement} */ ($("snapshot-progress"));
  if (total) {
    bar.max = total;
    bar.value = bytes;
    $("snapshot-status").textContent = `Downloading the snapshot… ${formatBytes(bytes)} of ${formatBytes(total)}`;
  } else {
    bar.removeAttribute("value"); // no known size: an indeterminate bar
    $("snapshot-status").textContent = `Downloading the snapshot… ${formatBytes(bytes)}`;
  }
}

function showSnapshot(snapshot, service, loadMs) {
  const { header } = snapshot;
  const metrics = service.metrics();
  $("catalog-version").textContent = String(snapshot.catalogVersion);
  $("items-inserted").textContent = integer.format(header.insertedItemCount);
  $("items-expected").textContent = integer.format(header.expectedItemCount);
  $("bit-count").textContent = integer.format(header.bitCount);
  $("byte-size").textContent = formatBytes(header.payloadLength);
  $("hash-count").textContent = String(header.hashCount);
  $("target-fpp").textContent = formatProbability(header.targetFpp);
  $("estimated-fpp").textContent = formatProbability(metrics["artifact_bloom.estimated_fpp"]);
  const published = snapshot.lastModified;
  $("last-modified").textContent = published ? published.toLocaleString() : "unknown";
  if (snapshot.etag) $("last-modified").title = `ETag ${snapshot.etag}`;

  // FPP ≈ fill^k, so the fill at which it reaches twice the target is (2p)^(1/k).
  const fill = metrics["artifact_bloom.fill_ratio"];
  const threshold = Math.min(1, (2 * header.targetFpp) ** (1 / header.hashCount));
  const over = fill >= threshold;
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  $("fill-value").textContent = pct(fill);
  $("fill-threshold").textContent = pct(threshold);
  $("fill-bar").style.width = pct(fill);
  $("fill-marker").style.left = pct(threshold);
  const gauge = $("fill-gauge");
  gauge.classList.toggle("gauge-over", over);
  gauge.setAttribute("aria-valuenow", (fill * 100).toFixed(1));
  gauge.setAttribute("aria-valuetext", `${pct(fill)} of bits set; alert at ${pct(threshold)}`);
  const target = formatProbability(header.targetFpp);
  $("fill-caption").textContent = over
    ? `Above the alert line at ${pct(threshold)}: the false-positive rate is over twice the ${target} target, `
      + "so more files need a server call. Republish with a larger capacity."
    : `${pct(fill)} of the bits are set. The marker at ${pct(threshold)} is where the false-positive rate `
      + `would reach twice the ${target} target.`;

  document.body.dataset.snapshot = "loaded";
  delete document.body.dataset.errorCode;
  $("snapshot-loading").hidden = true;
  $("snapshot-details").hidden = false;
  $("snapshot-pill").textContent =
    `Checksum verified · ${formatBytes(header.payloadLength + api.ABF1_HEADER_LENGTH)} in ${formatDuration(loadMs)}`;
  $("snapshot-pill").className = "pill pill-ok";
  document.body.dataset.checksum = header.checksum;
  $("snapshot-refresh").hidden = false;
}

// The snapshot in service: the page's queries always take the holder's current one.
let holder;

// "Check for updates": asks the server for an ABD1 delta from the snapshot
// held (`artifact-bloom/delta`'s fetchSnapshot with `base`; the server
// answers 226 with only the new bits, or the full file), and says what the
// refresh cost. The delta module is imported on the first click only: the
// page's first load needs none of it.
let deltaApi;
async function refreshCatalog() {
  const button = /** @type {HTMLButtonElement} */ ($("snapshot-refresh"));
  const status = $("refresh-status");
  button.disabled = true;
  status.textContent = "Checking for a newer snapshot…";
  const started = performance.now();
  const current = holder.current();
  let result;
  try {
    deltaApi ??= await import("/pkg/delta/index.js");
    result = await deltaApi.fetchSnapshot(SNAPSHOT_URL, { base: current, etag: current.etag, maxBytes: MAX_SNAPSHOT_BYTES });
  } catch (error) {
    result = { kind: "failure", error: "unreachable", message: error?.message };
  }
  button.disabled = false;
  if (result.kind === "failure") {
    document.body.dataset.refresh = result.error === "notModified" ? "notModified" : "failed";
    status.textContent =
      result.error === "notModified"
        ? "Up to date: the server has no newer snapshot."
        : `The refresh failed (${result.error}); the snapshot in use is unchanged.`;
    return;
  }
  const { transfer } = result;
  const previous = holder.current();
  if (result.value.catalogVersion <= previous.catalogVersion) {
    result.value.filter.free();
    document.body.dataset.refresh = "notModified";
    status.textContent = "Up to date: the server has no newer snapshot.";
    return;
  }
  holder.replace(result.value);
  // Queries that started on the old snapshot keep it until they finish: free it later.
  setTimeout(() => previous.filter.free(), 60_000);
  document.body.dataset.refresh = transfer.delta ? "delta" : "full";
  document.body.dataset.refreshBytes = String(transfer.bytes);
  const saved = Math.max(0, transfer.fullBytes - transfer.bytes);
  status.textContent = transfer.delta
    ? `Updated to catalog version ${result.value.catalogVersion} with a delta: ${formatBytes(transfer.bytes)} instead of `
      + `${formatBytes(transfer.fullBytes)} (${formatBytes(saved)} saved).`
    : `Updated to catalog version ${result.value.catalogVersion}: the full snapshot, ${formatBytes(transfer.bytes)}.`;
  showSnapshot(result.value, serviceInUse, performance.now() - started);
}

let serviceInUse;

async function loadCatalog() {
  try {
    await packageReady;
  } catch (error) {
    return showLoadFailure("wasmUnavailable", error?.message);
  }
  const started = performance.now();
  let result;
  try {
    result = await api.fetchSnapshot(SNAPSHOT_URL, { maxBytes: MAX_SNAPSHOT_BYTES, onProgress: showProgress });
  } catch (error) {
    // fetch() rejects only when no HTTP answer came at all (server down,
    // connection refused or reset mid-body): that is not a snapshot problem.
    return showLoadFailure("unreachable", error?.message);
  }
  if (result.kind === "failure") return showLoadFailure(result.error, result.message);
  const snapshot = result.value;
  holder = new api.SnapshotHolder(snapshot);
  const service = new api.ArtifactExistenceService(holder, new api.HttpArtifactRepository("/"));
  serviceInUse = service;
  showSnapshot(snapshot, service, performance.now() - started);
  $("snapshot-refresh").addEventListener("click", refreshCatalog);
  return service;
}

// Resolves to the service, or undefined when there is no usable snapshot.
// Files added early are hashed meanwhile and wait for it.
const catalog = loadCatalog();

// ---------------------------------------------------------------------------
// Files: hashing (hashFiles), then the verdict

function createRow(file) {
  const template = /** @type {HTMLTemplateElement} */ ($("file-row"));
  const row = /** @type {HTMLElement} */ (template.content.firstElementChild.cloneNode(true));
  row.querySelector(".file-name").textContent = file.name || "(unnamed)";
  row.querySelector(".file-size").textContent = formatBytes(file.size);
  row.querySelector(".file-progress").setAttribute("aria-label", `Hashing ${file.name}`);
  $("results").append(row);
  return row;
}

function setProgress(job, bytes) {
  const fraction = job.file.size === 0 ? 1 : bytes / job.file.size;
  job.row.querySelector(".file-progress").value = fraction;
  job.row.querySelector(".file-percent").textContent = `${Math.floor(fraction * 100)}%`;
}

function setVerdict(job, state, badge, text) {
  const { row } = job;
  row.dataset.state = state;
  // data-verdict only appears once the answer is final.
  if (["absent", "present", "missing", "error"].includes(state)) row.dataset.verdict = state;
  row.querySelector(".badge").textContent = badge;
  row.querySelector(".verdict-text").textContent = text;
  updateSummary();
}

function onHashed(job, result, ms) {
  if (result.kind === "failure") {
    const text =
      result.error === "workerFailed" ? `Hashing failed: ${result.message}.` : `Could not read the file (${result.message}).`;
    return setVerdict(job, "error", "Error", text);
  }
  const digest = result.value;
  const bytes = job.file.size;
  const hex = toHex(digest);
  setProgress(job, bytes);
  const { row } = job;
  row.dataset.digest = hex;
  row.dataset.hashMs = ms.toFixed(1);
  row.dataset.bytes = String(bytes);
  row.querySelector(".digest").textContent = hex;
  // A rate is only meaningful once the file is big enough to time.
  const rate = bytes >= 1e6 && ms > 0 ? ` at ${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s` : "";
  job.hashed = `Hashed in ${formatDuration(ms)}${rate}`;
  setMeta(job, "");
  decide(job, digest);
}

/** Hashes one drop of files; each is decided as soon as its digest is in. */
async function hashJobs(jobs) {
  try {
    await packageReady;
  } catch {
    for (const job of jobs) setVerdict(job, "error", "Error", `Hashing failed: ${LOAD_ERRORS.wasmUnavailable}`);
    return;
  }
  try {
    await api.hashFiles(
      jobs.map((job) => job.file),
      {
        // The page's own worker entry (it loads the package's hash worker).
        workerUrl: new URL("hash-worker.js", import.meta.url),
        onProgress: ({ index, fileBytes }) => setProgress(jobs[index], fileBytes),
        onFile: ({ index, result, ms }) => onHashed(jobs[index], result, ms),
      },
    );
  } catch (error) {
    // Only a bug can get here (no signal is passed): never leave rows spinning.
    for (const job of jobs)
      if (!job.row.dataset.verdict && !job.row.dataset.digest)
        setVerdict(job, "error", "Error", `Hashing failed: ${error?.message}.`);
  }
}

function setMeta(job, requests) {
  job.row.querySelector(".file-meta").textContent = requests ? `${job.hashed} · ${requests}` : job.hashed;
}

async function decide(job, digest) {
  setVerdict(job, "waiting", "…", "Waiting for the snapshot…");
  const service = await catalog;
  if (service === undefined) {
    return setVerdict(job, "error", "Unknown", "No snapshot is loaded, so this file cannot be prechecked. Nothing was assumed.");
  }
  // The service makes the decision; this extra probe of the same immutable
  // filter only tells the page whether to show "checking…" meanwhile.
  const maybe = service.snapshot.filter.mightContain(digest);
  const version = service.snapshot.catalogVersion;
  if (maybe) setVerdict(job, "checking", "Maybe", `Maybe present → checking with the server (catalog v${version})…`);
  try {
    const exists = await service.existsAsync(digest);
    setMeta(job, maybe ? `1 server request (HEAD at catalog v${version})` : "no server request");
    if (exists) {
      setVerdict(
        job,
        "present",
        "Skip",
        `Already on the server (catalog v${version}) → no upload needed. Confirmed by one API call.`,
      );
    } else if (maybe) {
      setVerdict(
        job,
        "missing",
        "Upload",
        "Not on the server → upload. The filter said maybe, the server said absent: a false positive.",
      );
    } else {
      setVerdict(job, "absent", "Upload", "Definitely absent → upload. The filter rules it out; no server request was made.");
    }
  } catch (error) {
    // Never turn a failed lookup into "absent": the file may well be stored.
    let text = `The server could not confirm it (${error?.message}). Not assumed absent; check again before uploading.`;
    // networkError: HttpArtifactRepository's code for "no HTTP answer came".
    if (error?.code === "networkError" || error instanceof TypeError)
      text = "Cannot reach the catalog server to confirm this maybe. Not assumed absent; check again before uploading.";
    else if (error?.code === "notExistenceApi")
      text =
        "The existence API URL answered like a plain web server, not the catalog's existence API. Not assumed absent; check the page's API address.";
    else if (error?.status === 409)
      text = "The server now holds a different catalog version (409). Reload the page for the current snapshot.";
    setMeta(job, "the server request failed");
    setVerdict(job, "error", "Unknown", text);
  }
}

async function addFiles(fileList) {
  const files = Array.from(fileList);
  const jobs = [];
  for (let i = 0; i < files.length; ) {
    const sliceEnd = performance.now() + ROW_SLICE_MS;
    do {
      jobs.push({ file: files[i], row: createRow(files[i]) });
      i += 1;
    } while (i < files.length && performance.now() < sliceEnd);
    if (i < files.length) await new Promise((resolve) => setTimeout(resolve, 0));
  }
  updateSummary();
  if (jobs.length > 0) hashJobs(jobs);
}

function updateSummary() {
  const rows = /** @type {HTMLElement[]} */ ([...$("results").children]);
  const count = (verdict) => rows.filter((row) => row.dataset.verdict === verdict).length;
  // The lookup counters come from the service itself, not from the page's own
  // bookkeeping, so the summary shows exactly what the package did.
  catalog.then((service) => {
    const metrics = service?.metrics();
    $("sum-files").textContent = integer.format(rows.length);
    $("sum-skipped").textContent = integer.format(metrics?.["artifact_bloom.negative.count"] ?? 0);
    $("sum-api").textContent = integer.format(metrics?.["artifact_bloom.maybe.count"] ?? 0);
    $("sum-fp").textContent = integer.format(metrics?.["artifact_bloom.false_positive.count"] ?? 0);
    $("sum-upload").textContent = integer.format(count("absent") + count("missing"));
    $("sum-present").textContent = integer.format(count("present"));
    const decided = rows.filter((row) => row.dataset.verdict).length;
    const pending = rows.length - decided;
    const bypass = metrics ? `${Math.round(metrics.negativeBypassRatio * 100)}% of lookups were skipped by the filter. ` : "";
    $("summary-note").textContent =
      rows.length === 0
        ? ""
        : `${bypass}${pending > 0 ? `${pending} file${pending === 1 ? "" : "s"} still in progress.` : "All files processed."}`;
  });
}

// ---------------------------------------------------------------------------
// Picker and drop zone

const input = /** @type {HTMLInputElement} */ ($("file-input"));
const zone = $("drop-zone");

input.addEventListener("change", () => {
  addFiles(input.files);
  input.value = ""; // so picking the same file again still fires "change"
});
zone.addEventListener("click", () => input.click());
zone.addEventListener("keydown", (event) => {
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault(); // Space would otherwise scroll the page
    input.click();
  }
});
zone.addEventListener("dragover", (event) => {
  event.preventDefault(); // required for "drop" to fire
  event.dataTransfer.dropEffect = "copy";
  zone.classList.add("dragging");
});
zone.addEventListener("dragleave", (event) => {
  if (!zone.contains(/** @type {Node | null} */ (event.relatedTarget))) zone.classList.remove("dragging");
});
zone.addEventListener("drop", (event) => {
  event.preventDefault();
  zone.classList.remove("dragging");
  addFiles(event.dataTransfer.files);
});
// A file dropped beside the zone must not make the browser navigate away and
// lose the results.
for (const type of ["dragover", "drop"]) window.addEventListener(type, (event) => event.preventDefault());

$("snapshot-retry").addEventListener("click", () => location.reload());
