import type { ZkStat } from '../../src/zk/index.js';

/** A node's stat for pure tests of what reads the tree: made at `ctime`, owned by `ephemeralOwner` ('0': persistent). */
export function zkStat(ctime: number, ephemeralOwner = '0'): ZkStat {
  return {
    version: 0,
    cversion: 0,
    numChildren: 0,
    dataLength: 0,
    ephemeralOwner,
    ctime,
    mtime: ctime,
    czxid: '1',
    mzxid: '1',
  };
}
