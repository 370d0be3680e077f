// The hashing worker hashFiles falls back to when lib/hashing/hash-worker.js cannot
// start — a bundler that does not emit `new URL("./hash-worker.js",
// import.meta.url)` (Bun's, Rolldown's) leaves the page asking for a file
// that is not there. It is made from source the page already holds: the
// text of `hashWorkerMain` below, run from a Blob URL, so it needs no file,
// no import and no bundler's help.
//
// It speaks hash-worker.js's protocol but only hashes files read whole with
// WebCrypto: streaming needs the wasm SHA-256, which a Blob-URL worker
// cannot import without a URL of its own (hash-runners.js streams those
// files on the calling thread instead). The digest is WebCrypto's SHA-256 of
// the same bytes, so it is the digest every other path gives.
//
// `hashWorkerMain` must reach nothing outside itself (its text runs alone,
// in the worker's global scope), and is written in plain ES2017 with no
// nested named functions, classes, spread or async syntax, so a bundler or
// transpiler has no helper to hoist out of it. If one still does (say
// esbuild's --keep-names `__name`), the worker throws before it says
// "ready", which hashFiles sees as a worker that could not start, and it
// falls back to the calling thread.

function hashWorkerMain() {
  // A worker's global scope (the DOM lib types `self` as a Window).
  const scope = /** @type {{
    postMessage(message: unknown, transfer: Transferable[]): void,
    addEventListener(type: "message", listener: (event: MessageEvent) => void): void,
  }} */ (/** @type {unknown} */ (self));
  /** @type {(message: object, transfer?: Transferable[]) => void} */
  const post = (message, transfer) => {
    scope.postMessage(message, transfer || []);
  };
  /** @type {(file: Blob, onBytes: (bytes: number) => void) => Promise<ArrayBuffer>} */
  const readWhole = (file, onBytes) => {
    // Bun's workers have no FileReader: one read, with no progress.
    if (typeof FileReader !== "function") return file.arrayBuffer();
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      let last = 0;
      reader.onprogress = (event) => {
        // hash-blob.js's PROGRESS_INTERVAL_MS: at most one message per 50 ms.
        const now = performance.now();
        if (now - last >= 50) {
          last = now;
          onBytes(event.loaded);
        }
      };
      reader.onload = () => {
        resolve(/** @type {ArrayBuffer} */ (reader.result));
      };
      reader.onerror = () => {
        reject(reader.error);
      };
      reader.readAsArrayBuffer(file);
    });
  };
  scope.addEventListener("message", (event) => {
    const message = event.data || {};
    const id = message.id;
    const file = message.file;
    /** @type {(error: any) => void} */
    const fail = (error) => {
      post({ type: "error", id: id, name: (error && error.name) || "Error", message: (error && error.message) || String(error) });
    };
    if (message.type !== "hash" || !(file instanceof Blob) || !(self.crypto && self.crypto.subtle)) {
      fail(new TypeError(`hash-blob-worker: it hashes whole files with WebCrypto only, got ${JSON.stringify(message.type)}`));
      return;
    }
    const size = file.size;
    readWhole(file, (bytes) => {
      post({ type: "progress", id: id, bytes: bytes });
    })
      .then((buffer) => {
        if (buffer.byteLength !== size) {
          const changed = new Error(`the file changed while it was read: expected ${size} bytes, read ${buffer.byteLength}`);
          changed.name = "NotReadableError";
          throw changed;
        }
        return self.crypto.subtle.digest("SHA-256", buffer);
      })
      .then((digest) => {
        post({ type: "progress", id: id, bytes: size });
        // A fresh 32-byte buffer: transferring it moves nothing else.
        post({ type: "done", id: id, digest: new Uint8Array(digest), bytes: size }, [digest]);
      })
      .catch(fail);
  });
  post({ type: "ready" });
}

/**
 * The worker's script: `hashWorkerMain`'s own text, called.
 * @returns {string}
 */
export function hashBlobWorkerSource() {
  return `(${hashWorkerMain.toString()})();\n`;
}
