/**
 * The cells and directives of checkm lines as mrt-core's `Checkm` splits, decodes and encodes
 * them: cells are split on `|` with Java's blanks around it and trailing empty cells dropped
 * (`split("\\s*\\|\\s*")`), `dec` turns `%20` and `%7c` back into a blank and a bar, `enc`
 * escapes a leading or trailing blank and every bar.
 */

/** The file URL's field (lower case): read as written, never decoded (`getValNoDec`). */
export const URL_FIELD = 'nfo:fileurl';

/** Java's `\s`: what `split("\\s*\\|\\s*")` takes from around a `|` (not Unicode spaces). */
const SPLIT = /[ \t\n\v\f\r]*\|[ \t\n\v\f\r]*/;
/** Java's blanks at a line's ends (its line break is gone already): a line is read without them. */
export const OUTER_BLANKS = /^[ \t\v\f]+|[ \t\v\f]+$/g;

/** Long text cut short for messages. */
export function preview(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Java's `String.split`: trailing empty strings are dropped. */
export function splitCells(text: string): string[] {
  const cells = text.split(SPLIT);
  while (cells.length > 1 && cells.at(-1) === '') cells.pop();
  return cells;
}

/** `Checkm.dec`, and `%7C` too: Merritt decodes only the lower-case form, depositors write both. */
export function decode(value: string): string {
  if (!value.includes('%')) return value;
  return value.replace(/%(20|7c|7C)/g, (_, hex: string) => (hex === '20' ? ' ' : '|'));
}

/** `#%name rest` or `%name rest`: the name in lower case, the rest after the blanks and bars that follow it. */
export function directiveOf(line: string): { name: string; rest: string } | undefined {
  const match = /^#?%([^\s|]*)[\s|]*(.*)$/s.exec(line);
  return match ? { name: match[1]!.toLowerCase(), rest: match[2]!.trim() } : undefined;
}

/** The field names of a `#%fields`/`#%columns` line, refused when they cannot name columns. */
export function checkFields(names: string[], label: string, fail: (what: string) => Error): string[] {
  if (names.length === 0 || names.includes('')) throw fail(`${label} has an empty field name`);
  const lower = names.map((field) => field.toLowerCase());
  const duplicate = lower.find((field, i) => lower.indexOf(field) !== i);
  if (duplicate) throw fail(`${label} names "${duplicate}" twice`);
  if (!lower.includes(URL_FIELD)) throw fail(`${label} has no nfo:fileUrl`);
  return names;
}

/** Why Merritt's reader cannot give `value` back, or undefined when it can (after {@link encode}). */
export function unwritable(value: string): string | undefined {
  if (/[\r\n]/.test(value)) return 'a line break';
  if (/^[\t\v\f]|[\t\v\f]$/.test(value)) return 'a tab or form feed at an end';
  const decoded = /%(20|7c|7C)/.exec(value);
  return decoded ? `"${decoded[0]}", which the reader decodes` : undefined;
}

/** `Checkm.enc`: a leading or trailing blank becomes `%20`, every `|` becomes `%7c`. */
export function encode(value: string): string {
  let out = value;
  if (out.startsWith(' ')) out = `%20${out.slice(1)}`;
  if (out.endsWith(' ')) out = `${out.slice(0, -1)}%20`;
  return out.replaceAll('|', '%7c');
}
