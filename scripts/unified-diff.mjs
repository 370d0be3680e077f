// A line-based unified diff (the format of `diff -u` and `git diff`), for
// tests and scripts that compare a committed generated file with a fresh
// one and must show the difference in their failure message. The middle
// between the common head and tail is matched by longest common
// subsequence: quadratic, which is fine for files of a few thousand lines.

const CONTEXT = 3;

/**
 * The unified diff from `before` to `after` (texts), with `CONTEXT` lines
 * of context around each change; "" when they are equal.
 *
 * @param {string} before
 * @param {string} after
 * @param {string} beforeName shown on the `---` line
 * @param {string} afterName shown on the `+++` line
 * @returns {string}
 */
export function unifiedDiff(before, after, beforeName, afterName) {
  if (before === after) return "";
  const edits = lineEdits(linesOf(before), linesOf(after));
  const lines = [`--- ${beforeName}`, `+++ ${afterName}`];
  const changed = edits.flatMap((edit, index) => (edit.kind === " " ? [] : [index]));
  let start = 0;
  while (start < changed.length) {
    // One hunk: changes whose gaps of unchanged lines are ≤ 2 × CONTEXT.
    let end = start;
    while (end + 1 < changed.length && changed[end + 1] - changed[end] <= 2 * CONTEXT) end += 1;
    const from = Math.max(0, changed[start] - CONTEXT);
    const to = Math.min(edits.length, changed[end] + CONTEXT + 1);
    const hunk = edits.slice(from, to);
    const oldCount = hunk.filter((edit) => edit.kind !== "+").length;
    const newCount = hunk.filter((edit) => edit.kind !== "-").length;
    // Line numbers of the hunk's first line on each side (the line before it when that side has none).
    const oldStart = edits.slice(0, from).filter((edit) => edit.kind !== "+").length + (oldCount > 0 ? 1 : 0);
    const newStart = edits.slice(0, from).filter((edit) => edit.kind !== "-").length + (newCount > 0 ? 1 : 0);
    lines.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...hunk.map((edit) => `${edit.kind}${edit.line}`));
    start = end + 1;
  }
  if (changed.length === 0) lines.push("(only the final newline differs)");
  return lines.join("\n");
}

/** The lines of `text`; a final newline ends the last line rather than starting an empty one. */
function linesOf(text) {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The edit script from `a` to `b` (lines): `{ kind: " " | "-" | "+", line }[]`. */
function lineEdits(a, b) {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  // lcs[i][j]: length of the longest common subsequence of x[i…] and y[j…].
  const width = y.length + 1;
  const lcs = new Uint32Array((x.length + 1) * width);
  for (let i = x.length - 1; i >= 0; i -= 1) {
    for (let j = y.length - 1; j >= 0; j -= 1) {
      lcs[i * width + j] =
        x[i] === y[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const middle = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      middle.push({ kind: " ", line: x[i++] });
      j += 1;
    } else if (i < x.length && (j === y.length || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
      middle.push({ kind: "-", line: x[i++] });
    } else {
      middle.push({ kind: "+", line: y[j++] });
    }
  }
  const same = (line) => ({ kind: " ", line });
  return [...a.slice(0, head).map(same), ...middle, ...a.slice(a.length - tail).map(same)];
}
