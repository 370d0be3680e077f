// Deterministic OCI image layouts for the registry tests and the demo: real
// gzipped tar layers (ustar headers, fixed mtime/owner/mode, content from a
// SHA-256 counter stream) so the same label always gives the same digest and
// no client has a reason to recompress anything.
//
//   const layout = new OciLayoutBuilder();
//   const base = layout.layer("base-0", 4096);
//   const image = layout.image({ layers: [base], label: "app" });
//   layout.tag("v1", image);
//   await layout.write(dir);          // oci-layout, index.json, blobs/sha256/…
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

export const MEDIA = {
  ociManifest: "application/vnd.oci.image.manifest.v1+json",
  ociIndex: "application/vnd.oci.image.index.v1+json",
  ociConfig: "application/vnd.oci.image.config.v1+json",
  ociLayer: "application/vnd.oci.image.layer.v1.tar+gzip",
  dockerManifest: "application/vnd.docker.distribution.manifest.v2+json",
  dockerList: "application/vnd.docker.distribution.manifest.list.v2+json",
  dockerConfig: "application/vnd.docker.container.image.v1+json",
  dockerLayer: "application/vnd.docker.image.rootfs.diff.tar.gzip",
};

const FIXED_MTIME = 1_700_000_000; // 2023-11-14, in every tar header and config
const BLOCK = 512;

const sha256Hex = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** `length` bytes that depend only on `label` (SHA-256 in counter mode: incompressible). */
export function deterministicBytes(label, length) {
  const out = new Uint8Array(length);
  for (let offset = 0, counter = 0; offset < length; counter += 1) {
    const block = createHash("sha256").update(`${label}\0${counter}`).digest();
    out.set(block.subarray(0, Math.min(block.length, length - offset)), offset);
    offset += block.length;
  }
  return out;
}

function writeField(header, offset, width, text) {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > width) throw new RangeError(`tar field "${text}" is longer than ${width} bytes`);
  header.set(bytes, offset);
}

/** Octal, zero-padded to width - 1 digits, NUL-terminated (ustar numeric fields). */
const octal = (value, width) => `${value.toString(8).padStart(width - 1, "0")}\0`;

/** A ustar archive of regular files (mode 0644, root:root, fixed mtime). */
export function tarArchive(files) {
  const parts = [];
  for (const { name, content } of files) {
    const data = typeof content === "string" ? new TextEncoder().encode(content) : content;
    const header = new Uint8Array(BLOCK);
    writeField(header, 0, 100, name);
    writeField(header, 100, 8, octal(0o644, 8));
    writeField(header, 108, 8, octal(0, 8));
    writeField(header, 116, 8, octal(0, 8));
    writeField(header, 124, 12, octal(data.length, 12));
    writeField(header, 136, 12, octal(FIXED_MTIME, 12));
    header.fill(0x20, 148, 156); // the checksum is computed with its own field as spaces
    header[156] = 0x30; // typeflag '0': regular file
    writeField(header, 257, 6, "ustar\0");
    writeField(header, 263, 2, "00");
    writeField(header, 265, 32, "root");
    writeField(header, 297, 32, "root");
    let sum = 0;
    for (const byte of header) sum += byte;
    writeField(header, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
    parts.push(header, data, new Uint8Array((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  parts.push(new Uint8Array(2 * BLOCK)); // end of archive
  return new Uint8Array(Buffer.concat(parts));
}

/** JSON bytes with a fixed key order (the object's own). */
const jsonBytes = (value) => new TextEncoder().encode(JSON.stringify(value));

export class OciLayoutBuilder {
  /** @type {Map<string, Uint8Array>} hex digest → bytes */
  blobs = new Map();
  /** @type {{ descriptor: object, tag?: string }[]} index.json entries */
  entries = [];

  /** Stores bytes as a blob; returns its descriptor. */
  add(bytes, mediaType) {
    const hex = sha256Hex(bytes);
    this.blobs.set(hex, bytes);
    return { mediaType, digest: `sha256:${hex}`, size: bytes.length };
  }

  /** The bytes of a stored blob, by "sha256:<hex>" digest. */
  bytes(digest) {
    const bytes = this.blobs.get(digest.replace(/^sha256:/, ""));
    if (bytes === undefined) throw new Error(`no blob ${digest} in this layout`);
    return bytes;
  }

  /**
   * A gzipped tar layer holding one file of `size` deterministic bytes.
   * Returns { descriptor (OCI media type), diffId }.
   */
  layer(label, size = 4096) {
    const tar = tarArchive([{ name: `${label}.bin`, content: deterministicBytes(label, size) }]);
    const gz = new Uint8Array(gzipSync(tar, { level: 6 })); // Node writes mtime 0 in the gzip header
    return { descriptor: this.add(gz, MEDIA.ociLayer), diffId: `sha256:${sha256Hex(tar)}` };
  }

  /**
   * An image manifest over `layers` with its own config; `flavor` "docker"
   * uses the Docker v2 schema 2 media types. Returns the manifest descriptor.
   */
  image({ layers, label, flavor = "oci", platform = { architecture: "amd64", os: "linux" } }) {
    const docker = flavor === "docker";
    const config = jsonBytes({
      created: new Date(FIXED_MTIME * 1000).toISOString(),
      architecture: platform.architecture,
      os: platform.os,
      config: { Labels: { "test.label": label } },
      rootfs: { type: "layers", diff_ids: layers.map((layer) => layer.diffId) },
    });
    const configDescriptor = this.add(config, docker ? MEDIA.dockerConfig : MEDIA.ociConfig);
    const mediaType = docker ? MEDIA.dockerManifest : MEDIA.ociManifest;
    const manifest = jsonBytes({
      schemaVersion: 2,
      mediaType,
      config: configDescriptor,
      layers: layers.map(({ descriptor }) => ({ ...descriptor, mediaType: docker ? MEDIA.dockerLayer : MEDIA.ociLayer })),
    });
    return { ...this.add(manifest, mediaType), platform };
  }

  /** An index (or Docker manifest list) over manifest or index descriptors. */
  index(children, { flavor = "oci" } = {}) {
    const mediaType = flavor === "docker" ? MEDIA.dockerList : MEDIA.ociIndex;
    return this.add(jsonBytes({ schemaVersion: 2, mediaType, manifests: children }), mediaType);
  }

  /** Lists a descriptor in index.json, under `tag` (org.opencontainers.image.ref.name). */
  tag(tag, descriptor) {
    this.entries.push({ descriptor, tag });
    return this;
  }

  /** Every digest reachable from the tagged entries (manifests, configs, layers), as hex. */
  reachable() {
    const seen = new Set();
    const walk = (descriptor) => {
      const hex = descriptor.digest.replace(/^sha256:/, "");
      if (seen.has(hex)) return;
      seen.add(hex);
      if (
        descriptor.mediaType === MEDIA.ociIndex
        || descriptor.mediaType === MEDIA.dockerList
        || descriptor.mediaType === MEDIA.ociManifest
        || descriptor.mediaType === MEDIA.dockerManifest
      ) {
        const json = JSON.parse(new TextDecoder().decode(this.bytes(descriptor.digest)));
        for (const child of json.manifests ?? []) walk(child);
        if (json.config) walk(json.config);
        for (const layer of json.layers ?? []) walk(layer);
      }
    };
    for (const { descriptor } of this.entries) walk(descriptor);
    return seen;
  }

  /** Writes the layout: oci-layout, index.json, every stored blob. */
  async write(dir) {
    await mkdir(join(dir, "blobs", "sha256"), { recursive: true });
    await writeFile(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
    const manifests = this.entries.map(({ descriptor, tag }) => ({
      mediaType: descriptor.mediaType,
      digest: descriptor.digest,
      size: descriptor.size,
      ...(tag === undefined ? {} : { annotations: { "org.opencontainers.image.ref.name": tag } }),
    }));
    await writeFile(join(dir, "index.json"), JSON.stringify({ schemaVersion: 2, manifests }));
    for (const [hex, bytes] of this.blobs) await writeFile(join(dir, "blobs", "sha256", hex), bytes);
    return dir;
  }
}

/**
 * The issue's push scenario: a base of `shared` layers; image A = base +
 * its config (tag "a"); image B = base + `fresh` new layers + its config
 * (tag "b"). `freshSizes` sets the new layers' content sizes.
 */
export function sharedBaseImages({ shared = 6, freshSizes = [4096, 4096, 4096], label = "demo" } = {}) {
  const builder = new OciLayoutBuilder();
  const base = Array.from({ length: shared }, (_, index) => builder.layer(`${label}-base-${index}`, 4096 + index));
  const fresh = freshSizes.map((size, index) => builder.layer(`${label}-new-${index}`, size));
  const a = builder.image({ layers: base, label: `${label}-a` });
  const b = builder.image({ layers: [...base, ...fresh], label: `${label}-b` });
  builder.tag("a", a).tag("b", b);
  const configOf = (manifest) => JSON.parse(new TextDecoder().decode(builder.bytes(manifest.digest))).config;
  return { builder, base, fresh, a, b, configA: configOf(a), configB: configOf(b) };
}
