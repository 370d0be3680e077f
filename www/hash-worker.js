// The page's hashing worker: the package's own (lib/hashing/hash-worker.js, the
// protocol hashFiles speaks), loaded from where the server mounts the
// package. app.js passes this file as hashFiles' `workerUrl`, so a page
// hosted apart from the package only has to change this import.
import "/pkg/lib/hashing/hash-worker.js";
