// Module Web Worker: streaming SHA-256 of one File at a time, in wasm.
//
// Hashing runs here, not on the page, so a 1 GB file does not freeze the UI:
// the page only receives a few progress messages and, at the end, the 32-byte
// digest. The File itself is passed in by reference (a Blob handle), never
// copied; its bytes are read from file.stream() chunk by chunk, so memory stays
// flat whatever the file size.
//
// Messages in:  { id, file }
// Messages out: { type: "progress", id, bytes }
//               { type: "done", id, digest (Uint8Array(32), transferred), bytes, ms }
//               { type: "error", id, message }

import init, { Sha256 } from "/pkg/web.js";

// Start instantiating the wasm module at once; each job awaits the same promise.
const ready = init();

// Progress is throttled by time, not by chunk count: a chunk is only ~64 KiB,
// and posting thousands of messages would make the page do needless work.
const PROGRESS_INTERVAL_MS = 100;

async function hashFile(id, file) {
  await ready;
  const started = performance.now();
  const hasher = new Sha256();
  const reader = file.stream().getReader();
  let bytes = 0;
  let lastPost = started;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      hasher.update(value);
      bytes += value.byteLength;
      const now = performance.now();
      if (now - lastPost >= PROGRESS_INTERVAL_MS) {
        self.postMessage({ type: "progress", id, bytes });
        lastPost = now;
      }
    }
    // Copy into a buffer of exactly 32 bytes so that transferring it moves
    // nothing but the digest.
    const digest = new Uint8Array(hasher.digest());
    const ms = performance.now() - started;
    self.postMessage({ type: "done", id, digest, bytes, ms }, [digest.buffer]);
  } finally {
    hasher.free(); // release wasm memory now, not whenever GC runs
    reader.releaseLock();
  }
}

self.addEventListener("message", (event) => {
  const { id, file } = event.data ?? {};
  hashFile(id, file).catch((error) => {
    // A file that vanished or became unreadable (NotReadableError) while being
    // read is reported for this file only; the worker keeps serving.
    self.postMessage({ type: "error", id, message: error?.message ? `${error.name}: ${error.message}` : String(error) });
  });
});
