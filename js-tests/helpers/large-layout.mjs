// An OCI image layout with one LARGE layer (hundreds of MiB to GiBs), for
// the upload memory test and bench/push-large.mjs: written to disk in 1 MiB
// writes of one pseudo-random block, each prefixed by its block number so no
// two blocks are equal, hashed as it is written — seconds for 1 GiB, and the
// writer never holds more than a block. The same (label, size) always gives
// the same digest.
import { createHash } from "node:crypto";
import { mkdir, open, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deterministicBytes } from "./oci-layout.mjs";

const BLOCK = 1024 * 1024;
const sha256 = (bytes) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/**
 * Writes `dir` (oci-layout, index.json tagged `tag`, blobs) → { dir, layer, config, manifest }
 * (each a descriptor { mediaType, digest, size }).
 * @param {string} dir
 * @param {{ size: number, label?: string, tag?: string, extraLayers?: number[] }} options
 *   extraLayers: sizes of further large layers (each its own content)
 */
export async function writeLargeLayout(dir, { size, label = "large", tag = "big", extraLayers = [] }) {
  const blobs = join(dir, "blobs", "sha256");
  await mkdir(blobs, { recursive: true });
  const layers = [];
  for (const [position, layerSize] of [size, ...extraLayers].entries()) {
    layers.push(await writeLargeBlob(blobs, `${label}-${position}`, layerSize));
  }
  const configBytes = new TextEncoder().encode(
    JSON.stringify({
      architecture: "amd64",
      os: "linux",
      rootfs: { type: "layers", diff_ids: layers.map((layer) => layer.digest) },
    }),
  );
  const config = await writeBlob(blobs, configBytes, "application/vnd.oci.image.config.v1+json");
  const manifestBytes = new TextEncoder().encode(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config,
      layers,
    }),
  );
  const manifest = await writeBlob(blobs, manifestBytes, "application/vnd.oci.image.manifest.v1+json");
  await writeFile(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  await writeFile(
    join(dir, "index.json"),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [{ ...manifest, annotations: { "org.opencontainers.image.ref.name": tag } }],
    }),
  );
  return { dir, layer: layers[0], layers, config, manifest };
}

async function writeBlob(blobs, bytes, mediaType) {
  const digest = sha256(bytes);
  await writeFile(join(blobs, digest.slice(7)), bytes);
  return { mediaType, digest, size: bytes.byteLength };
}

/** Streams `size` bytes to a temp name, hashing, then renames it to its digest. */
async function writeLargeBlob(blobs, label, size) {
  const block = deterministicBytes(label, BLOCK);
  const hash = createHash("sha256");
  const temp = join(blobs, `.writing-${label}`);
  const handle = await open(temp, "w");
  try {
    for (let offset = 0, index = 0; offset < size; offset += BLOCK, index += 1) {
      const piece = block.subarray(0, Math.min(BLOCK, size - offset));
      new DataView(piece.buffer, piece.byteOffset).setUint32(0, index);
      hash.update(piece);
      await handle.write(piece, 0, piece.byteLength, offset);
    }
  } finally {
    await handle.close();
  }
  const digest = `sha256:${hash.digest("hex")}`;
  await rename(temp, join(blobs, digest.slice(7)));
  return { mediaType: "application/vnd.oci.image.layer.v1.tar", digest, size };
}
