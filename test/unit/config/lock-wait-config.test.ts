import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';

describe('object lock waits (MRTQ_STORAGE_LOCK_WAIT_MS, MRTQ_INVENTORY_LOCK_WAIT_MS)', () => {
  it("default to an hour for storing and Merritt's 900 s for recording", () => {
    expect(loadConfig({}).ingest).toMatchObject({
      storageLockWaitMs: 3_600_000,
      inventoryLockWaitMs: 900_000,
    });
  });

  it('are read from the environment; 0 fails at once; a bad value is named', () => {
    const set = loadConfig({ MRTQ_STORAGE_LOCK_WAIT_MS: '0', MRTQ_INVENTORY_LOCK_WAIT_MS: '60000' }).ingest;
    expect(set).toMatchObject({ storageLockWaitMs: 0, inventoryLockWaitMs: 60_000 });
    const bad = () => loadConfig({ MRTQ_STORAGE_LOCK_WAIT_MS: '-1', MRTQ_INVENTORY_LOCK_WAIT_MS: 'soon' });
    expect(bad).toThrow(/MRTQ_STORAGE_LOCK_WAIT_MS must be a whole number/);
    expect(bad).toThrow(/MRTQ_INVENTORY_LOCK_WAIT_MS must be a whole number/);
  });
});
