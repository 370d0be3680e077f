// "Today's path" for bench/browser.mjs: the www page's hashing worker as it
// was before hashFiles (commit 5ca2bcd, www/hash-worker.js): streaming
// SHA-256 in wasm (`Sha256`), fed from file.stream(), one file at a time.
// Kept here so one benchmark run can compare it with hashFiles.
//
// in: { id, file }   out: { type: "done", id, digest } | { type: "error", id, message }

import init, { Sha256 } from "/pkg/web.js";

const ready = init();

async function hashFile(id, file) {
  await ready;
  const hasher = new Sha256();
  const reader = file.stream().getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      hasher.update(value);
    }
    const digest = new Uint8Array(hasher.digest());
    self.postMessage({ type: "done", id, digest }, [digest.buffer]);
  } finally {
    hasher.free();
    reader.releaseLock();
  }
}

self.addEventListener("message", (event) => {
  const { id, file } = event.data;
  hashFile(id, file).catch((error) => self.postMessage({ type: "error", id, message: String(error) }));
});
