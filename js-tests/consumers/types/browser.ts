// Browser-only additions to usage.ts (lib ES2022 + DOM, no @types/node,
// skipLibCheck off): byte results fit DOM APIs that want an ArrayBuffer-backed
// view, and `using` works without the esnext.disposable lib.
import { ArtifactBloomFilter, encodeSnapshot, sha256 } from "artifact-bloom";
import { TlBloom } from "artifact-bloom/variants";

export async function useInBrowser(digests: Uint8Array[]): Promise<Blob> {
  const built = ArtifactBloomFilter.create(digests, { expectedItemCount: 100, targetFalsePositiveRate: 0.01 });
  if (built.kind === "failure") throw new Error(built.error);
  using filter = built.value;
  using tl = TlBloom.withRate(4, 0.1);
  const bytes = encodeSnapshot(filter, { catalogVersion: 1 });
  await crypto.subtle.digest("SHA-256", sha256(bytes));
  await fetch("/publish", { method: "PUT", body: bytes });
  return new Blob([bytes, tl.toBytes()]);
}
