import { describe, expect, it } from 'vitest';
import { isLocalFileSystem } from '../../../src/steps/fs/local-roots.js';

describe('which file systems the steps call inline', () => {
  it('counts local disk and memory file systems as local', () => {
    // ext4, xfs, btrfs, zfs, tmpfs, overlayfs (a container's root)
    for (const type of [0xef53, 0x58465342, 0x9123683e, 0x2fc12fc1, 0x01021994, 0x794c7630])
      expect(isLocalFileSystem(type)).toBe(true);
  });

  it('keeps network, FUSE, pseudo and unknown file systems on the thread pool', () => {
    // nfs, smb, cifs, smb2, fuse, ceph, 9p, proc, and a number no file system has
    for (const type of [
      0x6969, 0x517b, 0xff534d42, 0xfe534d42, 0x65735546, 0x00c36400, 0x01021997, 0x9fa0, 0x1234,
    ])
      expect(isLocalFileSystem(type)).toBe(false);
  });
});
