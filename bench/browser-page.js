// The in-page half of bench/browser.mjs: each function runs one measured
// operation in the page and returns its wall time (performance.now) and its
// results, plus what the main-thread probes saw meanwhile. The driver
// (Node) samples memory from outside while it runs.

// `?pkg=/pkg-before/` loads the other build bench/browser.mjs serves (--before).
const pkgRoot = new URLSearchParams(location.search).get("pkg") ?? "/pkg/";
const pkg = await import(`${pkgRoot}web.js`);
await pkg.default();

const toHex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * Watches the main thread while `run` runs: the longest task Chromium
 * reports (PerformanceObserver "longtask": tasks of 50 ms or more) and the
 * longest gap between 10 ms timer ticks (a coarser probe that also sees
 * the machine's other load).
 */
async function probed(run) {
  let longTask = 0;
  let longTasks = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      longTask = Math.max(longTask, entry.duration);
      longTasks += 1;
    }
  });
  observer.observe({ type: "longtask" });
  let gap = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last - 10);
    last = now;
  }, 10);
  try {
    const started = performance.now();
    const value = await run();
    const ms = performance.now() - started;
    // Let the observer deliver entries of the last task.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { ms, ...value, longTaskMs: longTask, longTasks, gapMs: gap };
  } finally {
    clearInterval(timer);
    observer.disconnect();
  }
}

const files = () => Array.from(document.getElementById("files").files);

/** Hashes `list` the way www did before hashFiles: up to two workers, wasm Sha256, one file each. */
function baselineHash(list) {
  const workerCount = Math.max(1, Math.min(2, navigator.hardwareConcurrency || 2));
  const digests = new Array(list.length);
  let next = 0;
  let finished = 0;
  return new Promise((resolve, reject) => {
    const workers = [];
    const feed = (worker) => {
      if (next >= list.length) return;
      const id = next;
      next += 1;
      worker.postMessage({ id, file: list[id] });
    };
    for (let i = 0; i < Math.min(workerCount, list.length); i += 1) {
      const worker = new Worker("/bench/baseline-worker.js", { type: "module" });
      workers.push(worker);
      worker.onmessage = ({ data }) => {
        if (data.type !== "done") return reject(new Error(data.message));
        digests[data.id] = toHex(data.digest);
        finished += 1;
        if (finished === list.length) {
          for (const w of workers) w.terminate();
          resolve(digests);
        } else {
          feed(worker);
        }
      };
      feed(worker);
    }
  });
}

/**
 * The floor: each file read whole and digested by WebCrypto on this thread,
 * `concurrency` at a time; with the time spent reading and digesting,
 * summed over files.
 */
async function floorHash(list, concurrency) {
  const digests = new Array(list.length);
  let next = 0;
  let receiveMs = 0;
  let digestMs = 0;
  const lane = async () => {
    while (next < list.length) {
      const i = next;
      next += 1;
      const started = performance.now();
      const bytes = await list[i].arrayBuffer();
      const read = performance.now();
      digests[i] = toHex(await crypto.subtle.digest("SHA-256", bytes));
      receiveMs += read - started;
      digestMs += performance.now() - read;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { digests, receiveMs, digestMs };
}

window.bench = {
  hardwareConcurrency: navigator.hardwareConcurrency,
  hasHashFiles: typeof pkg.hashFiles === "function",

  /** Time to receive the bytes (fetch + arrayBuffer) plus one WebCrypto digest of them. */
  snapshotFloor: (url) =>
    probed(async () => {
      const started = performance.now();
      const bytes = await (await fetch(url, { cache: "no-store" })).arrayBuffer();
      const received = performance.now();
      const digest = await crypto.subtle.digest("SHA-256", bytes);
      return {
        receiveMs: received - started,
        digestMs: performance.now() - received,
        bytes: bytes.byteLength,
        digest: toHex(digest),
      };
    }),

  /** The package's fetchSnapshot, with progress on (as the www page uses it). */
  snapshotLoad: (url) =>
    probed(async () => {
      let events = 0;
      const loaded = await pkg.fetchSnapshot(url, {
        onProgress: () => {
          events += 1;
        },
      });
      const result =
        loaded.kind === "success"
          ? { kind: "success", checksum: loaded.value.header.checksum, bitCount: loaded.value.filter.getBitCount() }
          : { kind: "failure", error: loaded.error, message: loaded.message };
      if (loaded.kind === "success") loaded.value.filter.free();
      return { ...result, events, wasmMemory: pkg.wasmMemoryBytes() };
    }),

  hashBaseline: () => probed(async () => ({ digests: await baselineHash(files()) })),

  hashFiles: (options = {}) =>
    probed(async () => {
      let events = 0;
      const results = await pkg.hashFiles(files(), {
        ...options,
        onProgress: () => {
          events += 1;
        },
      });
      return {
        events,
        digests: results.map((r) => (r.kind === "success" ? toHex(r.value) : `${r.error}: ${r.message}`)),
      };
    }),

  hashFloor: (concurrency) => probed(() => floorHash(files(), concurrency)),
};
document.body.dataset.ready = "true";
