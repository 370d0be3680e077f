// `artifact-bloom/oci`: the OCI Distribution client (see ../lib/oci.js).
// Node resolves to index.mjs / index.cjs, built from this file by
// scripts/build.mjs; the main entry's Node bundle takes its
// OciRegistryError and OciRegistryRepository from index.cjs, so both
// entries share one class of each.
export * from "../lib/oci.js";
