import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { accessStates, batchStates, jobStates } from '../../../machines/index.js';

const ROOT = join(import.meta.dirname, '../../..');
const STATE_NAMES: ReadonlySet<string> = new Set([...jobStates, ...batchStates, ...accessStates]);

/**
 * Where a string equal to a state name is no state (DESIGN.md §7: states are named in machines/
 * only; code elsewhere asks the lifecycle, or names a state by the edge that enters it, see
 * machines/roles.ts). Each entry says what the word is there. A name listed here and no longer
 * written in its file fails the test, so the list stays as short as the code allows.
 */
const NOT_STATES: Readonly<Record<string, { names: readonly string[]; why: string }>> = {
  'src/doctor/batches.ts': {
    names: ['pending', 'held', 'completed', 'deleted', 'failed'],
    why: "the doctor's typed rules: which batch states each folder check applies to",
  },
  'src/zk/types.ts': { names: ['deleted'], why: 'a ZooKeeper watch event type (NodeDeleted)' },
  'src/zk/convert.ts': { names: ['deleted'], why: 'a ZooKeeper watch event type (NodeDeleted)' },
  'src/engine/engine.ts': { names: ['deleted'], why: 'a ZooKeeper watch event type' },
  'src/engine/waiting-job-nodes.ts': { names: ['deleted'], why: 'a ZooKeeper watch event type' },
  'src/telemetry/engine-metrics.ts': { names: ['failed'], why: "a cleanup run's outcome label" },
  'src/admin/cleanup-schedule.ts': { names: ['failed'], why: "a cleanup run's outcome label" },
  'src/http/routes/metrics-history.ts': {
    names: ['completed', 'failed'],
    why: 'field names of the throughput in the API schema',
  },
  'src/views/rollups/categories.ts': { names: ['failed'], why: "a progress bar's group name" },
  'src/cli/commands/admin.ts': { names: ['held'], why: 'the English word in an operator message' },
  'src/steps/services/callback.ts': {
    names: ['completed'],
    why: "the `status` of Merritt's callback body (its wire format, not our state)",
  },
  'src/steps/job/notify.ts': {
    names: ['completed', 'notify'],
    why: "the callback body's status (wire format); the notify step's name",
  },
  'src/steps/simulated.ts': { names: ['notify'], why: "the notify step's name" },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every string literal of `file` (comments and identifiers are not strings) equal to a state name. */
function stateLiterals(file: string): { name: string; line: number }[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { name: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && STATE_NAMES.has(node.text))
      found.push({ name: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('a state is named in machines/ only', () => {
  const files = sourceFiles(join(ROOT, 'src')).map((file) => ({
    file: relative(ROOT, file),
    literals: stateLiterals(file),
  }));

  it('src/ writes no state name outside the allow-list', () => {
    const written = files.flatMap(({ file, literals }) =>
      literals
        .filter(({ name }) => !NOT_STATES[file]?.names.includes(name))
        .map(({ name, line }) => `${file}:${line} '${name}'`),
    );
    expect(written).toEqual([]);
  });

  it('every allow-list entry is still needed', () => {
    const stale = Object.entries(NOT_STATES).flatMap(([file, { names }]) => {
      const used = new Set(files.find((f) => f.file === file)?.literals.map((l) => l.name));
      return names.filter((name) => !used.has(name)).map((name) => `${file} '${name}'`);
    });
    expect(stale).toEqual([]);
  });

  it('finds a state name written in a file (the scan works)', () => {
    expect(stateLiterals(join(ROOT, 'machines/states.ts')).map((l) => l.name)).toContain('update-reporting');
  });
});
