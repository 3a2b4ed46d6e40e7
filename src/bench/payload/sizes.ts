/** The payloads of issue 36 and their sizes: the full profile, CI's quick one, or a caller's own. */

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** How big each payload is. */
export interface PayloadSizes {
  /** One object of one file of this many bytes. */
  bigBytes: number;
  /** One object of `mediumCount` files of `mediumBytes` each. */
  mediumCount: number;
  mediumBytes: number;
  /** One object of `smallCount` files of `smallBytes` each. */
  smallCount: number;
  smallBytes: number;
  /** A single-file batch manifest of `objectCount` objects, one file of `objectBytes` each. */
  objectCount: number;
  objectBytes: number;
  /**
   * One zip container of about `zipBytes`: `zipSmallEntries` entries of `zipSmallEntryBytes`, the
   * rest in entries of `zipLargeEntryBytes` (the last one shorter), stored uncompressed.
   */
  zipBytes: number;
  zipLargeEntryBytes: number;
  zipSmallEntries: number;
  zipSmallEntryBytes: number;
}

/** The sizes. */
export const FULL_SIZES: PayloadSizes = {
  bigBytes: GiB,
  mediumCount: 2_000,
  mediumBytes: 64 * KiB,
  smallCount: 20_000,
  smallBytes: 4 * KiB,
  objectCount: 5_000,
  objectBytes: 16 * KiB,
  zipBytes: 2 * GiB,
  zipLargeEntryBytes: 64 * MiB,
  zipSmallEntries: 300,
  zipSmallEntryBytes: 64 * KiB,
};

/** CI's sizes: every path, in well under two minutes on two cores. */
export const QUICK_SIZES: PayloadSizes = {
  bigBytes: 32 * MiB,
  mediumCount: 200,
  mediumBytes: 64 * KiB,
  smallCount: 1_000,
  smallBytes: 4 * KiB,
  objectCount: 200,
  objectBytes: 16 * KiB,
  zipBytes: 48 * MiB,
  zipLargeEntryBytes: 8 * MiB,
  zipSmallEntries: 100,
  zipSmallEntryBytes: 16 * KiB,
};

/** The payloads, by name. */
export const PAYLOAD_NAMES = ['big-file', 'medium-files', 'small-files', 'one-file-objects', 'zip'] as const;
export type PayloadName = (typeof PAYLOAD_NAMES)[number];

/** How the file server answers: keeping connections open, or closing each after its response. */
export type ServerKind = 'keep-alive' | 'closing';

/** One row of the profile: a payload served by one kind of server. */
export interface PayloadRow {
  payload: PayloadName;
  server: ServerKind;
}

/**
 * The rows in the order they run: every payload on a keep-alive server, and the many-files
 * payload (2,000 × 64 KiB) once more on a server that closes every connection, as some
 * depositors' servers do.
 */
export function rowsOf(): PayloadRow[] {
  return PAYLOAD_NAMES.flatMap((payload): PayloadRow[] =>
    payload === 'medium-files'
      ? [
          { payload, server: 'keep-alive' },
          { payload, server: 'closing' },
        ]
      : [{ payload, server: 'keep-alive' }],
  );
}

/** The entry sizes of the zip container, large ones first. */
export function zipEntrySizes(sizes: PayloadSizes): number[] {
  const small = Array<number>(sizes.zipSmallEntries).fill(sizes.zipSmallEntryBytes);
  let rest = Math.max(0, sizes.zipBytes - sizes.zipSmallEntries * sizes.zipSmallEntryBytes);
  const large: number[] = [];
  while (rest > 0) {
    large.push(Math.min(rest, sizes.zipLargeEntryBytes));
    rest -= sizes.zipLargeEntryBytes;
  }
  return [...large, ...small];
}

/** `32 MiB`, `64 KiB`, `1 GiB`: a size as the table shows it. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', GiB],
    ['MiB', MiB],
    ['KiB', KiB],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} B`;
}
