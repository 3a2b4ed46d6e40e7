import { describe, expect, it } from 'vitest';
import { libraryKnowsCode } from '../../../src/zk/library.js';
import { kindOfServerCode } from '../../../src/zk/errors.js';

// Unpatched node-zookeeper-client 1.1.3 throws "Unknown code" for server codes newer than it,
// from inside its socket handler: one SESSION_MOVED reply would crash the process.
describe('server error codes newer than the library', () => {
  it.each([
    [-118, 'SESSION_MOVED'],
    [-122, 'TIMEOUT'],
    [-119, 'UNKNOWN'],
    [-125, 'UNKNOWN'],
  ])('code %i is representable by the patched library and maps to %s', (code, kind) => {
    expect(libraryKnowsCode(code)).toBe(true);
    expect(kindOfServerCode(code)).toBe(kind);
  });

  it('still rejects codes ZooKeeper never sends', () => {
    expect(libraryKnowsCode(-9999)).toBe(false);
  });
});
