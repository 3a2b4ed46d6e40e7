import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Profile } from '../../../src/steps/ingest-contracts.js';
import { createEzidMinter, type EzidOptions } from '../../../src/steps/services/minter/ezid.js';
import { type MintRequest } from '../../../src/steps/services/minter/port.js';
import { createMinter } from '../../../src/steps/adapters.js';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { startEzidServer, type EzidServer } from '../../support/ezid-server.js';
import { closedPort } from '../../support/http-fixtures.js';

const signal = new AbortController().signal;
const SHOULDER = 'ark:/99999/fk4';
const CREDENTIALS = 'apitest:s3cr:et';
const FAST = { connectRetryMs: 5, mintRetryMs: 5, updateFallbackMs: 5 };

const profile = (over: Partial<Profile> = {}): Profile => ({
  name: 'merritt_demo',
  collection: 'demo',
  priority: 5,
  notifications: [],
  responseType: 'json',
  context: 'merritt_demo_context',
  ...over,
});

const request = (over: Partial<MintRequest> = {}): MintRequest => ({
  erc: { who: 'Doe, Jane', what: 'Maps: 1850\nsecond line', when: '2024' },
  localIds: ['loc-1'],
  profile: profile(),
  ...over,
});

describe('EZID minting (merritt-protocols.md §3, "Minting and binding the ARK")', () => {
  let ezid: EzidServer;
  beforeAll(async () => {
    ezid = await startEzidServer({ credentials: CREDENTIALS });
  });
  afterAll(() => ezid.close());
  beforeEach(() => void ezid.requests.splice(0));

  const minter = (over: Partial<EzidOptions> = {}) =>
    createEzidMinter({ url: ezid.shoulderUrl(SHOULDER), credentials: CREDENTIALS, ...FAST, ...over });

  it('mints with a text/plain ANVL body, Basic auth and %0A-separated ERC, and parses "success: ark"', async () => {
    const ark = await minter().mint(signal, request({ profile: profile({ ezidCoOwner: 'ucb_owner' }) }));
    expect(ark).toMatch(/^ark:\/99999\/fk4\d{7}$/);
    const [mint] = ezid.of('mint');
    expect(mint!.url).toBe('/shoulder/ark:/99999/fk4');
    expect(mint!.headers['content-type']).toMatch(/^text\/plain/);
    expect(mint!.headers.authorization).toBe(`Basic ${Buffer.from(CREDENTIALS).toString('base64')}`);
    // No `where: {ark}` and no `_target` yet: the ark is not known when minting.
    expect(mint!.body).toBe(
      'erc: who: Doe, Jane%0Awhat: Maps%3A 1850%0Asecond line%0Awhen: 2024%0Awhere: loc-1%0A\n' +
        'mrt.creator: merritt_demo_context\n\n_owner: ucb_owner\n',
    );
  });

  it('takes the credentials from user:pw@ in the URL when no setting gives them', async () => {
    const url = ezid.shoulderUrl(SHOULDER).replace('http://', 'http://apitest:s3cr%3Aet@');
    await createEzidMinter({ url, ...FAST }).mint(signal, request());
    expect(ezid.of('mint')[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(CREDENTIALS).toString('base64')}`,
    );
    const refused: unknown = await createEzidMinter({
      url: ezid.shoulderUrl(SHOULDER),
      ...FAST,
      mintRetries: 0,
    })
      .mint(signal, request())
      .catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(
      /answered 401 "error: unauthorized" \(check MRTQ_EZID_CREDENTIALS\)/,
    );
  });

  it('marks admin objects reserved and unexported', async () => {
    await minter().mint(signal, request({ profile: profile({ aggregate: 'MRT-collection' }) }));
    expect(ezid.of('mint')[0]!.body.endsWith('\n_status: reserved\n_export: no')).toBe(true);
  });

  it('updates the metadata at /id/{ark} with the ark and the twice-encoded _target', async () => {
    const m = minter({ targetUrl: 'https://merritt.example/' });
    const ark = await m.mint(signal, request());
    await m.update!(ark, request(), signal);
    const [update] = ezid.of('update');
    expect(update!.url).toBe(`/id/${ark}`);
    expect(update!.headers.authorization).toBeDefined();
    const encoded = encodeURIComponent(encodeURIComponent(ark));
    expect(update!.body).toBe(
      `erc: who: Doe, Jane%0Awhat: Maps%3A 1850%0Asecond line%0Awhen: 2024%0Awhere: ${ark.replace(':', '%3A')}%0Awhere: loc-1%0A\n` +
        `mrt.creator: merritt_demo_context\n_target: https://merritt.example/m/${encoded}\n\n`,
    );
    expect(ezid.metadata.get(ark)).toBe(update!.body);
    expect(ezid.of('put')).toHaveLength(0);
    // retainTargetURL: EZID keeps the target it has.
    await m.update!(ark, request({ retainTargetUrl: true }), signal);
    expect(ezid.of('update')[1]!.body).not.toContain('_target');
  });

  it('falls back to PUT …/id/{ark}?update_if_exists=yes when the update is not "success:"', async () => {
    const ark = 'ark:/99999/fk4given01';
    await minter().update!(ark, request(), signal);
    expect(ezid.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST /id/${ark}`,
      `PUT /id/${ark}?update_if_exists=yes`,
    ]);
    expect(ezid.requests[1]!.body).toBe(ezid.requests[0]!.body);
    expect(ezid.metadata.has(ark)).toBe(true);
  });

  it('fails the update naming the answer when the PUT fails too', async () => {
    ezid.failNext('put', { status: 500, body: 'error: internal server error' });
    const err: unknown = await minter().update!('ark:/99999/fk4nothere', request(), signal).catch(
      (e: unknown) => e,
    );
    expect(isOutputError(err, 'MINT_FAILED') && err.retryable).toBe(true);
    expect((err as Error).message).toMatch(/could not update ark:\/99999\/fk4nothere.*answered 500/);
  });

  it('tries a failed mint twice more, and succeeds when EZID recovers', async () => {
    ezid.failNext('mint', { status: 500, body: 'error: db' }, { status: 503, body: 'error: busy' });
    expect(await minter().mint(signal, request())).toMatch(/^ark:\/99999\/fk4/);
    expect(ezid.of('mint')).toHaveLength(3);
  });

  it('gives up after three mint answers of 400 and over, and stops early at an answer below 400', async () => {
    ezid.failNext('mint', ...Array.from({ length: 3 }, () => ({ status: 500, body: 'error: db' })));
    await expect(minter().mint(signal, request())).rejects.toThrow(/minted no ark: answered 500 "error: db"/);
    expect(ezid.of('mint')).toHaveLength(3);
    ezid.requests.splice(0);
    ezid.failNext('mint', { status: 400, body: 'error: x' }, { status: 200, body: 'error: y' });
    await expect(minter().mint(signal, request())).rejects.toThrow(/answered 200 "error: y"/);
    expect(ezid.of('mint')).toHaveLength(2);
  });

  it('sends a request three times while EZID cannot be reached', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/shoulder/${SHOULDER}`;
    const err: unknown = await createEzidMinter({ url, ...FAST })
      .mint(signal, request())
      .catch((e: unknown) => e);
    expect(isOutputError(err, 'MINT_FAILED') && err.retryable).toBe(true);
    expect((err as Error).message).toMatch(/unreachable after 3 attempts/);
  });
});

describe('which minter a job uses (docs/ingest.md, "Minter and local ids")', () => {
  let ezid: EzidServer;
  let dataDir: string;
  beforeAll(async () => {
    ezid = await startEzidServer();
  });
  afterAll(() => ezid.close());
  beforeEach(async () => {
    ezid.requests.splice(0);
    dataDir = await mkdtemp(join(tmpdir(), 'mrtq-ezid-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('refuses DOI profiles before asking any minter: Merritt no longer mints DOIs', async () => {
    const minter = createMinter({ dataDir, minter: { kind: 'http', url: ezid.shoulderUrl(SHOULDER) } });
    const err: unknown = await minter
      .mint(signal, request({ profile: profile({ identifierScheme: 'DOI' }) }))
      .catch((e: unknown) => e);
    expect(isOutputError(err, 'MINT_FAILED') && !err.retryable).toBe(true);
    expect((err as Error).message).toMatch(/^Merritt no longer supports DOI minting \(profile merritt_demo/);
    expect(ezid.requests).toHaveLength(0);
  });

  it("a merritt deployment mints at the profile's ObjectMinterURL; a standalone one mints locally", async () => {
    const p = profile({ minterUrl: ezid.shoulderUrl('ark:/13030/m5'), identifierScheme: 'ARK' });
    const merritt = createMinter({ dataDir, minter: { kind: 'local' }, deployment: 'merritt' });
    expect(await merritt.mint(signal, request({ profile: p }))).toMatch(/^ark:\/13030\/m5\d{7}$/);
    const standalone = createMinter({ dataDir, minter: { kind: 'local' }, deployment: 'standalone' });
    expect(await standalone.mint(signal, request({ profile: p }))).toMatch(/^ark:\/99999\/fk4/);
    await standalone.update!('ark:/99999/fk4x', request({ profile: p }), signal);
    expect(ezid.requests.map((r) => r.url)).toEqual(['/shoulder/ark:/13030/m5']);
    expect(await readdir(join(dataDir, 'minter'))).toHaveLength(1);
  });

  it("MRTQ_MINTER_URL wins over the profile's ObjectMinterURL", async () => {
    const p = profile({ minterUrl: ezid.shoulderUrl('ark:/13030/m5') });
    const minter = createMinter({
      dataDir,
      deployment: 'merritt',
      minter: { kind: 'http', url: ezid.shoulderUrl('ark:/99999/fk8') },
    });
    const ark = await minter.mint(signal, request({ profile: p }));
    expect(ark).toMatch(/^ark:\/99999\/fk8/);
    await minter.update!(ark, request({ profile: p }), signal);
    expect(ezid.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /shoulder/ark:/99999/fk8',
      `POST /id/${ark}`,
    ]);
  });
});
