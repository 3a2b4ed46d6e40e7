import { describe, expect, it } from 'vitest';
import { lifecycleNames, lifecycles, toMermaid } from '../../../machines/index.js';
import { staleFiles } from '../../../scripts/generate-diagrams.js';

const id = (state: string) => state.replace(/[^A-Za-z0-9_]/g, '_');

describe('diagrams', () => {
  it.each(lifecycleNames)('the %s diagram draws every table edge', (name) => {
    const { machine, table } = lifecycles[name];
    const lines = toMermaid(machine)
      .split('\n')
      .map((line) => line.trim());
    for (const edge of table.filter((e) => e.from !== null)) {
      const prefix = `${id(edge.from!)} --> ${id(edge.to)} : ${edge.event}`;
      expect(
        lines.some((line) => line.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
    const edgeLines = lines.filter((line) => line.includes(' --> ') && !line.includes('[*]'));
    expect(edgeLines).toHaveLength(table.filter((e) => e.from !== null).length);
  });

  it.each(lifecycleNames)('the %s diagram marks its initial and final states', (name) => {
    const { machine } = lifecycles[name];
    const text = toMermaid(machine);
    expect(text).toContain('[*] --> pending');
    const finals = Object.entries(machine.root.states as Record<string, { type: string }>)
      .filter(([, node]) => node.type === 'final')
      .map(([state]) => state);
    // An access request can still be deleted when completed (mrt-admin's Queue Del).
    expect(finals).toEqual(name === 'access' ? ['deleted'] : ['completed', 'deleted']);
    for (const state of finals) expect(text).toContain(`${state} --> [*]`);
  });

  it('the diagrams in docs/ are the ones the machines produce (run `npm run diagrams`)', async () => {
    expect(await staleFiles()).toEqual([]);
  });
});
