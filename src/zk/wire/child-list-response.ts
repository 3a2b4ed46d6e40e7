/**
 * The reply to getChildren (GetChildren2Response: child names, then the folder's stat), with the
 * names left in the reply until read. A folder of a million children is a 20 MB reply, and
 * decoding it into strings in one go blocks the event loop for most of a second; `ChildNames`
 * walks them a slice per turn from `buffer`, `start` and `count`. The library's own getChildren
 * reads `children`, which decodes them all then, as the library did on arrival.
 */
import type { JuteRecord } from './library-shape.js';

export interface ChildListResponse {
  /** The reply; from `start`, `count` names, each a 4-byte big-endian length and its UTF-8 bytes. */
  readonly buffer: Buffer | null;
  readonly start: number;
  readonly count: number;
  readonly stat: JuteRecord | null;
  /**
   * Every name, decoded on first read. A list or name of length -1 (null, which ZooKeeper never
   * sends) reads as undefined, as the library reads it.
   */
  readonly children: Array<string | undefined> | undefined;
  setChrootPath(path: string | undefined): void;
  deserialize(buffer: Buffer, offset: number): number;
}

/**
 * The class, made as the library makes a reply record (`new GetChildren2Response()`, then
 * deserialize). `blankStat` makes a Stat to decode into (see `RecordType.blank`).
 */
export function childListResponseClass(blankStat: () => JuteRecord): new () => ChildListResponse {
  return class GetChildren2Response implements ChildListResponse {
    buffer: Buffer | null = null;
    start = 0;
    count = 0;
    stat: JuteRecord | null = null;
    private listed = false;
    private decoded: Array<string | undefined> | undefined = undefined;

    setChrootPath(): void {
      // Child names are relative: there is no chroot to strip.
    }

    /** Finds where the names end (a length read per name), and decodes the stat after them. */
    deserialize(buffer: Buffer, offset: number): number {
      const count = buffer.readInt32BE(offset);
      let position = offset + 4;
      for (let i = 0; i < count; i += 1) {
        const length = buffer.readInt32BE(position);
        position += 4 + (length > 0 ? length : 0);
      }
      this.buffer = buffer;
      this.start = offset + 4;
      this.count = count > 0 ? count : 0;
      this.listed = count !== -1;
      const stat = blankStat();
      position += stat.deserialize(buffer, position);
      this.stat = stat;
      return position - offset;
    }

    get children(): Array<string | undefined> | undefined {
      if (this.decoded === undefined && this.listed && this.buffer) {
        this.decoded = decodeNames(this.buffer, this.start, this.count);
      }
      return this.decoded;
    }
  };
}

function decodeNames(buffer: Buffer, start: number, count: number): Array<string | undefined> {
  const names: Array<string | undefined> = [];
  let position = start;
  for (let i = 0; i < count; i += 1) {
    const length = buffer.readInt32BE(position);
    position += 4;
    if (length === -1) {
      names.push(undefined);
    } else {
      names.push(buffer.toString('utf8', position, position + length));
      position += length;
    }
  }
  return names;
}
