import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import type { CliResult } from '../../support/run-cli.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { basicAuth, formOf, PASSWORD, post, startPoster, USER, type PosterServer } from './poster-fixture.js';

const chroot = useZkChroot();
const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'mrtq.js');
const UI_PASSWORD = 'ui-pässword: with a colon';
const VIEWER_PASSWORD = 'viewer-secret-42';

/** `mrtq …` as a real process, `input` on its stdin. */
function mrtq(args: string[], env: Record<string, string> = {}, input = ''): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ZK_CONNECT: '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin!.end(input);
  });
}

describe('mrtq credentials add/list/remove, taken by a running API without a restart', () => {
  let ctx: QueueContext;
  let server: PosterServer;
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-credentials-cli-'));
  const file = join(dir, 'credentials');
  let alice: string;
  const logs: string[] = [];
  const secrets: string[] = [UI_PASSWORD, VIEWER_PASSWORD, PASSWORD];
  const whoami = async (token: string) =>
    (await fetch(`${server.url}/whoami`, { headers: { authorization: `Bearer ${token}` } })).status;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    // The file is made by the command before the API starts; the fixture adds an MRTQ_BASIC_AUTH user.
    const added = await mrtq(['credentials', 'add', 'alice', '--role', 'operator', '--file', file]);
    expect(added, added.stderr).toMatchObject({ code: 0 });
    alice = added.stdout.trim();
    secrets.push(alice);
    const log = pino({ level: 'trace' }, { write: (line: string) => void logs.push(line) });
    server = await startPoster(ctx, { credentialsFile: file, token: undefined, log });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds a token printed once, whose hash alone is stored, and the running API takes it at once', async () => {
    expect(alice).toMatch(/^mrtq_[A-Za-z0-9_-]{43}$/);
    expect(await whoami(alice)).toBe(200);
    // A second token, through MRTQ_CREDENTIALS, while the API runs.
    const added = await mrtq(['credentials', 'add', 'ci', '--role', 'submit', '--collections', 'demo'], {
      MRTQ_CREDENTIALS: file,
    });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain("token credential 'ci' (role submit, collections demo) added to");
    const ci = added.stdout.trim();
    secrets.push(ci);
    const me = await fetch(`${server.url}/whoami`, { headers: { authorization: `Bearer ${ci}` } });
    expect(await me.json()).toEqual({ name: 'ci', role: 'submit', collections: ['demo'], via: 'api' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('adds basic users from a password on stdin; they submit through /poster as their role and collections allow', async () => {
    for (const [name, role, password] of [
      ['ui', 'submit', UI_PASSWORD],
      ['viewer', 'read', VIEWER_PASSWORD],
    ] as const) {
      const added = await mrtq(
        ['credentials', 'add', name, '--role', role, '--basic', '--collections', 'demo', '--file', file],
        {},
        `${password}\n`,
      );
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toBe('');
    }
    const form = (profile: string) => formOf({ profile, submitter: 's' }, { name: 'a.txt', content: 'a' });
    const json = { accept: 'application/json' };
    const taken = await post(`${server.url}/poster/submit`, form('demo'), {
      authorization: basicAuth('ui', UI_PASSWORD),
    });
    expect(taken.status, taken.text).toBe(200);
    const otherCollection = await post(`${server.url}/poster/submit`, form('other'), {
      authorization: basicAuth('ui', UI_PASSWORD),
      ...json,
    });
    expect(otherCollection.status).toBe(403);
    expect(otherCollection.text).toContain(
      "submit on collection other: credential 'ui' is limited to collection demo",
    );
    const reader = await post(`${server.url}/poster/submit`, form('demo'), {
      authorization: basicAuth('viewer', VIEWER_PASSWORD),
      ...json,
    });
    expect(reader.status).toBe(403);
    expect(reader.text).toContain('USER_NOT_AUTHORIZED');
    expect(reader.text).toContain("submit needs role submit; credential 'viewer' has role read");
    // MRTQ_BASIC_AUTH's user (no role in its file) still submits.
    const legacy = await post(`${server.url}/poster/submit`, form('demo'), {
      authorization: basicAuth(USER, PASSWORD),
    });
    expect(legacy.status, legacy.text).toBe(200);
  });

  it('lists names, kinds, roles and collections, and never a secret or hash', async () => {
    const listed = await mrtq(['credentials', 'list', '--file', file]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n').map((line) => line.split(/\s+/).filter(Boolean))).toEqual([
      ['NAME', 'KIND', 'ROLE', 'COLLECTIONS'],
      ['alice', 'token', 'operator', '(all)'],
      ['ci', 'token', 'submit', 'demo'],
      ['ui', 'basic', 'submit', 'demo'],
      ['viewer', 'basic', 'read', 'demo'],
      [],
    ]);
    const json = await mrtq(['credentials', 'list', '--json', '--file', file]);
    expect(JSON.parse(json.stdout.split('\n')[0]!)).toEqual({
      name: 'alice',
      kind: 'token',
      role: 'operator',
    });
    for (const output of [listed.stdout, json.stdout]) expect(output).not.toMatch(/sha256|scrypt/);
  });

  it('removes a credential: the running API refuses it from the next request; a taken or unknown name fails', async () => {
    const removed = await mrtq(['credentials', 'remove', 'alice', '--file', file]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await whoami(alice)).toBe(401);
    expect((await mrtq(['credentials', 'remove', 'alice', '--file', file])).code).toBe(7);
    const taken = await mrtq(['credentials', 'add', 'ci', '--role', 'read', '--file', file]);
    expect(taken).toMatchObject({ code: 2, stdout: '' });
    expect(taken.stderr).toContain('already has a credential "ci"');
    const noFile = await mrtq(['credentials', 'list'], { MRTQ_CREDENTIALS: '' });
    expect(noFile.code).toBe(2);
  });

  it('keeps no secret in clear in the file, and logs none', () => {
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^ci:token:submit:demo:sha256\$[0-9a-f]{64}$/m);
    expect(text).toMatch(/^ui:basic:submit:demo:scrypt\$/m);
    const logged = logs.join('');
    expect(logged).toContain('Merritt submission queued');
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(logged).not.toContain(secret);
    }
  });
});
