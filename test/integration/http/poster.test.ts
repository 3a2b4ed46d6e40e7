import { readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { batchUuidPath } from '../../../src/queue/tree/paths.js';
import { pauseQueue, resumeQueue } from '../../../src/queue/locks/queue-pause.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { TOKEN } from './api-fixture.js';
import {
  basicAuth,
  childTexts,
  formOf,
  parseXml,
  post,
  startPoster,
  type PosterServer,
  type XmlElement,
} from './poster-fixture.js';

const chroot = useZkChroot();

const UUID_BID = /^bid-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MERRITT_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
const BATCH_NS = 'http://uc3.cdlib.org/ontology/mrt/ingest/batch';
const EXC_NS = 'http://uc3.cdlib.org/ontology/mrt/core/exc';

/** The object manifest mrt-ingest-ruby's `IObject#mk_manifest` writes. */
const RUBY_MANIFEST =
  '#%checkm_0.7\n' +
  '#%profile http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest\n' +
  '#%prefix | mrt: | http://uc3.cdlib.org/ontology/mom#\n' +
  '#%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#\n' +
  '#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | mrt:mimeType\n' +
  'http://example.org/a.txt | md5 | 0cc175b9c0f1b6a831c399e269772661 | 1 | | a.txt | text/plain\n' +
  '#%EOF\n';

const BATCH_MANIFEST =
  '#%checkm_0.7\n' +
  '#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-batch-manifest\n' +
  '#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | mrt:primaryIdentifier | mrt:localIdentifier | mrt:creator | mrt:title | mrt:date\n' +
  'http://example.org/one.checkm | | | | | one.checkm | | loc-1 | Ann | One | 2020\n' +
  '#%eof\n';

describe("Merritt's front door: POST /poster/{submit,add,update}", () => {
  let ctx: QueueContext;
  let server: PosterServer;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    server = await startPoster(ctx);
  });
  afterAll(() => server?.close());

  /** The batch an answer names: its bat:batchID is the batch's uuid (`/batch-uuids/<uuid>`). */
  const batchOf = async (uuid: string) =>
    loadBatch(ctx, (await ctx.zk.getData(batchUuidPath(uuid))).data!.toString('utf8'));
  const payloadOf = (url: string) => readFileSync(fileURLToPath(url));

  it("takes the UI's post (mrt-dashboard ingest_mixin.rb): every field, responseForm=xml, basic auth; answers bat:batchState", async () => {
    const content = 'the object itself\n';
    // The dashboard posts the Rails upload's tempfile (its own name) with the real name in `filename`.
    const form = formOf(
      {
        creator: 'Ann Author',
        date: '2024-05-01',
        digestType: 'sha-256',
        digestValue: createHash('sha256').update(content).digest('hex'),
        filename: 'report final.txt',
        localIdentifier: 'loc-1; loc-2',
        notification: 'someone@example.org',
        notificationFormat: 'json',
        primaryIdentifier: 'ark:/13030/m5ui',
        profile: 'demo',
        note: 'a note\nover two lines',
        responseForm: 'xml',
        'DataCite.resourceType': 'Dataset',
        'DC.contributor': 'Carl',
        'DC.title': 'Report',
        'DC.type': 'Text',
        submitter: 'uiuser/UI User',
        title: 'The final report',
        retainTargetURL: 'true',
        type: 'file',
      },
      { name: 'RackMultipart20260101-7-1x2y3z.txt', content },
    );
    const answer = await post(`${server.url}/poster/submit/`, form, { authorization: basicAuth() });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    // What the dashboard reads: //bat:batchState/bat:batchID and the bat:jobStates.
    const doc = parseXml(answer.text);
    expect(doc.name).toBe('bat:batchState');
    expect(doc.attributes['xmlns:bat']).toBe(BATCH_NS);
    const state = childTexts(doc);
    expect(state['bat:batchID']).toMatch(UUID_BID);
    expect(state).toMatchObject({
      'bat:packageName': 'report final.txt',
      'bat:userAgent': 'uiuser/UI User',
      'bat:batchStatus': 'QUEUED',
    });
    expect(state['bat:submissionDate']).toMatch(MERRITT_DATE);
    expect(doc.children.filter((c: XmlElement) => c.name === 'bat:jobStates')).toHaveLength(1);
    expect(answer.headers.get('bid')).toBe(state['bat:batchID']);

    const uuid = state['bat:batchID']!;
    const batch = await batchOf(uuid);
    expect(answer.headers.get('location')).toBe(`/batches/${batch.batchId}`);
    expect(batch.status).toBe('pending');
    const { payload_url, submissionDate, ...keys } = batch.submission;
    expect(keys).toEqual({
      profile_name: 'demo',
      submitter: 'uiuser/UI User',
      type: 'file',
      submission_mode: 'add',
      batchID: uuid,
      collection: 'demo',
      erc_who: 'Ann Author',
      erc_what: 'The final report',
      erc_when: '2024-05-01',
      local_id: 'loc-1; loc-2',
      primary_id: 'ark:/13030/m5ui',
      file_name: 'report final.txt',
      digest_type: 'sha-256',
      digest_value: createHash('sha256').update(content).digest('hex'),
      // FormData sends line breaks as CRLF, as browsers do; the note is kept as it came.
      note: 'a note\r\nover two lines',
      notification: 'someone@example.org',
      notification_format: 'json',
      response_form: 'xml',
      retain_target_url: true,
      dc: { contributor: 'Carl', title: 'Report', type: 'Text' },
      datacite_resource_type: 'Dataset',
    });
    expect(new Date(submissionDate!).getTime()).toBeGreaterThan(Date.now() - 60_000);
    // The upload is a file:// payload inside the upload directory, named by its digest, as sent.
    const path = fileURLToPath(payload_url);
    expect(dirname(path)).toBe(server.uploadDir);
    const digest = createHash('sha256').update(content).digest('hex').slice(0, 32);
    expect(basename(path)).toBe(`${uuid}.${digest}-report_final.txt`);
    expect(payloadOf(payload_url).toString()).toBe(content);
    // No temporary file is left behind.
    expect(readdirSync(server.uploadDir).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it("takes the Ruby client's post (mrt-ingest-ruby Request#mk_args): a manifest, responseForm=json; answers bat:batchState as JSON", async () => {
    const form = formOf(
      {
        creator: 'Erik',
        date: '2011-08-31',
        digestType: 'md5',
        digestValue: createHash('md5').update(RUBY_MANIFEST).digest('hex'),
        filename: 'mrt-ingest20260101-42-abc123',
        localIdentifier: 'ruby-1',
        profile: 'demo',
        responseForm: 'json',
        submitter: 'egh/Erik Hetzner',
        title: 'From Ruby',
        type: 'object-manifest',
      },
      { name: 'mrt-ingest20260101-42-abc123', content: RUBY_MANIFEST },
    );
    const answer = await post(`${server.url}/poster/submit`, form, { authorization: basicAuth() });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // Mrt::Ingest::Response: JSON.parse(data)['bat:batchState'], then bat:batchID, bat:userAgent, bat:submissionDate.
    const parsed = (JSON.parse(answer.text) as Record<string, Record<string, unknown>>)['bat:batchState']!;
    expect(parsed['bat:batchID']).toMatch(UUID_BID);
    expect(parsed['bat:userAgent']).toBe('egh/Erik Hetzner');
    expect(parsed['bat:submissionDate']).toMatch(MERRITT_DATE);
    expect(Number.isNaN(Date.parse(parsed['bat:submissionDate'] as string))).toBe(false);
    expect(parsed).toMatchObject({ 'xmlns:bat': BATCH_NS, 'bat:batchStatus': 'QUEUED', 'bat:jobStates': '' });
    const batch = await batchOf(parsed['bat:batchID'] as string);
    expect(batch.submission).toMatchObject({
      type: 'object-manifest',
      submitter: 'egh/Erik Hetzner',
      local_id: 'ruby-1',
      file_name: 'mrt-ingest20260101-42-abc123',
      digest_type: 'md5',
      response_form: 'json',
    });
    expect(payloadOf(batch.submission.payload_url).toString()).toBe(RUBY_MANIFEST);
  });

  it('guesses the type of an upload without one, as mrt-ingest does: manifest profile, container name, else a file', async () => {
    const submitWith = async (name: string, content: string) => {
      const form = formOf({ profile: 'demo', submitter: 'guesser', responseForm: 'json' }, { name, content });
      const answer = await post(`${server.url}/poster/add`, form, { authorization: basicAuth() });
      expect(answer.status, answer.text).toBe(200);
      const uuid = (JSON.parse(answer.text) as Record<string, Record<string, string>>)['bat:batchState']![
        'bat:batchID'
      ]!;
      return (await batchOf(uuid)).submission;
    };
    expect((await submitWith('batch.checkm', BATCH_MANIFEST)).type).toBe('batch-manifest');
    expect((await submitWith('object.checkm', RUBY_MANIFEST)).type).toBe('object-manifest');
    expect((await submitWith('photos.zip', 'PK not really')).type).toBe('container');
    expect((await submitWith('notes.txt', 'just text')).type).toBe('file');
  });

  it('makes an update of the object the path names (/poster/update/ark/13030/m5abc)', async () => {
    const form = formOf({ profile: 'demo', submitter: 'updater' }, { name: 'v2.txt', content: 'version 2' });
    const answer = await post(`${server.url}/poster/update/ark/13030/m5abc`, form, {
      authorization: basicAuth(),
    });
    expect(answer.status, answer.text).toBe(200);
    const uuid = childTexts(parseXml(answer.text))['bat:batchID']!;
    expect((await batchOf(uuid)).submission).toMatchObject({
      submission_mode: 'update',
      primary_id: 'ark:/13030/m5abc',
      type: 'file',
      file_name: 'v2.txt',
    });
    // The form's primaryIdentifier names the object as well; a local id does too.
    const byField = await post(
      `${server.url}/poster/update`,
      formOf({ profile: 'demo', submitter: 'u', localIdentifier: 'loc-9' }, { name: 'v3.txt', content: '3' }),
      { authorization: basicAuth() },
    );
    expect(byField.status, byField.text).toBe(200);
  });

  it('answers errors as exc: documents with their status, in the form asked for', async () => {
    const auth = { authorization: basicAuth() };
    const batchesBefore = (await ctx.zk.getChildren('/batches')).length;
    const filesBefore = readdirSync(server.uploadDir);
    const excOf = (text: string): Record<string, string> => {
      const doc = parseXml(text);
      expect(doc.attributes['xmlns:exc']).toBe(EXC_NS);
      return { root: doc.name, ...childTexts(doc) };
    };
    // No file: mrt-ingest's own message, REQUEST_INVALID (400), in XML (the default form).
    const noFile = await post(
      `${server.url}/poster/submit`,
      formOf({ profile: 'demo', submitter: 's' }),
      auth,
    );
    expect(noFile.status).toBe(400);
    expect(noFile.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(excOf(noFile.text)).toMatchObject({
      root: 'exc:tException.REQUEST_INVALID',
      'exc:statusName': 'REQUEST_INVALID',
      'exc:statusDescription': 'User/request supplied required parm is missing or invalid',
      'exc:hTTPResponse': '400',
      'exc:detail': 'Input file not found. Likely cause is failure to specify input file.',
    });
    expect(excOf(noFile.text)['exc:error']).toContain('Input file not found');
    // A browser form with no file chosen sends an empty file part: the same answer.
    const emptyPart = await post(
      `${server.url}/poster/submit`,
      formOf({ profile: 'demo', submitter: 's' }, { name: '', content: '' }),
      auth,
    );
    expect(emptyPart.status).toBe(400);

    // An unknown profile: INVALID_OR_MISSING_PARM, 500 as mrt-ingest answers it, here in JSON.
    const unknown = await post(
      `${server.url}/poster/submit`,
      formOf({ profile: 'nope', submitter: 's', responseForm: 'json' }, { name: 'a.txt', content: 'a' }),
      auth,
    );
    expect(unknown.status).toBe(500);
    const unknownExc = (JSON.parse(unknown.text) as Record<string, Record<string, unknown>>)[
      'exc:tException.INVALID_OR_MISSING_PARM'
    ]!;
    expect(unknownExc).toMatchObject({
      'exc:statusName': 'INVALID_OR_MISSING_PARM',
      'exc:hTTPResponse': 500,
    });
    expect(unknownExc['exc:detail']).toContain('"nope"');

    // A type that names no kind: 400, here in ANVL.
    const badType = await post(
      `${server.url}/poster/submit`,
      formOf(
        { profile: 'demo', submitter: 's', type: 'zip', responseForm: 'anvl' },
        { name: 'a.zip', content: 'a' },
      ),
      auth,
    );
    expect(badType.status).toBe(400);
    expect(badType.headers.get('content-type')).toBe('text/x-anvl; charset=utf-8');
    expect(badType.text).toContain('statusName: REQUEST_INVALID\n');
    expect(badType.text).toMatch(/^detail: type "zip" names no submission type/m);

    // An update that names no object.
    const anonymousUpdate = await post(
      `${server.url}/poster/update`,
      formOf({ profile: 'demo', submitter: 's' }, { name: 'a.txt', content: 'a' }),
      auth,
    );
    expect(anonymousUpdate.status).toBe(400);
    expect(excOf(anonymousUpdate.text)['exc:detail']).toMatch(/an update names the object it updates/);

    // Not multipart.
    const json = await post(`${server.url}/poster/submit`, '{"profile":"demo"}', {
      ...auth,
      'content-type': 'application/json',
    });
    expect(json.status).toBe(415);
    expect(excOf(json.text)['exc:statusName']).toBe('REQUEST_INVALID');

    // A form this server does not write: refused (501) before anything is queued, in XML.
    const zip = await post(
      `${server.url}/poster/submit`,
      formOf({ profile: 'demo', submitter: 's', responseForm: 'zip' }, { name: 'a.txt', content: 'a' }),
      auth,
    );
    expect(zip.status).toBe(501);
    expect(excOf(zip.text)['exc:statusName']).toBe('REQUEST_ELEMENT_UNSUPPORTED');

    // Nothing of the refused requests was queued or stays in the upload directory.
    expect(await ctx.zk.getChildren('/batches')).toHaveLength(batchesBefore);
    expect(readdirSync(server.uploadDir), JSON.stringify(filesBefore)).toHaveLength(filesBefore.length);
  });

  it('refuses bad or missing credentials (401 with challenges), and takes the bearer token too', async () => {
    const form = () => formOf({ profile: 'demo', submitter: 's' }, { name: 'a.txt', content: 'a' });
    const wrong = await post(`${server.url}/poster/submit`, form(), {
      authorization: basicAuth('merritt-ui', 'wrong'),
      accept: 'application/json',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('Basic realm="mrtq"');
    expect(wrong.headers.get('www-authenticate')).toContain('Bearer realm="mrtq"');
    const refused = (JSON.parse(wrong.text) as Record<string, Record<string, unknown>>)[
      'exc:tException.USER_NOT_AUTHENTICATED'
    ]!;
    expect(refused).toMatchObject({
      'exc:statusDescription': 'User not authenticated',
      'exc:hTTPResponse': 401,
    });
    expect(
      (await post(`${server.url}/poster/submit`, form(), { authorization: basicAuth('nobody') })).status,
    ).toBe(401);
    expect((await post(`${server.url}/poster/submit`, form())).status).toBe(401);
    expect((await post(`${server.url}/poster/submit`, form(), { authorization: 'Bearer nope' })).status).toBe(
      401,
    );
    const bearer = await post(`${server.url}/poster/submit`, form(), { authorization: `Bearer ${TOKEN}` });
    expect(bearer.status, bearer.text).toBe(200);
  });

  it('GET /state and /help answer ing:ingestServiceState (?t=), frozen while the ingest queue is paused', async () => {
    const state = async (path: string) => {
      const res = await fetch(`${server.url}${path}`);
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    };
    const json = await state('/state?t=json');
    expect(json.type).toBe('application/json; charset=utf-8');
    const service = (JSON.parse(json.text) as Record<string, Record<string, unknown>>)[
      'ing:ingestServiceState'
    ]!;
    expect(service['ing:submissionState']).toBe('thawed');
    await pauseQueue(ctx, 'ingest');
    try {
      const help = parseXml((await state('/help')).text);
      expect(help.name).toBe('ing:ingestServiceState');
      expect(childTexts(help)['ing:submissionState']).toBe('frozen');
      expect(childTexts(parseXml((await state('/poster/state?t=xml')).text))['ing:submissionState']).toBe(
        'frozen',
      );
    } finally {
      await resumeQueue(ctx, 'ingest');
    }
    expect((await state('/state?t=anvl')).text).toContain('submissionState: thawed\n');
    const zip = await state('/state?t=zip');
    expect(zip.status).toBe(501);
    expect(parseXml(zip.text).name).toBe('exc:tException.REQUEST_ELEMENT_UNSUPPORTED');
  });
});

describe('the front door without credentials or uploads configured', () => {
  let ctx: QueueContext;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('is refused (403) with neither basic credentials nor a token, as every mutating route is', async () => {
    const server = await startPoster(ctx, { token: undefined, basicAuthFile: undefined });
    try {
      const answer = await post(
        `${server.url}/poster/submit`,
        formOf({ profile: 'demo', submitter: 's' }, { name: 'a.txt', content: 'a' }),
      );
      expect(answer.status).toBe(403);
      const exc = childTexts(parseXml(answer.text));
      expect(exc['exc:statusName']).toBe('USER_NOT_AUTHORIZED');
      expect(exc['exc:detail']).toContain('MRTQ_BASIC_AUTH');
    } finally {
      await server.close();
    }
  });

  it('answers an upload above the limit with 413 and keeps nothing of it', async () => {
    const server = await startPoster(ctx, { uploadMaxBytes: 1024 });
    try {
      const form = formOf(
        { profile: 'demo', submitter: 's' },
        { name: 'big.bin', content: Buffer.alloc(1025, 7) },
      );
      const answer = await post(`${server.url}/poster/submit`, form, { authorization: basicAuth() });
      expect(answer.status).toBe(413);
      expect(childTexts(parseXml(answer.text))['exc:detail']).toContain('MRTQ_UPLOAD_MAX_BYTES');
      expect(readdirSync(server.uploadDir)).toEqual([]);
      const fits = formOf(
        { profile: 'demo', submitter: 's' },
        { name: 'ok.bin', content: Buffer.alloc(1024, 7) },
      );
      expect((await post(`${server.url}/poster/submit`, fits, { authorization: basicAuth() })).status).toBe(
        200,
      );
    } finally {
      await server.close();
    }
  });
});
