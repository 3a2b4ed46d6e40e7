import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const SETTING = /^(MRTQ|ZK|LOG)_[A-Z0-9_]*[A-Z0-9]$/;

/** Every setting the configuration modules read: `env.NAME`, quoted names and the schemas' keys. */
function settingsRead(): Set<string> {
  const names = new Set<string>();
  const sources = readdirSync(join(ROOT, 'src', 'config')).filter((f) => f.endsWith('.ts'));
  expect(sources).toContain('config.ts');
  for (const file of sources) {
    const text = readFileSync(join(ROOT, 'src', 'config', file), 'utf8');
    for (const [, name] of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) names.add(name!);
    // The zod schemas' keys (src/config/settings.ts, src/config/ingest.ts): `  NAME: setting(…)`.
    for (const [, name] of text.matchAll(/^\s+([A-Z][A-Z0-9_]*): setting\(/gm)) names.add(name!);
    for (const [, name] of text.matchAll(/['"`]([A-Z][A-Z0-9_]*)['"`]/g))
      if (SETTING.test(name!)) names.add(name!);
  }
  return names;
}

/** The names in the first column of README's "Configuration (environment)" table. */
function settingsDocumented(): Set<string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Configuration (environment)');
  expect(start).toBeGreaterThan(-1);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const names = new Set<string>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const firstCell = row.split('|')[1] ?? '';
    for (const [, name] of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)(?:=[^`]*)?`/g)) names.add(name!);
  }
  return names;
}

describe("README's settings table", () => {
  it('documents every setting src/config/ reads, by its full name', () => {
    const read = settingsRead();
    // The scan finds what it should: old and new settings alike.
    for (const known of ['ZK_CONNECT', 'LOG_LEVEL', 'MRTQ_DATA_DIR', 'MRTQ_DEPLOYMENT', 'MRTQ_MAIL_PURL'])
      expect(read).toContain(known);
    const documented = settingsDocumented();
    expect([...read].filter((name) => !documented.has(name)).sort()).toEqual([]);
  });
});
