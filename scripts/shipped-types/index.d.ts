// index.d.ts (scripts/emit-types.mjs writes it into the built package), as the
// shipped-JS type check (tsconfig.shipped.json) sees it: the same modules, from
// their JSDoc sources, so that the CLI's JSDoc names one ArtifactBloomFilter.
export * from "./lib/index.js";
export type * from "./lib/types.js";
export type * from "./lib/client-types.js";
export type * from "./lib/delta-types.js";
