import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { JobRecord } from '../../../src/queue/jobs/load.js';
import type { Submission } from '../../../src/queue/tree/records.js';
import { loadProfiles } from '../../../src/steps/formats/profiles/profiles.js';
import { objectDir } from '../../../src/steps/services/storage/layout.js';
import { basicAuth, formOf, post, startPoster, type PosterServer } from '../http/poster-fixture.js';
import { batchJobRecords, batchSettled } from '../../support/batch-settled.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { startIngestEngine, type IngestEngine } from '../../support/ingest-engine.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { startPythonHttpServer, type PythonHttpServer } from '../../support/python-http-server.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// Submissions exactly as Merritt's depositors make them, through the real ingest steps:
// the sample manifests Merritt's UI offers (CDLUC3/mrt-dashboard public/samples/manifests, CRLF,
// `#%` directives, rows shorter than `#%fields`) with the sample files they name, served by
// `python3 -m http.server` (HTTP/1.0: every connection closed after its response); and an object
// as Merritt's Ruby client (CDLUC3/mrt-ingest-ruby) writes it, with its mrt-erc.txt component,
// served by a keep-alive server. Only the host of the samples' URLs is changed, to loopback.

const chroot = useZkChroot();
const SAMPLES = join(import.meta.dirname, '../../fixtures/merritt-samples');
const md5 = (data: Buffer): string => createHash('md5').update(data).digest('hex');

describe("Merritt's own submissions, unchanged", () => {
  let dir: string;
  let python: PythonHttpServer;
  let http: HttpFixture;
  let ingest: IngestEngine | undefined;
  let ctx: QueueContext;
  let dataDir: string;
  let poster: PosterServer;

  /** The sample manifest `name` as Merritt's UI offers it, its URLs on the loopback server. */
  const sampleManifestUrl = (name: string): string => `/samples/manifests/${name}.checkm`;

  const submit = async (payloadUrl: string, extra: Partial<Submission>): Promise<string> =>
    (
      await createBatch(ctx, {
        profile_name: 'merritt',
        submitter: 'depositor',
        payload_url: payloadUrl,
        type: '',
        ...extra,
      })
    ).bid;
  const finished = (bid: string) => batchSettled(ctx, bid, 120_000);
  const jobsOf = (bid: string): Promise<JobRecord[]> => batchJobRecords(ctx, bid);
  /** The stored files of a job's object (first version), by path under its version directory. */
  const storedFile = (job: JobRecord, path: string): Buffer =>
    readFileSync(join(objectDir(dataDir, job.identifiers!.primary_id), 'v1', path));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mrtq-merritt-'));
    const site = join(dir, 'site');
    mkdirSync(site);
    cpSync(SAMPLES, join(site, 'samples'), { recursive: true });
    python = await startPythonHttpServer(site);
    // The manifests name http://merritt.cdlib.org/samples/…: only that host becomes the loopback server.
    for (const name of readdirSync(join(site, 'samples', 'manifests'))) {
      const path = join(site, 'samples', 'manifests', name);
      const text = readFileSync(path, 'latin1').replaceAll('http://merritt.cdlib.org', python.url(''));
      writeFileSync(path, text, 'latin1');
    }
    http = await startHttpFixture();
    const settings = testIngestSettings(dir);
    dataDir = settings.dataDir;
    ingest = await startIngestEngine(chroot, settings, {
      merritt: 'collection: merritt\npriority: 5\nresponseType: json\n',
    });
    ctx = ingest.ctx;
    // Merritt's front door on the same queue, its uploads inside the roots the engine fetches from.
    poster = await startPoster(ctx, {
      profiles: await loadProfiles(settings.profilesDir),
      uploadDir: join(settings.fetch.roots[0]!, 'uploads'),
    });
  });
  afterAll(async () => {
    await ingest?.stop();
    await poster?.close();
    await python?.close();
    await http?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the UI's sample object manifest (CRLF, md5, short rows) stores its files byte for byte", async () => {
    const bid = await submit(python.url(sampleManifestUrl('4blocks')), { type: 'object-manifest' });
    expect(await finished(bid)).toMatchObject({ status: 'completed', jobCount: 1 });
    const [job] = await jobsOf(bid);
    for (const name of ['4blocks.jpg', '4blocks.txt'])
      expect(md5(storedFile(job!, `producer/${name}`))).toBe(md5(readFileSync(join(SAMPLES, name))));
  });

  it("the UI's sample batch of manifests: one object per row, with the row's creator, title and date", async () => {
    const bid = await submit(python.url(sampleManifestUrl('sampleBatchOfManifests')), {
      type: 'batch-manifest',
    });
    expect(await finished(bid)).toMatchObject({ status: 'completed', jobCount: 3 });
    const jobs = await jobsOf(bid);
    expect(jobs.map((j) => j.metadata)).toEqual([
      { erc_who: 'Tracy Seneca', erc_when: '2009-09-01T00:00:00' },
      { erc_who: 'Tracy Seneca', erc_what: 'Motel Capri - manifest style', erc_when: '2009-09-01T00:00:00' },
      {
        erc_who: 'Tracy Seneca',
        erc_what: 'If This Bell Rings Call 911 - manifest style',
        erc_when: '2009-09-01T00:00:00',
      },
    ]);
    for (const name of ['bigHunt2.jpg', 'bigHunt3.jpg', 'bigHunt.txt'])
      expect(storedFile(jobs[0]!, `producer/${name}`)).toEqual(readFileSync(join(SAMPLES, name)));
    expect(
      readFileSync(
        join(objectDir(dataDir, jobs[1]!.identifiers!.primary_id), 'v1', 'system', 'mrt-erc.txt'),
        'utf8',
      ),
    ).toContain('what: Motel Capri - manifest style');
  });

  it("the UI's sample batch of containers: each zip unpacked into its own object, entry for entry", async () => {
    const bid = await submit(python.url(sampleManifestUrl('sampleBatchOfContainers')), {
      type: 'container-batch-manifest',
    });
    expect(await finished(bid)).toMatchObject({ status: 'completed', jobCount: 3 });
    const jobs = await jobsOf(bid);
    const zips = ['huskyChicken.zip', 'outdoorStore.zip', 'souvenirs.zip'];
    for (const [i, zip] of zips.entries()) {
      const archive = join(SAMPLES, zip);
      const names = execFileSync('unzip', ['-Z1', archive], { encoding: 'utf8' })
        .split('\n')
        .filter((n) => n !== '' && !n.endsWith('/'));
      expect(names.length).toBeGreaterThan(0);
      for (const name of names)
        expect(storedFile(jobs[i]!, `producer/${name}`)).toEqual(
          execFileSync('unzip', ['-p', archive, name]),
        );
    }
    expect(jobs[1]!.metadata).toEqual({ erc_what: 'The Outdoor Store, Portland OR' });
  });

  it("the UI's sample batch of files, submitted without a type: guessed, one object per file", async () => {
    const bid = await submit(python.url(sampleManifestUrl('sampleBatchOfFiles')), {});
    expect(await finished(bid)).toMatchObject({ status: 'completed', jobCount: 3 });
    const jobs = await jobsOf(bid);
    expect(jobs.map((j) => j.configuration.payload_type)).toEqual(['file', 'file', 'file']);
    for (const [i, name] of ['goldenDragon.jpg', 'tumbleBug.jpg', 'generalDrapery.jpg'].entries())
      expect(storedFile(jobs[i]!, `producer/${name}`)).toEqual(readFileSync(join(SAMPLES, name)));
    expect(jobs[0]!.metadata?.erc_what).toBe('Golden Dragon Restaurant Sign');
  });

  it("an object as Merritt's Ruby client sends it: its mrt-erc.txt sets who/what/when and the local ids", async () => {
    // Component rows and the manifest exactly as mrt-ingest-ruby's Component#to_manifest_entry and
    // IObject#mk_manifest write them (OneTimeServer URLs are temp names without an extension).
    const photo = readFileSync(join(SAMPLES, 'call911.jpg'));
    const erc = 'erc:\nwho: Doe, Jane\nwhat: A Ruby deposit\nwhen: 2011\nwhere: ruby-local-1; ruby-local-2\n';
    http.route('/tmp20110101-1-abc', bytes(photo));
    http.route('/tmp20110101-1-erc', bytes(erc));
    const rows = [
      `${http.url('/tmp20110101-1-abc')} | md5 | ${md5(photo)} | ${photo.length} | | call911.jpg | image/jpeg\n`,
      `${http.url('/tmp20110101-1-erc')} | md5 | ${md5(Buffer.from(erc))} |  | | mrt-erc.txt | \n`,
    ];
    const manifest =
      '#%checkm_0.7\n' +
      '#%profile http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest\n' +
      '#%prefix | mrt: | http://uc3.cdlib.org/ontology/mom#\n' +
      '#%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#\n' +
      '#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | mrt:mimeType\n' +
      rows.join('') +
      '#%EOF\n';
    http.route('/ruby/manifest', bytes(manifest));
    const bid = await submit(http.url('/ruby/manifest'), {
      type: 'object-manifest',
      erc_who: 'form creator',
      local_id: 'form-local',
    });
    expect(await finished(bid)).toMatchObject({ status: 'completed' });
    const [job] = await jobsOf(bid);
    expect(job!.metadata).toMatchObject({
      erc_who: 'Doe, Jane',
      erc_what: 'A Ruby deposit',
      erc_when: '2011',
    });
    expect(job!.identifiers?.local_id).toEqual(['ruby-local-1', 'ruby-local-2', 'form-local']);
    expect(storedFile(job!, 'producer/call911.jpg')).toEqual(photo);
    const systemErc = storedFile(job!, 'system/mrt-erc.txt').toString('utf8');
    expect(systemErc).toContain('who: Doe, Jane');
    expect(systemErc).toContain('where: ruby-local-1');
    expect(systemErc).not.toContain('(:unas)');
  });

  it("uploads posted to /poster/submit as Merritt's UI posts them are ingested: a manifest and a zip, types guessed", async () => {
    const manifest = readFileSync(join(dir, 'site', 'samples', 'manifests', 'call911.checkm'));
    const zip = readFileSync(join(SAMPLES, 'huskyChicken.zip'));
    const bids: string[] = [];
    for (const [name, content] of [
      ['call911.checkm', manifest],
      ['huskyChicken.zip', zip],
    ] as const) {
      const form = formOf(
        { profile: 'merritt', submitter: 'uiuser/UI User', title: name, responseForm: 'xml' },
        { name, content },
      );
      const answer = await post(`${poster.url}/poster/submit/`, form, { authorization: basicAuth() });
      expect(answer.status).toBe(200);
      bids.push(/^\/batches\/(bid\d{10})$/.exec(answer.headers.get('location') ?? '')![1]!);
    }
    const [manifestBid, zipBid] = bids;
    expect(await finished(manifestBid!)).toMatchObject({ status: 'completed', jobCount: 1 });
    const [object] = await jobsOf(manifestBid!);
    expect(object!.configuration.payload_type).toBe('object_manifest');
    for (const name of ['call911.jpg', 'call911.txt'])
      expect(storedFile(object!, `producer/${name}`)).toEqual(readFileSync(join(SAMPLES, name)));
    expect(await finished(zipBid!)).toMatchObject({ status: 'completed', jobCount: 1 });
    const [container] = await jobsOf(zipBid!);
    expect(container!.metadata?.erc_what).toBe('huskyChicken.zip');
    for (const name of ['huskyChicken.jpg', 'huskyChicken.txt', 'huskyButchery.jpg'])
      expect(storedFile(container!, `producer/${name}`)).toEqual(
        execFileSync('unzip', ['-p', join(SAMPLES, 'huskyChicken.zip'), name]),
      );
  });

  it('an update posted to /poster/update/ark/{shoulder}/{id} makes the next version of that object', async () => {
    const first = formOf(
      { profile: 'merritt', submitter: 'uiuser/UI User', type: 'file', responseForm: 'xml' },
      { name: 'first.txt', content: 'version one\n' },
    );
    const added = await post(`${poster.url}/poster/submit/`, first, { authorization: basicAuth() });
    expect(added.status).toBe(200);
    const addBid = /(bid\d{10})$/.exec(added.headers.get('location') ?? '')![1]!;
    expect(await finished(addBid)).toMatchObject({ status: 'completed' });
    const ark = (await jobsOf(addBid))[0]!.identifiers!.primary_id;
    const [, shoulder, id] = /^ark:\/([^/]+)\/(.+)$/.exec(ark)!;

    const second = formOf(
      { profile: 'merritt', submitter: 'uiuser/UI User', type: 'file', responseForm: 'json' },
      { name: 'second.txt', content: 'version two\n' },
    );
    const updated = await post(`${poster.url}/poster/update/ark/${shoulder}/${id}`, second, {
      authorization: basicAuth(),
    });
    expect(updated.status).toBe(200);
    const updateBid = /(bid\d{10})$/.exec(updated.headers.get('location') ?? '')![1]!;
    expect(await finished(updateBid)).toMatchObject({ status: 'completed' });
    const [job] = await jobsOf(updateBid);
    expect(job!.identifiers!.primary_id).toBe(ark);
    const object = objectDir(dataDir, ark);
    expect(readFileSync(join(object, 'v2', 'producer', 'second.txt'), 'utf8')).toBe('version two\n');
    expect(readFileSync(join(object, 'v2', 'producer', 'first.txt'), 'utf8')).toBe('version one\n');
  });
});
