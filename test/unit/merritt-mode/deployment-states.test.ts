import { describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import { deploymentStates, merrittServiceStates } from '../../../machines/deployment.js';

const lifecycle = merrittJobLifecycle;

describe('the states each deployment serves, derived from the lifecycle table', () => {
  it('standalone serves every servable state and leaves nothing to Merritt', () => {
    const states = deploymentStates(lifecycle, 'standalone');
    expect(states.served).toEqual(lifecycle.servableStates);
    expect(states.leftToMerritt).toEqual([]);
  });

  it("Merritt's lifecycle gives Storing to its storage service and Recording to its inventory service", () => {
    // merritt-protocols.md, "The big picture": mrt-store consumes Storing, mrt-inventory Recording.
    expect(merrittServiceStates(lifecycle)).toEqual([
      { state: 'storing', service: 'storage' },
      { state: 'recording', service: 'inventory' },
    ]);
  });

  it('a Merritt deployment serves every servable state whose row names no Merritt service', () => {
    const states = deploymentStates(lifecycle, 'merritt');
    const left = lifecycle.table.filter((row) => row.merritt).map((row) => row.state);
    expect(states.served).toEqual(lifecycle.servableStates.filter((state) => !left.includes(state)));
    expect(states.served).toContain(lifecycle.initial);
    for (const state of left) expect(states.served).not.toContain(state);
    expect(states.leftToMerritt.map((entry) => entry.state)).toEqual(left);
  });

  it('--states narrows a deployment further; asking for a state left to Merritt is refused', () => {
    const [first, second] = deploymentStates(lifecycle, 'merritt').served;
    expect(deploymentStates(lifecycle, 'merritt', [first!, second!]).served).toEqual([first, second]);
    const storage = merrittServiceStates(lifecycle)[0]!;
    const asked = deploymentStates(lifecycle, 'merritt', [first!, storage.state]);
    expect(asked.served).toEqual([first]);
    expect(asked.refused).toEqual([storage]);
    expect(deploymentStates(lifecycle, 'standalone', [storage.state]).refused).toEqual([]);
  });

  it('a lifecycle whose table names no Merritt service is served whole in either deployment', () => {
    const table = lifecycle.table.map(({ merritt: _merritt, ...row }) => row);
    const plain = { table, servableStates: lifecycle.servableStates };
    expect(deploymentStates(plain, 'merritt').served).toEqual(lifecycle.servableStates);
  });
});
