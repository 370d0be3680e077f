// The public API of `artifact-bloom/server` (../server/index.js): publishing
// a catalog as the static layout of docs/layout.md (snapshots, deltas, one
// manifest), the manifest's rules, which the clients share, and a request
// handler serving the layout and the existence API from any app
// (docs/server.md).
export { DEFAULT_DELTA_HISTORY, DEFAULT_PRUNE_AFTER_MS, publishToLayout, pruneLayout } from "./server/layout-publish.js";
export { directoryLayoutStore } from "./server/layout-store.js";
export { bucketLayoutStore } from "./server/bucket-store.js";
export { createRequestHandler } from "./server/request-handler.js";
export { MAX_DIGESTS_PER_REQUEST } from "./server/existence-api.js";
// The protocol's names, for a server written by hand: the header that marks an
// existence answer with its catalogVersion, and the A-IM token of an ABD1 delta.
export { EXISTENCE_VERSION_HEADER } from "./repositories/http-repository.js";
export { DELTA_IM } from "./snapshot/fetch-request.js";
export { toNodeListener } from "./server/node-listener.js";
// Who may ask (docs/security.md): an authorizer hook with bearer tokens,
// per-tenant catalogs, rate limits counted in digests, a CORS allow-list.
export { createTenantHandler, withAccessControl } from "./server/access-guard.js";
export { bearerTokenAuthorizer } from "./server/bearer-tokens.js";
export { constantTimeEqual } from "./server/constant-time.js";
export { createRateLimiter, renderRateLimitPrometheus } from "./server/rate-limit.js";
export { buildCatalogSnapshot, publishCatalog } from "./server/catalog-publish.js";
export { directoryCatalog, postgresCatalog } from "./server/catalog-loaders.js";
export {
  buildLayoutManifest,
  LAYOUT_MANIFEST_FORMAT,
  LAYOUT_MANIFEST_FORMAT_VERSION,
  LAYOUT_MANIFEST_MAX_BYTES,
  LAYOUT_MANIFEST_MAX_DELTAS,
  layoutDeltaPath,
  layoutSnapshotPath,
  parseLayoutManifest,
  serializeLayoutManifest,
  validateLayoutManifest,
} from "./layout/manifest.js";
