import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineProcess, type EngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { client, TOKEN } from './api-fixture.js';
import { openEvents, type SseConnection, type SseEvent } from './sse-client.js';

const chroot = useZkChroot();

const JOBS = 10_000;
const STUCK_CLIENTS = 100;
const MB = 2 ** 20;
/**
 * How far a client may fall behind here (`MRTQ_EVENTS_BUFFER_BYTES`), below the 8 MiB default so
 * that the stuck clients reach it early in the run (it sends about 12 MB) while the reading client
 * still takes the expansion's burst whole: 10,000 jobs announced in one turn, about 1.4 MB.
 */
const LIMIT = 4 * MB;
/**
 * How far the engine's heap (used, as sampled twice a second: live data and garbage not collected
 * yet) may rise above its level before the clients connected. What the stuck clients hold is
 * the log they share, at most LIMIT, and each its socket's own buffer; the rest is the engine's
 * own work on a 10,000-job batch between collections (+20 to +34 MB without clients, on a 2-core
 * machine). Without any limit the same run rose by 94 MB at 2,600 jobs and by 205 MB at 2,900,
 * and ran out of its 1 GB heap at about 5,500.
 */
const HEAP_GROWTH_BOUND = 150 * MB;
/** Everything here waits for a 10,000-job run on a busy machine: deadlines are generous. */
const RUN_MS = 480_000;

/**
 * A client that asks for `/events` over a real loopback connection and never reads a byte: what
 * the server sends piles up in the kernel's socket buffers, then in the server's own.
 */
function stuckClient(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.pause();
      socket.write(`GET /events HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${TOKEN}\r\n\r\n`);
      resolve(socket);
    });
    socket.pause();
    socket.once('error', reject);
  });
}

describe(`${STUCK_CLIENTS} clients of /events that never read, through a ${JOBS}-job run`, () => {
  let engine: EngineProcess;
  let base: string;
  let http: ReturnType<typeof client>;
  let reader: SseConnection | undefined;
  const stuck: Socket[] = [];

  /** `/metrics` of the engine: `value(sample)` reads one line, `mrtq_jobs{state="completed"}`. */
  const metrics = async () => {
    const res = await http.get<string>('/metrics');
    expect(res.status).toBe(200);
    const value = (sample: string): number | undefined => {
      const line = res.body.split('\n').find((l) => l.startsWith(`${sample} `));
      return line === undefined ? undefined : Number(line.slice(sample.length + 1));
    };
    return { value };
  };
  const heapUsed = async (): Promise<number> => (await metrics()).value('nodejs_heap_size_used_bytes') ?? 0;

  beforeAll(async () => {
    engine = await startEngineProcess(chroot.connectString(), ['--sweep', '0', '--limit', '32'], {
      MRTQ_API_TOKEN: TOKEN,
      MRTQ_EVENTS_BUFFER_BYTES: String(LIMIT),
    });
    base = /"http":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(engine.output())?.[1] ?? '';
    expect(base, engine.output()).not.toBe('');
    http = client(base);
  });
  afterAll(async () => {
    for (const socket of stuck) socket.destroy();
    reader?.close();
    engine?.signal('SIGTERM');
    await engine?.exited;
  });

  it(
    'disconnects and counts every one of them, keeps a reading client, and the heap stays bounded',
    async () => {
      const before = await heapUsed();
      reader = await openEvents(base, TOKEN);
      await reader.next((e) => e.event === 'ready', 30_000);
      for (let i = 0; i < STUCK_CLIENTS; i++) stuck.push(await stuckClient(base));
      await eventually(
        async () => (await metrics()).value('mrtq_events_clients'),
        (open) => open === STUCK_CLIENTS + 1,
        30_000,
      );

      const submitted = await http.post<{ bid: string }>('/batches', {
        profile: 'demo',
        submitter: 'stuck-clients',
        payloadUrl: `sim:${JOBS}`,
        type: 'object-manifest',
      });
      expect(submitted.status, submitted.text).toBe(201);
      const { bid } = submitted.body;
      let peak = before;
      let peakHeld = 0;
      // Polled, not awaited on /events: the point is what the stream does to the engine.
      await eventually(
        async () => {
          const now = await metrics();
          peak = Math.max(peak, now.value('nodejs_heap_size_used_bytes') ?? 0);
          peakHeld = Math.max(peakHeld, now.value('mrtq_events_held_bytes') ?? 0);
          expect(peakHeld).toBeLessThanOrEqual(LIMIT + 64 * 1024);
          expect(peak - before, `heap grew by ${Math.round((peak - before) / MB)} MB`).toBeLessThan(
            HEAP_GROWTH_BOUND,
          );
          return (await http.get<{ batch: { status: string } }>(`/batches/${bid}`)).body.batch.status;
        },
        (status) => status === 'completed',
        RUN_MS,
        500,
      );

      const after = await metrics();
      expect(after.value('mrtq_events_clients_dropped_total')).toBe(STUCK_CLIENTS);
      expect(after.value('mrtq_events_clients')).toBe(1);
      expect(after.value('mrtq_jobs{state="completed"}')).toBe(JOBS);
      // The client that reads was kept to the end, and saw every job complete (its last ones may
      // arrive after the batch's own transition: another watch).
      const data = (e: SseEvent) => e.data as { kind?: string; id?: string; to?: string };
      const completedJobs = (): number =>
        new Set(
          reader!.events
            .filter((e) => data(e).kind === 'job' && data(e).to === 'completed')
            .map((e) => data(e).id),
        ).size;
      await eventually(completedJobs, (n) => n === JOBS, 60_000);
      expect(engine.output().match(/event stream client not reading: disconnected/g)).toHaveLength(
        STUCK_CLIENTS,
      );
      console.info(
        `engine heap: ${Math.round(before / MB)} MB before, peak ${Math.round(peak / MB)} MB, ` +
          `events log peak ${Math.round(peakHeld / MB)} MB ` +
          `(bound +${HEAP_GROWTH_BOUND / MB} MB); ${STUCK_CLIENTS} stuck clients dropped`,
      );
    },
    RUN_MS + 120_000,
  );
});
