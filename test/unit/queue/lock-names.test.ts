import { describe, expect, it } from 'vitest';
import { isQueueError } from '../../../src/queue/tree/errors.js';
import {
  collectionLockName,
  collectionLockPath,
  inventoryLockPath,
  localIdLockName,
  localIdLockPath,
  objectLockName,
  storageLockPath,
} from '../../../src/queue/tree/paths.js';

/*
 * Every expected value below was computed by mrt-zk's own rule under Java 17
 * (`Paths.get(QueueItem.ZkPaths.LocksStorage.path, ark.replaceAll(":?/", "_")).toString()`,
 * `Paths.get("/locks/collections", mnemonic)`), not by this engine's code.
 */
describe('lock names as Merritt makes them (merritt-protocols.md §8, "Locks"; MerrittLocks.java)', () => {
  it('object locks: an optional ":" then a "/" becomes one "_" (a regex, not a character class)', () => {
    expect(objectLockName('ark:/13030/x')).toBe('ark_13030_x');
    expect(objectLockName('ark:/13030/m5abc')).toBe('ark_13030_m5abc');
    expect(objectLockName('a:b?c/d')).toBe('a:b?c_d');
    expect(objectLockName('a::/b')).toBe('a:_b');
    expect(objectLockName('x:')).toBe('x:');
    expect(objectLockName(':/')).toBe('_');
    expect(objectLockName('//')).toBe('__');
    expect(objectLockName('http://n2t.net/ark:/13030/j2')).toBe('http__n2t.net_ark_13030_j2');
    expect(objectLockName('doi:10.5072/FK2/ABC')).toBe('doi:10.5072_FK2_ABC');
    expect(objectLockName('lid with space:/é')).toBe('lid with space_é');
  });

  it('storage and inventory locks sit under /locks/storage and /locks/inventory', () => {
    expect(storageLockPath('ark:/13030/m5abc')).toBe('/locks/storage/ark_13030_m5abc');
    expect(storageLockPath('ark:/99999/fk4busy')).toBe('/locks/storage/ark_99999_fk4busy');
    expect(inventoryLockPath('ark:/13030/m5abc')).toBe('/locks/inventory/ark_13030_m5abc');
  });

  it('local-id locks: localid + "_" + owner, then the same rule (ProcessManager.getLocalIDLock)', () => {
    expect(localIdLockName('loc-1', 'ark:/13030/j2owner')).toBe('loc-1_ark_13030_j2owner');
    expect(localIdLockName('ark:/13030/j2rn30xp', 'ark:/13030/j2owner')).toBe(
      'ark_13030_j2rn30xp_ark_13030_j2owner',
    );
    expect(localIdLockName('a:b?c/d', undefined)).toBe('a:b?c_d_');
    expect(localIdLockPath('loc-1', 'ark:/13030/j2owner')).toBe('/locks/localid/loc-1_ark_13030_j2owner');
  });

  it('collection holds: the mnemonic unchanged; one that is not a node name is refused', () => {
    expect(collectionLockName('merritt_demo')).toBe('merritt_demo');
    expect(collectionLockPath('merritt_demo_content')).toBe('/locks/collections/merritt_demo_content');
    expect(collectionLockPath('x:y')).toBe('/locks/collections/x:y');
    for (const bad of ['', '.', '..', 'a/b']) {
      let err: unknown;
      try {
        collectionLockName(bad);
      } catch (e) {
        err = e;
      }
      expect(isQueueError(err, 'BAD_REQUEST'), bad).toBe(true);
    }
  });
});
