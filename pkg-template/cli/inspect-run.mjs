// `artifact-bloom inspect`, once its arguments are parsed (./inspect.mjs): a
// snapshot's report (from a file or a URL), or a delta's.
import { ABF1_HEADER_LENGTH, loadSnapshot, readSnapshotHeader } from "artifact-bloom";
import { alertFillRatio, fppFromFillRatio } from "artifact-bloom/variants";
import { readSnapshotFile } from "./bounded-file.mjs";
import { EXIT_OK, EXIT_PROBLEMS, UsageError } from "./common.mjs";
import { fetchSnapshotUrl, isSnapshotUrl } from "./snapshot-url.mjs";

/**
 * @param {string} path the snapshot's (or delta's) path or URL
 * @param {Record<string, any>} values the parsed options
 * @returns {Promise<number>} the exit code
 */
export async function runInspect(path, values) {
  if (isSnapshotUrl(path)) {
    if (values.base !== undefined) throw new UsageError("--base is for an ABD1 delta file; a URL is fetched as a snapshot");
    const fetched = await fetchSnapshotUrl(path, { label: "PATH", values });
    // What arrived: the snapshot's ABF1 length (the delta a poll would use is not inspected here).
    const length = fetched.kind === "success" ? ABF1_HEADER_LENGTH + fetched.value.header.payloadLength : undefined;
    return printReport(snapshotReport(path, length, fetched, undefined), values.json);
  }
  const bytes = await readSnapshotFile(path);
  const loaded = loadSnapshot(bytes);
  // Only a file that is not a snapshot can be a delta: the delta build is loaded for it alone.
  const delta = loaded.kind === "failure" ? await import("./inspect-delta.mjs") : undefined;
  if (delta?.looksLikeDelta(bytes, loaded)) {
    const report = await delta.inspectDelta(path, bytes, values.base);
    process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatDeltaReport(report));
    return report.verdict === "ok" ? EXIT_OK : EXIT_PROBLEMS;
  }
  if (values.base !== undefined) throw new UsageError("--base is for an ABD1 delta; PATH is not one");
  return printReport(snapshotReport(path, bytes.byteLength, loaded, bytes), values.json);
}

/**
 * The report of a snapshot load: its header and statistics, or the failure
 * and (from the file's own bytes, when there are any) the header it claims.
 * @param {string} path
 * @param {number | undefined} length
 * @param {any} loaded loadSnapshot's or fetchSnapshot's result
 * @param {Uint8Array | undefined} bytes
 */
function snapshotReport(path, length, loaded, bytes) {
  /** @type {Record<string, any>} */
  const report = { path, bytes: length };
  if (loaded.kind === "success") {
    const { header, filter } = loaded.value;
    const fillRatio = filter.getFillRatio();
    Object.assign(report, {
      verdict: "ok",
      header,
      fillRatio,
      estimatedFalsePositiveRate: filter.estimateFalsePositiveRate(),
      fppFromFillRatio: fppFromFillRatio(fillRatio, header.hashCount),
      targetFalsePositiveRate: header.targetFpp,
      // Capped at 1: for p ≥ 0.5 the rate never reaches 2p.
      alertFillRatio: Math.min(1, alertFillRatio(header.targetFpp, header.hashCount)),
    });
    report.alert = fillRatio >= report.alertFillRatio;
    filter.free();
  } else {
    const claimed = bytes === undefined ? undefined : readSnapshotHeader(bytes);
    Object.assign(report, {
      verdict: loaded.error,
      message: loaded.message,
      header: claimed?.kind === "success" ? claimed.value : undefined,
    });
  }
  return report;
}

/**
 * @param {Record<string, any>} report
 * @param {boolean | undefined} json
 */
function printReport(report, json) {
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.verdict === "ok" ? EXIT_OK : EXIT_PROBLEMS;
}

/** @param {Record<string, any>} report snapshotReport's */
function formatReport(report) {
  const lines = [report.bytes === undefined ? report.path : `${report.path} (${report.bytes} bytes)`];
  const h = report.header;
  if (h !== undefined) {
    lines.push(
      `  format ${h.formatVersion}, hash protocol ${h.hashProtocolVersion}`,
      `  catalogVersion      ${h.catalogVersion}`,
      `  bitCount            ${h.bitCount} (${h.payloadLength} payload bytes)`,
      `  hashCount           ${h.hashCount}`,
      `  expectedItemCount   ${h.expectedItemCount}`,
      `  insertedItemCount   ${h.insertedItemCount}`,
      `  targetFpp           ${h.targetFpp}`,
      `  checksum            ${h.checksum}`,
    );
  }
  if (report.verdict === "ok") {
    lines.push(
      `  fill ratio          ${report.fillRatio.toFixed(6)}`,
      `  estimated FPP       ${report.estimatedFalsePositiveRate.toExponential(3)} (model, inserted count)`,
      `  FPP from fill       ${report.fppFromFillRatio.toExponential(3)} (fill^k)`,
      `  alert fill ratio    ${report.alertFillRatio.toFixed(6)} (FPP would reach 2 × target)`
        + `${report.alert ? "  ALERT: reached" : ""}`,
      "  checksum verdict    ok",
    );
  } else {
    lines.push(`  verdict             ${report.verdict}: ${report.message}`);
  }
  return `${lines.join("\n")}\n`;
}

/** @param {Record<string, any>} report inspectDelta's */
function formatDeltaReport(report) {
  const lines = [`${report.path} (${report.bytes} bytes, ABD1 delta)`];
  const h = report.header;
  if (h !== undefined) {
    const t = h.target;
    lines.push(
      `  format ${h.formatVersion}, position encoding ${h.positionEncoding} (Rice k = ${h.riceParameter})`,
      `  base catalogVersion  ${h.baseCatalogVersion}`,
      `  base set bits        ${h.baseSetBitCount}`,
      `  base payload SHA-256 ${h.basePayloadSha256}`,
      `  target catalogVersion ${t.catalogVersion}`,
      `  target bitCount      ${t.bitCount} (${t.payloadLength} payload bytes), hashCount ${t.hashCount}`,
      `  target items         ${t.insertedItemCount} inserted of ${t.expectedItemCount} expected, targetFpp ${t.targetFpp}`,
      `  target checksum      ${t.checksum}`,
      `  target payload SHA-256 ${h.targetPayloadSha256}`,
      `  new bits             ${h.positionCount} (${h.bodyLength} body bytes)`,
      `  size                 ${report.bytes} of ${report.targetBytes} bytes for the full target`
        + ` (${((report.bytes / report.targetBytes) * 100).toFixed(2)} %)`,
    );
  }
  if (report.applied !== undefined) {
    lines.push(`  applied to ${report.applied.base}: catalogVersion ${report.applied.catalogVersion}, checksum ok`);
  }
  lines.push(report.verdict === "ok" ? "  verdict             ok" : `  verdict             ${report.verdict}: ${report.message}`);
  return `${lines.join("\n")}\n`;
}
