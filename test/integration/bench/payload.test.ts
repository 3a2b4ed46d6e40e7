import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPayloadProfile, type PayloadProfileResult } from '../../../src/bench/payload/index.js';
import { rowsOf, zipEntrySizes, type PayloadSizes } from '../../../src/bench/payload/sizes.js';
import { loadConfig } from '../../../src/config/config.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// Issue 36, item 1: the payload profile works end to end (a test of the bench, not of speed).

const chroot = useZkChroot();
const KiB = 1024;

/** Every payload, tiny: each row still starts its own service and ingests through it. */
const TINY: PayloadSizes = {
  bigBytes: 3 * 1024 * KiB,
  mediumCount: 12,
  mediumBytes: 64 * KiB,
  smallCount: 25,
  smallBytes: 4 * KiB,
  objectCount: 6,
  objectBytes: 16 * KiB,
  zipBytes: 2 * 1024 * KiB,
  zipLargeEntryBytes: 512 * KiB,
  zipSmallEntries: 8,
  zipSmallEntryBytes: 4 * KiB,
};

/** Objects, files and bytes each payload must have been ingested with. */
const EXPECTED = {
  'big-file': { objects: 1, files: 1, bytes: TINY.bigBytes },
  'medium-files': { objects: 1, files: TINY.mediumCount, bytes: TINY.mediumCount * TINY.mediumBytes },
  'small-files': { objects: 1, files: TINY.smallCount, bytes: TINY.smallCount * TINY.smallBytes },
  'one-file-objects': {
    objects: TINY.objectCount,
    files: TINY.objectCount,
    bytes: TINY.objectCount * TINY.objectBytes,
  },
  zip: { objects: 1, files: zipEntrySizes(TINY).length },
};

describe('the payload profile of the benchmark', () => {
  const resultsDir = mkdtempSync(join(tmpdir(), 'mrtq-payload-results-'));
  let result: PayloadProfileResult;

  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('ingests every payload through a real mrtq serve and measures it against the same run’s limit', async () => {
    result = await runPayloadProfile(
      { ...loadConfig(), zkConnect: chroot.connectString() },
      { quick: true, sizes: TINY, digest: 'md5', resultsDir },
    );
    expect(result.digest_algorithm).toBe('md5');
    expect(result.rows.map((r) => [r.name, r.server_kind])).toEqual(
      rowsOf().map((r) => [r.payload, r.server]),
    );
    for (const row of result.rows) {
      const expected = EXPECTED[row.name];
      expect(row, row.name).toMatchObject(expected);
      if (row.name === 'zip') expect(row.bytes).toBeGreaterThan(TINY.zipBytes);
      for (const figure of [
        row.limit_s,
        row.engine_s,
        row.mb_per_s,
        row.files_per_s,
        row.objects_per_s,
        row.ratio_to_limit,
        row.limit_sync_s,
        row.ratio_to_limit_sync,
        row.engine_cpu_s,
        row.rss_mb_peak,
      ])
        expect(figure, `${row.name} (${row.server_kind})`).toBeGreaterThan(0);
      // A batch's first objects go through the service once first, not counted; a single object's do not.
      if (row.objects > 1) expect(row.warm_up_objects, row.name).toBeGreaterThan(0);
      else expect(row.warm_up_objects, row.name).toBe(0);
      expect(row.warm_up_objects, row.name).toBeLessThan(row.objects);
      // Every object went through the download step (a retried step counts again).
      expect(row.steps.downloading?.count ?? 0, row.name).toBeGreaterThanOrEqual(expected.objects);
    }
  }, 120_000);

  it('writes the results file with the targets of every row', () => {
    const files = readdirSync(resultsDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-payload-quick\.json$/);
    const written = JSON.parse(readFileSync(join(resultsDir, files[0]!), 'utf8')) as PayloadProfileResult;
    expect(written.rows).toHaveLength(result.rows.length);
    expect(Object.keys(written.targets).sort()).toEqual(
      [
        // The service's store syncs (the default): held to the durable limit.
        'ratio_to_limit_sync big-file (keep-alive)',
        'ratio_to_limit_sync medium-files (keep-alive)',
        'ratio_to_limit_sync small-files (keep-alive)',
        'objects_per_s one-file-objects (keep-alive)',
        ...result.rows.map((r) => `rss_mb_peak ${r.name} (${r.server_kind})`),
      ].sort(),
    );
    for (const target of Object.values(written.targets)) expect(typeof target.met).toBe('boolean');
  });
});
