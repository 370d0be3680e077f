// Each command's flags, written once: a table whose entries are both the
// parseArgs configuration and the --help line, so a flag cannot be parsed
// without being documented, or documented under another name. The help is
// generated from the table: the usage lines (positionals and required flags),
// the command's description, every option with its argument and text
// (wrapped to the terminal's usual 79 columns), then the command's notes
// (the description and the notes as written: they hold lists and tables).
// Nothing here imports the library (js-tests/cli-lazy-library.test.mjs).

/**
 * One flag: parseArgs's fields, plus `arg` (the argument's name in the help:
 * `--out PATH`), `help` (one paragraph, wrapped when printed), `required`
 * (shown in the usage line; the command still checks it, with its own
 * message) and `spelled` (how the help writes it when that is not
 * `--name ARG`, e.g. `--tls-verify=false`).
 * @typedef {{
 *   type: "string" | "boolean",
 *   default?: string | boolean,
 *   multiple?: boolean,
 *   short?: string,
 *   arg?: string,
 *   help: string,
 *   required?: boolean,
 *   spelled?: string,
 * }} OptionSpec
 */

/**
 * A command: `usage` are its usage lines after `artifact-bloom NAME` (its
 * positionals; the required flags are added from the table), `about` the
 * description before the options, `notes` the paragraphs after them.
 * @typedef {{
 *   name: string,
 *   usage: string[],
 *   about: string,
 *   options: Record<string, OptionSpec>,
 *   notes?: string[],
 *   allowPositionals?: boolean,
 * }} CommandSpec
 */

const WIDTH = 79;
/** The column where an option's text starts (as in the hand-written helps before). */
const TEXT_COLUMN = 23;

/** `--name ARG` (or the spelling the entry gives). */
function flagOf(name, option) {
  if (option.spelled !== undefined) return option.spelled;
  const short = option.short === undefined ? "" : `-${option.short}, `;
  return `${short}--${name}${option.arg === undefined ? "" : ` ${option.arg}`}`;
}

/**
 * `text` wrapped to lines of at most `width` characters after `indent`
 * spaces (a word longer than the line stays whole). An explicit newline
 * starts a new line.
 * @param {string} text
 * @param {number} indent
 * @param {number} [width]
 */
export function wrap(text, indent, width = WIDTH) {
  const lines = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/ +/).filter(Boolean)) {
      if (line !== "" && indent + line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else {
        line = line === "" ? word : `${line} ${word}`;
      }
    }
    lines.push(line);
  }
  return lines.map((line) => `${" ".repeat(indent)}${line}`.trimEnd());
}

/**
 * The option lines of the help: the flag at column 2, its text at
 * TEXT_COLUMN (on the next line when the flag is longer).
 * @param {Record<string, OptionSpec>} options
 */
function optionLines(options) {
  const lines = [];
  for (const [name, option] of Object.entries(options)) {
    const flag = `  ${flagOf(name, option)}`;
    const text = wrap(option.help, TEXT_COLUMN);
    if (flag.length + 2 <= TEXT_COLUMN) lines.push(flag.padEnd(TEXT_COLUMN) + text[0].trimStart(), ...text.slice(1));
    else lines.push(flag, ...text);
  }
  return lines;
}

/**
 * The command's --help text, generated from its table.
 * @param {CommandSpec} spec
 */
export function helpText(spec) {
  const required = Object.entries(spec.options)
    .filter(([, option]) => option.required)
    .map(([name, option]) => flagOf(name, option));
  const usage = spec.usage.map((line, index) => {
    const words = [line, ...(index === 0 ? required : []), "[options]"].filter(Boolean).join(" ");
    return `${index === 0 ? "Usage: " : "       "}artifact-bloom ${spec.name} ${words}`;
  });
  const help = { type: "boolean", short: "h", help: "print this help" };
  return [
    usage.join("\n"),
    spec.about,
    ["Options:", ...optionLines({ ...spec.options, help: /** @type {OptionSpec} */ (help) })].join("\n"),
    ...(spec.notes ?? []),
  ].join("\n\n");
}

/**
 * The table as parseArgs's `options` (its own fields only).
 * @param {Record<string, OptionSpec>} options
 * @returns {NonNullable<import("node:util").ParseArgsConfig["options"]>}
 */
export function parseArgsOptions(options) {
  /** @type {NonNullable<import("node:util").ParseArgsConfig["options"]>} */
  const config = {};
  for (const [name, { type, default: fallback, multiple, short }] of Object.entries(options)) {
    config[name] = {
      type,
      ...(fallback === undefined ? {} : { default: /** @type {any} */ (fallback) }),
      ...(multiple === undefined ? {} : { multiple }),
      ...(short === undefined ? {} : { short }),
    };
  }
  return config;
}
