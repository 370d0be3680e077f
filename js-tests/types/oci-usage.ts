// The OCI registry repository as a TypeScript user would use it (nothing
// runs; `tsc --noEmit -p js-tests/types` checks it against index.d.ts).
import {
  ArtifactExistenceService,
  OciRegistryError,
  OciRegistryRepository,
  type ArtifactIndexSnapshot,
  type ArtifactRepository,
  type OciRegistryErrorCode,
  type RegistryRequestCounts,
} from "artifact-bloom";

declare const snapshot: ArtifactIndexSnapshot;
declare const digests: Uint8Array[];

const repository = new OciRegistryRepository("https://registry.example", "team/app", {
  credentials: { username: "ci", password: "secret" },
  timeoutMs: 10_000,
  concurrency: 4,
});
const asRepository: ArtifactRepository = repository; // it is an ArtifactRepository
const service = new ArtifactExistenceService(snapshot, asRepository);
const missing: Uint8Array[] = await service.findMissingAsync(digests);
const direct: Uint8Array[] = await repository.findMissingAsync(missing);
const counts: RegistryRequestCounts = repository.requests;
const heads: number = counts.head + counts.token;
const name: string = repository.repository;

new OciRegistryRepository(new URL("http://127.0.0.1:5000"), "app", { credentials: { token: "t" }, catalogVersion: 7 });
// @ts-expect-error the repository name is required
new OciRegistryRepository("https://registry.example");
// @ts-expect-error credentials are strings
new OciRegistryRepository("https://registry.example", "app", { credentials: { username: 1 } });

try {
  await repository.existsAtVersionAsync(digests[0] ?? new Uint8Array(32), 0);
} catch (error) {
  if (error instanceof OciRegistryError) {
    const code: OciRegistryErrorCode = error.code;
    const status: number | undefined = error.status;
    const registryCode: string | undefined = error.registryCode;
    void [code, status, registryCode];
  }
}
void [direct, heads, name];
