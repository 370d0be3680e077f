// The module Web Worker that digests a browser snapshot load's checksummed
// bytes (ABF1 load step 8) with WebCrypto, off the page's main thread:
// Chromium runs crypto.subtle.digest synchronously on its caller, and 128 MiB
// would freeze a page for ~0.5 s. It imports nothing, so it starts at once.
//
// Protocol (snapshot-checksum.js is the other end):
//   in:  { type: "digest", bytes: ArrayBuffer }   transferred
//   out: { type: "ready" }                        once, at start: listening
//        { type: "done", digest: Uint8Array(32) }
//        { type: "error", message }

// A worker's global scope (the DOM lib types `self` as a Window, whose
// postMessage takes a target origin).
const workerScope = /** @type {{ postMessage(message: unknown, transfer?: Transferable[]): void }} */ (
  /** @type {unknown} */ (self)
);

self.addEventListener("message", ({ data }) => {
  if (data?.type !== "digest" || !(data.bytes instanceof ArrayBuffer)) return;
  globalThis.crypto.subtle.digest("SHA-256", data.bytes).then(
    (digest) => {
      const own = new Uint8Array(digest);
      workerScope.postMessage({ type: "done", digest: own }, [own.buffer]);
    },
    (error) => workerScope.postMessage({ type: "error", message: error?.message ?? String(error) }),
  );
});

workerScope.postMessage({ type: "ready" });
