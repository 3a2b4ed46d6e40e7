/** One sample of a Prometheus exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed exposition: families with HELP and TYPE, and every sample. */
export interface Exposition {
  help: Map<string, string>;
  type: Map<string, string>;
  samples: Sample[];
  /** The value of `name` with exactly these labels (undefined when absent). */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (!match) throw new Error(`bad labels in line: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  }
  return labels;
}

/** As Prometheus reads values (Go's ParseFloat): `NaN` and `Inf` in any case (prom-client writes `Nan`). */
function parseValue(text: string, line: string): number {
  const special = text.toLowerCase();
  if (special === '+inf' || special === 'inf') return Infinity;
  if (special === '-inf') return -Infinity;
  if (special === 'nan') return NaN;
  const value = Number(text);
  if (text.trim() === '' || Number.isNaN(value)) throw new Error(`bad value in line: ${line}`);
  return value;
}

/**
 * Parses the text format strictly enough to catch mistakes: every line is a HELP, a TYPE, a
 * sample or empty (the format ignores empty lines; prom-client puts one between families); a
 * family's HELP and TYPE come before its samples, and a histogram's `_bucket`, `_sum` and `_count`
 * samples follow its own; types are known; a family is not declared twice; the text ends with a
 * newline.
 */
export function parsePrometheus(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const help = new Map<string, string>();
  const type = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      const map = kind === 'HELP' ? help : type;
      if (map.has(name)) throw new Error(`${kind} of ${name} given twice`);
      if (kind === 'TYPE' && !['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
        throw new Error(`unknown type in line: ${line}`);
      map.set(name, rest);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus line: ${JSON.stringify(line)}`);
    const name = match[1]!;
    const family = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
    const declared = (n: string) => help.has(n) && type.has(n);
    const histogram = family !== undefined && type.get(family) === 'histogram' && declared(family);
    if (!declared(name) && !histogram) throw new Error(`sample of ${name} before its HELP and TYPE`);
    samples.push({ name, labels: parseLabels(match[2] ?? '', line), value: parseValue(match[3]!, line) });
  }
  const same = (a: Record<string, string>, b: Record<string, string>) =>
    Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);
  return {
    help,
    type,
    samples,
    value: (name, labels = {}) => samples.find((s) => s.name === name && same(s.labels, labels))?.value,
  };
}
