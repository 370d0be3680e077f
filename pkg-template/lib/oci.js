// The public API of `artifact-bloom/oci` (../oci/index.js): the OCI
// Distribution client that OciRegistryRepository and the CLI's `push` are
// built on, for code that talks to a registry itself — the repository over a
// client it already holds (one set of credentials and one token cache for
// HEADs and uploads), the repository-name rule, the client's default time
// limit, and what TLS problem a network error shows. Pure JavaScript, no
// wasm: in Node the main entry takes its OciRegistryError and
// OciRegistryRepository from this entry's bundle (scripts/build.mjs), so an
// error thrown through either entry is the same class.
export { OciRegistryError, OciRegistryRepository, repositoryOverClient } from "./repositories/oci-repository.js";
export { RegistryClient, checkRepositoryName } from "./repositories/oci-client.js";
export { DEFAULT_TIMEOUT_MS } from "./core/deadline.js";
export { tlsProblemOf } from "./core/tls-causes.js";
