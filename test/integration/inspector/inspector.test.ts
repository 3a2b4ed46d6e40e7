import { createServer, type Server } from 'node:net';
import { WebSocket } from 'ws';
import { createActor, fromPromise, waitFor } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import {
  jobMachine,
  type DownloadOutput,
  type EstimateOutput,
  type JobStepInput,
  type ProvisionOutput,
} from '../../../machines/index.js';
import { startInspector, type RunningInspector } from '../../../src/inspect/index.js';
import { freePort } from '../../../src/zk-server/free-port.js';
import { MERRITT_HAPPY_PATH } from '../../support/lifecycle-paths.js';

interface Message {
  type: string;
  name?: string;
  sessionId?: string;
  event?: { type: string };
  snapshot?: { value?: unknown; context?: Record<string, unknown> };
}

const steps = {
  estimate: fromPromise<EstimateOutput, JobStepInput>(() => Promise.resolve({ spaceNeeded: 10 })),
  provision: fromPromise<ProvisionOutput, JobStepInput>(() => Promise.resolve({ hasSpace: true })),
  download: fromPromise<DownloadOutput, JobStepInput>(() => Promise.resolve({})),
  process: fromPromise<void, JobStepInput>(() => Promise.resolve()),
  store: fromPromise<void, JobStepInput>(() => Promise.resolve()),
  record: fromPromise<void, JobStepInput>(() => Promise.resolve()),
  notify: fromPromise<void, JobStepInput>(() => Promise.resolve()),
};

/** A plain WebSocket client of the relay, as the browser page is, collecting what it receives. */
async function listen(url: string): Promise<{ messages: Message[]; socket: WebSocket }> {
  const socket = new WebSocket(url);
  const messages: Message[] = [];
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as Message));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { messages, socket };
}

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function runJob(inspector: RunningInspector): Promise<void> {
  const actor = createActor(jobMachine.provide({ actors: steps }), {
    input: { jobId: 'jid0000000042', batchId: 'bid0000000001' },
    inspect: inspector.inspect,
  }).start();
  actor.send({ type: 'job.acquired' });
  await waitFor(actor, (s) => s.matches('completed'));
}

const jobValues = (messages: Message[]) =>
  messages
    .filter((m) => m.type === '@xstate.snapshot' && m.snapshot?.context?.jobId === 'jid0000000042')
    .map((m) => m.snapshot?.value);

describe('the Stately inspector relay', () => {
  let inspector: RunningInspector | undefined;
  const sockets: WebSocket[] = [];

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await inspector?.stop();
    inspector = undefined;
  });

  it('carries @xstate.actor, @xstate.event and @xstate.snapshot messages of a job stepping through its states', async () => {
    inspector = await startInspector({ port: await freePort() });
    const { messages, socket } = await listen(inspector.relayUrl);
    sockets.push(socket);

    await runJob(inspector);
    await until(() => jobValues(messages).includes('completed'), 'the completed snapshot');

    const jobActor = messages.find((m) => m.type === '@xstate.actor' && m.name === 'job');
    expect(jobActor?.sessionId).toEqual(expect.any(String));
    const events = messages.filter((m) => m.type === '@xstate.event' && m.sessionId === jobActor?.sessionId);
    expect(events.map((m) => m.event?.type)).toContain('job.acquired');
    expect(jobValues(messages)).toEqual(MERRITT_HAPPY_PATH);
    // Each step is an actor of its own, child of the job.
    const steps = messages.filter((m) => m.type === '@xstate.actor' && m.name !== 'job').map((m) => m.name);
    expect(steps).toEqual(['estimate', 'provision', 'download', 'process', 'store', 'record', 'notify']);
  });

  it('replays the run to a page that connects after it', async () => {
    inspector = await startInspector({ port: await freePort() });
    await runJob(inspector);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { messages, socket } = await listen(inspector.relayUrl);
    sockets.push(socket);
    await until(() => jobValues(messages).includes('completed'), 'the replayed run');
    expect(messages.some((m) => m.type === '@xstate.actor' && m.name === 'job')).toBe(true);
  });

  it('serves the page that frames the inspector at the printed URL, without internet', async () => {
    const port = await freePort();
    inspector = await startInspector({ port });
    expect(inspector.url).toBe(`http://127.0.0.1:${port}`);
    const page = await fetch(inspector.url).then((response) => response.text());
    expect(page).toContain('<iframe');
    expect(page).toContain(`ws://localhost:${port}`);
  });

  it('refuses a port that is already taken, saying so', async () => {
    const port = await freePort();
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(port, resolve));
    try {
      await expect(startInspector({ port })).rejects.toThrow(`inspector port ${port} is already in use`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('stops cleanly: the relay no longer accepts connections', async () => {
    inspector = await startInspector({ port: await freePort() });
    const { relayUrl } = inspector;
    await inspector.stop();
    inspector = undefined;
    await expect(listen(relayUrl)).rejects.toThrow();
  });
});
