// Timers a test fires by hand, for the `timers` option of the HTTP clients
// and loadSnapshotStream: a time limit can then be tested without waiting on
// the clock, and a test can see that no timer outlives its request.

/**
 * `{ setTimeout, clearTimeout }` that never fire on their own. `delays` lists
 * every delay asked for; `live` holds the timers neither fired nor cleared;
 * `fireAll()` fires those.
 */
export function manualTimers() {
  const live = new Map();
  const delays = [];
  let nextId = 1;
  return {
    live,
    delays,
    setTimeout(callback, ms) {
      const id = nextId++;
      live.set(id, callback);
      delays.push(ms);
      return id;
    },
    clearTimeout(id) {
      live.delete(id);
    },
    fireAll() {
      for (const [id, callback] of [...live]) {
        live.delete(id);
        callback();
      }
    },
  };
}
