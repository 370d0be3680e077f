// The ABD1 delta API as a TypeScript user writes it (see usage.ts for why
// this file exists): result unions narrow, error unions are exhaustive, and
// misuse stays a type error.
import type { ArtifactIndexSnapshot, SnapshotDeltaEncodeError, SnapshotDeltaHeader } from "artifact-bloom";
import { applySnapshotDelta, composeSnapshotDeltas, encodeSnapshotDelta, readSnapshotDeltaHeader } from "artifact-bloom/delta";

/** A publisher's decision, exhaustive over the encode codes. */
function whyNoDelta(error: SnapshotDeltaEncodeError): string {
  switch (error) {
    case "incompatibleLayout":
      return "bitCount or hashCount changed";
    case "notSuperset":
      return "digests were removed";
    case "notNewer":
      return "the target is not a newer catalogVersion";
    case "invalidFilter":
    case "catalogVersionOutOfRange":
      return "the target cannot be written as ABF1";
    case "outOfMemory":
      return "no memory for the delta";
    default: {
      const unhandled: never = error;
      return unhandled;
    }
  }
}

export function publish(previous: ArtifactIndexSnapshot, current: ArtifactIndexSnapshot): Uint8Array | string {
  const delta = encodeSnapshotDelta(previous, current);
  return delta.kind === "success" ? delta.value : `${whyNoDelta(delta.error)}: ${delta.message}`;
}

export function refresh(current: ArtifactIndexSnapshot, bytes: Uint8Array): ArtifactIndexSnapshot {
  const next = applySnapshotDelta(current, bytes, { source: "delta" });
  if (next.kind === "failure") {
    const code: string = next.error;
    return code === "wrongBase" ? current : current;
  }
  const version: number = next.value.catalogVersion;
  return version > current.catalogVersion ? next.value : current;
}

export function chain(first: Uint8Array, second: Uint8Array): SnapshotDeltaHeader | undefined {
  const joined = composeSnapshotDeltas(first, second);
  if (joined.kind === "failure") return undefined;
  const header = readSnapshotDeltaHeader(joined.value, { verify: true });
  if (header.kind === "failure") return undefined;
  const bitCount: number = header.value.target.bitCount;
  // @ts-expect-error the header is readonly
  header.value.positionCount = bitCount;
  return header.value;
}

// @ts-expect-error a delta is bytes, not a string
applySnapshotDelta({} as ArtifactIndexSnapshot, "delta");
