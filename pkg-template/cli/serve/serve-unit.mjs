// What `artifact-bloom serve` answers from: ONE versioned unit — the snapshot
// file, its catalogVersion and the catalog list read with it — replaced as a
// whole, never one file at a time.
//
// A change of either file starts one reload (shared by every request that
// needs it) that reads both, judges them together and swaps both, or keeps
// the unit it has:
//   - a snapshot with a newer catalogVersion is served once the catalog list
//     read with it is COMPLETE for it: exactly as many unique digests as the
//     header's insertedItemCount (publish writes the exact unique count) and
//     every one "maybe". An empty, half-written or other version's list is
//     never used for that version: the old unit answers, stderr (once) and
//     /stats `pending` say why, until the list is complete;
//   - a lower catalogVersion, or the same one with other content (another
//     header checksum), is refused: one version names one catalog — with
//     --catalog-version too;
//   - a new catalog list under the served snapshot that is not complete for
//     it is never used (the list read with it keeps answering, /stats
//     `pending` says why): it waits for its snapshot.
// Each pair of file identities is judged once, so a refusal is logged once.
// A unit is swapped in only once `onSwap` (serve publishing it into its
// layout) has finished, so the existence API and GET /snapshot change together.
import { stat } from "node:fs/promises";
import { errorMessage } from "../common.mjs";
import { identityOf, loadCatalog, loadSnapshotFile, look, mismatchOf } from "./serve-files.mjs";

/** @typedef {import("./serve-files.mjs").UnitLibrary} UnitLibrary */
/** @typedef {import("./serve-files.mjs").SnapshotFile} SnapshotFile */
/** @typedef {import("./serve-files.mjs").CatalogList} CatalogList */
/** @typedef {import("node:fs").Stats} Stats */
/** @typedef {"reloadFailure" | "refusal" | "waiting"} NoticeKind */

/**
 * @typedef {object} Unit
 * @property {number} version the catalogVersion the existence API answers for
 * @property {SnapshotFile} snapshot
 * @property {Set<string>} present the catalog's digests
 * @property {boolean} [incomplete] the list is not complete for the snapshot (serve started so): the existence
 *   API refuses to answer (503) until the complete list is there
 */

/**
 * One file as read: its identity (identityOf) and what it loaded to.
 * @template T
 * @typedef {{ identity: string, value: T }} FileRead
 */
/**
 * The two files as read together.
 * @typedef {{ snapshot: FileRead<SnapshotFile>, catalog: FileRead<CatalogList> }} ReadPair
 */
/**
 * The two files' stats now (undefined: it cannot be stat'ed at the moment).
 * @typedef {{ snapshot: Stats | undefined, catalog: Stats | undefined }} Seen
 */
/**
 * What to do with a pair just read (see #verdict).
 * @typedef {{ swap: true, version: number }
 *   | { swap?: undefined, kind: NoticeKind, message: string }
 *   | { swap?: undefined, kind?: undefined, quiet?: true }} Verdict
 */

export class ServedUnit {
  #paths;
  /** @type {UnitLibrary} */
  #library;
  #fixedVersion;
  #onSwap;
  #report;
  /** @type {Unit | undefined} */
  #unit;
  /**
   * Identities of the served unit's files, and of the last pair judged (with what was read of it); set by start().
   * @type {ReadPair | undefined}
   */
  #served;
  /** @type {ReadPair | undefined} */
  #judged;
  /** @type {string | undefined} the ETag of the last snapshot refused */
  #refusedEtag;
  /** @type {Promise<void> | undefined} the one reload in flight */
  #pending;
  snapshotLoads = 0;
  catalogLoads = 0;
  /** Files that did not load (the unit kept serving). */
  reloadFailures = 0;
  /** Snapshots refused because they would lower or reuse the served catalogVersion (D2). */
  versionRefusals = 0;
  /**
   * Why the files on disk are not served now (a newer snapshot waiting for
   * its complete list, a refused snapshot, a file that does not load), or
   * undefined once what is on disk is served: GET /stats shows it.
   * @type {{ kind: NoticeKind, message: string } | undefined}
   */
  pending;

  /**
   * `onSwap(unit)` runs before a unit is served; when it rejects, the unit is not served (a reload keeps the
   * previous one and reports the error as a reloadFailure; the first load fails).
   * @param {{ snapshot: string, catalog: string, fixedVersion?: number, library: UnitLibrary,
   *   onSwap: (unit: Unit) => Promise<void>, report: (kind: NoticeKind, message: string) => void }} options
   */
  constructor({ snapshot, catalog, fixedVersion, library, onSwap, report }) {
    this.#paths = { snapshot, catalog };
    this.#library = library;
    this.#fixedVersion = fixedVersion;
    this.#onSwap = onSwap;
    this.#report = report;
  }

  /**
   * The first load of both files, through `reading(path, read)` (which turns
   * a failure into the caller's error: the server does not start).
   * @param {<T>(path: string, read: (path: string) => Promise<T>) => Promise<T>} reading
   * @returns {Promise<Unit>}
   */
  async start(reading) {
    /**
     * @template T
     * @param {string} path
     * @param {(path: string, info: Stats) => Promise<T>} loader
     * @returns {Promise<FileRead<T>>}
     */
    const read = async (path, loader) => {
      const info = await stat(path); // throws the real error (ENOENT, EACCES…)
      return { identity: identityOf(info), value: await loader(path, info) };
    };
    /** @type {(path: string, info: Stats) => Promise<SnapshotFile>} */
    const loadFile = (path, info) => loadSnapshotFile(this.#library, path, info);
    const snapshot = await reading(this.#paths.snapshot, (path) => read(path, loadFile));
    const catalog = await reading(this.#paths.catalog, (path) => read(path, loadCatalog));
    this.snapshotLoads += 1;
    this.catalogLoads += 1;
    const header = snapshot.value.header;
    const version = this.#fixedVersion ?? header?.catalogVersion;
    if (version === undefined) throw Object.assign(new Error(snapshot.value.headerError), { code: "headerDoesNotLoad" });
    // The first unit too must be complete: a list that is not the
    // snapshot's would answer "absent" for the members it lacks. Until the
    // complete list is there, the existence API refuses (503) instead.
    const mismatch = header === undefined ? undefined : mismatchOf(this.#library, header, snapshot.value.bytes, catalog.value);
    if (header !== undefined && mismatch !== undefined) {
      this.pending = { kind: "waiting", message: this.#incompleteMessage(header.catalogVersion, mismatch) };
      this.#report("waiting", this.pending.message);
    }
    this.#served = this.#judged = { snapshot, catalog };
    /** @type {Unit} */
    const unit = { version, snapshot: snapshot.value, present: catalog.value.present, incomplete: mismatch !== undefined };
    await this.#swap(unit);
    return unit;
  }

  /** The served unit, without waiting: a change of either file starts the (one) reload in the background. */
  async current() {
    const seen = await this.#lookBoth();
    if (this.#changed(seen) && this.#pending === undefined) this.#reload(seen);
    return this.#startedUnit();
  }

  /**
   * The unit once the files as they are now have been judged: waits for the
   * reload a change needs (sharing the one in flight) at most `waitMs`, then
   * answers with whatever is served. A file replaced again meanwhile gets one
   * more round.
   * @param {number} waitMs
   * @returns {Promise<Unit>}
   */
  async fresh(waitMs) {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    let timedOut = false;
    /** @type {Promise<void>} */
    const bound = new Promise((done) => {
      timer = setTimeout(() => {
        timedOut = true;
        done();
      }, waitMs);
    });
    try {
      for (let round = 0; round < 2 && !timedOut; round += 1) {
        const seen = await this.#lookBoth();
        if (!this.#changed(seen)) break;
        await Promise.race([this.#pending ?? this.#reload(seen), bound]);
      }
    } finally {
      clearTimeout(timer);
    }
    return this.#startedUnit();
  }

  /** The served unit as it is (no look at the files: for /stats, which must not start a reload). */
  get unit() {
    return this.#startedUnit();
  }

  /** The served unit; there is none before start() has served one, and asking then is the caller's mistake. */
  #startedUnit() {
    if (this.#unit === undefined) throw new Error("ServedUnit: no unit is served before start() has resolved");
    return this.#unit;
  }

  /** The served unit's files as read (set by start()). */
  #servedPair() {
    if (this.#served === undefined) throw new Error("ServedUnit: no files are served before start() has resolved");
    return this.#served;
  }

  /** The last pair judged (set by start()). */
  #judgedPair() {
    if (this.#judged === undefined) throw new Error("ServedUnit: no files are judged before start() has resolved");
    return this.#judged;
  }

  /** @returns {Promise<Seen>} */
  async #lookBoth() {
    const [snapshot, catalog] = await Promise.all([look(this.#paths.snapshot), look(this.#paths.catalog)]);
    return { snapshot, catalog };
  }

  /**
   * Whether a file's identity differs from the last pair judged (a file that cannot be stat'ed counts as unchanged).
   * @param {Seen} seen
   */
  #changed(seen) {
    const judged = this.#judgedPair();
    return (
      (seen.snapshot !== undefined && identityOf(seen.snapshot) !== judged.snapshot.identity)
      || (seen.catalog !== undefined && identityOf(seen.catalog) !== judged.catalog.identity)
    );
  }

  /** @param {Seen} seen */
  #reload(seen) {
    this.#pending = this.#judge(seen).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /**
   * Reads what changed (reusing the last read of a file that did not), then swaps or keeps the unit.
   * @param {Seen} seen
   */
  async #judge(seen) {
    /**
     * The file's last read if its identity is unchanged (or it cannot be
     * stat'ed now), else a new read: `value` undefined when it does not load.
     * @template T
     * @param {"snapshot" | "catalog"} name
     * @param {FileRead<T>} last
     * @param {Stats | undefined} info
     * @param {(path: string, info: Stats) => Promise<T>} loader
     * @returns {Promise<FileRead<T> | FileRead<undefined>>}
     */
    const readChanged = async (name, last, info, loader) => {
      if (info === undefined) return last;
      const identity = identityOf(info);
      if (identity === last.identity) return last;
      try {
        const value = await loader(this.#paths[name], info);
        if (name === "snapshot") this.snapshotLoads += 1;
        else this.catalogLoads += 1;
        return { identity, value };
      } catch (error) {
        this.reloadFailures += 1;
        this.#report(
          "reloadFailure",
          `cannot reload ${this.#paths[name]}: ${errorMessage(error)}; still serving its previous contents`,
        );
        return { identity, value: undefined };
      }
    };
    const judged = this.#judgedPair();
    const snapshot = await readChanged("snapshot", judged.snapshot, seen.snapshot, (path, info) =>
      loadSnapshotFile(this.#library, path, info),
    );
    const catalog = await readChanged("catalog", judged.catalog, seen.catalog, loadCatalog);
    // A file that did not load is not retried until it changes again; the other keeps its last read.
    this.#judged = {
      snapshot: snapshot.value === undefined ? { ...judged.snapshot, identity: snapshot.identity } : snapshot,
      catalog: catalog.value === undefined ? { ...judged.catalog, identity: catalog.identity } : catalog,
    };
    if (snapshot.value === undefined || catalog.value === undefined) {
      const name = this.#paths[snapshot.value === undefined ? "snapshot" : "catalog"];
      this.pending = {
        kind: "reloadFailure",
        message: `${name} does not load; still serving catalogVersion ${this.#startedUnit().version}`,
      };
      return;
    }
    const verdict = this.#verdict(snapshot, catalog);
    if (verdict.swap) {
      try {
        await this.#swap({
          version: verdict.version,
          snapshot: snapshot.value,
          present: catalog.value.present,
          incomplete: false,
        });
      } catch (error) {
        this.reloadFailures += 1;
        this.pending = {
          kind: "reloadFailure",
          message: `${errorMessage(error)}; still serving catalogVersion ${this.#startedUnit().version}`,
        };
        this.#report("reloadFailure", this.pending.message);
        return;
      }
      this.#served = { snapshot, catalog };
      this.pending = undefined;
    } else if (verdict.kind !== undefined) {
      if (verdict.kind === "refusal") this.versionRefusals += 1;
      this.pending = { kind: verdict.kind, message: verdict.message };
      this.#report(verdict.kind, verdict.message);
    } else if (verdict.quiet) {
      this.pending = undefined;
    }
  }

  /**
   * What to do with the snapshot and catalog just read: `{ swap, version }`, `{ kind, message }` (keep and say why)
   * or `{ quiet }` (keep: the files on disk are what is served, or a refusal already said).
   * @param {FileRead<SnapshotFile>} snapshot
   * @param {FileRead<CatalogList>} catalog
   * @returns {Verdict}
   */
  #verdict(snapshot, catalog) {
    const served = this.#startedUnit();
    const file = snapshot.value;
    const snapshotChanged = file.etag !== served.snapshot.etag;
    const catalogChanged = catalog.identity !== this.#servedPair().catalog.identity;
    const keeping = `still serving catalogVersion ${served.version}`;
    if (served.incomplete && !snapshotChanged && catalogChanged && file.header !== undefined) {
      // serve started from an incomplete list: the list being completed is the wait's end.
      const mismatch = mismatchOf(this.#library, file.header, file.bytes, catalog.value);
      if (mismatch === undefined) return { swap: true, version: served.version };
      return { kind: "waiting", message: this.#incompleteMessage(file.header.catalogVersion, mismatch) };
    }
    if (this.#fixedVersion !== undefined) {
      // The flag names the list's version, so the list cannot change under it;
      // the snapshot file is served as it comes (its header may not load).
      if (catalogChanged && !sameSet(catalog.value.present, served.present)) {
        return {
          kind: "refusal",
          message:
            `refusing ${this.#paths.catalog}: --catalog-version ${served.version} names one catalog`
            + ` and this list differs from it; restart serve with the new version; ${keeping}`,
        };
      }
      if (!snapshotChanged) return { quiet: true };
      // One version names one catalog with the flag too: a snapshot with
      // other content under the same catalogVersion is refused. (A served
      // snapshot whose header does not load has no content to protect.)
      if (served.snapshot.header !== undefined && file.etag !== this.#refusedEtag) {
        this.#refusedEtag = file.etag;
        return {
          kind: "refusal",
          message:
            `refusing ${this.#paths.snapshot}: --catalog-version ${served.version} names one catalog and this snapshot`
            + ` has other content (checksum ${file.etag}, served ${served.snapshot.etag}); restart serve with the new version; ${keeping}`,
        };
      }
      return served.snapshot.header === undefined ? { swap: true, version: served.version } : {};
    }
    // A list changed under the served snapshot and not complete for it (the
    // first step of publishing N+1, or a writer midway) is never used for N:
    // /stats says so. A refused snapshot is not judged again for a new list.
    if (!snapshotChanged) {
      const mismatch =
        catalogChanged && file.header !== undefined
          ? mismatchOf(this.#library, file.header, file.bytes, catalog.value)
          : undefined;
      if (mismatch === undefined) return { quiet: true };
      const message = `${this.#incompleteMessage(served.version, mismatch)}; it waits for its snapshot`;
      return { kind: "waiting", message: `${message}; ${keeping} from the list read with it` };
    }
    if (file.etag === this.#refusedEtag) return {};
    this.#refusedEtag = file.etag; // cleared below when it is served or waits for its list
    const header = file.header;
    const name = this.#paths.snapshot;
    if (header === undefined) {
      this.reloadFailures += 1;
      return {
        kind: "reloadFailure",
        message: `cannot reload ${name}: the snapshot header does not load (${file.headerError}); ${keeping}`,
      };
    }
    const version = header.catalogVersion;
    if (version < served.version) {
      return {
        kind: "refusal",
        message: `refusing ${name}: its catalogVersion ${version} is lower than the served ${served.version}; ${keeping}`,
      };
    }
    if (version === served.version) {
      return {
        kind: "refusal",
        message:
          `refusing ${name}: catalogVersion ${version} again with different content (checksum ${file.etag},`
          + ` served ${served.snapshot.etag}); one catalogVersion names one catalog: publish a new version; ${keeping}`,
      };
    }
    this.#refusedEtag = undefined;
    if (!catalogChanged) {
      return {
        kind: "waiting",
        message:
          `${name} has snapshot catalogVersion ${version}, but the catalog list ${this.#paths.catalog} has not changed`
          + ` since catalogVersion ${served.version}; replace the list (serve switches once both changed); ${keeping}`,
      };
    }
    const mismatch = mismatchOf(this.#library, header, file.bytes, catalog.value);
    if (mismatch !== undefined) return { kind: "waiting", message: `${this.#incompleteMessage(version, mismatch)}; ${keeping}` };
    return { swap: true, version };
  }

  /**
   * Why the catalog list cannot answer for snapshot `version`.
   * @param {number} version
   * @param {string} mismatch mismatchOf's reason
   */
  #incompleteMessage(version, mismatch) {
    return `the catalog list ${this.#paths.catalog} is not the one snapshot catalogVersion ${version} was built from: ${mismatch}`;
  }

  /** @param {Unit} unit */
  async #swap(unit) {
    await this.#onSwap(unit);
    this.#unit = unit;
  }
}

/**
 * @param {Set<string>} a
 * @param {Set<string>} b
 */
function sameSet(a, b) {
  if (a.size !== b.size) return false;
  for (const item of a) if (!b.has(item)) return false;
  return true;
}
