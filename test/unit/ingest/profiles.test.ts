import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileError, UnknownProfileError } from '../../../src/steps/intake-errors.js';
import { loadProfiles, validateProfile } from '../../../src/steps/formats/profiles/profiles.js';

function problemsOf(data: unknown): string[] {
  const problems: string[] = [];
  validateProfile('p.yaml', 'p', data, problems);
  return problems;
}

describe('validating a profile', () => {
  it('fills the defaults of a minimal profile', () => {
    const problems: string[] = [];
    expect(validateProfile('p.yaml', 'p', { collection: 'demo' }, problems)).toEqual({
      name: 'p',
      collection: 'demo',
      priority: 5,
      notifications: [],
      responseType: 'json',
    });
    expect(problems).toEqual([]);
  });

  it('keeps every field of a full profile', () => {
    const full = {
      name: 'p',
      collection: 'demo_c',
      priority: 12,
      notifications: ['a@example.org', 'b@example.org'],
      callbackUrl: 'https://example.org/hook',
      responseType: 'xml',
    };
    expect(validateProfile('p.yaml', 'p', full, [])).toEqual(full);
  });

  it("takes Merritt's keys under their MerrittProfileKeys names", () => {
    const merritt = {
      collection: 'c',
      minterUrl: 'http://127.0.0.1:9/shoulder/ark:/99999/fk4',
      owner: 'ark:/99999/j2000000',
      collections: ['ark:/99999/m5000000'],
      storageNode: 7777,
      notificationSuppression: 'partial',
      suppressDublinCoreLocalId: true,
    };
    const problems: string[] = [];
    expect(validateProfile('p.yaml', 'p', merritt, problems)).toMatchObject(merritt);
    expect(problems).toEqual([]);
  });

  it.each([
    [{}, 'p.yaml: collection: required'],
    [{ collection: 'c', minterUrl: 'ezid' }, 'p.yaml: minterUrl: must be an http(s) URL, not "ezid"'],
    [{ collection: 'c', collections: ['m5'] }, 'p.yaml: collections: must be a list of collection arks'],
    [
      { collection: 'c', notificationType: 'loud' },
      'p.yaml: notificationType: must be one of verbose, additional',
    ],
    [{ collection: 'c', storageNode: '7' }, 'p.yaml: storageNode: must be an integer'],
    [{ collection: 'a/b' }, 'p.yaml: collection: required'],
    [{ collection: 'c', priority: 100 }, 'p.yaml: priority: must be an integer from 0 to 99, not 100'],
    [{ collection: 'c', priority: '5' }, 'p.yaml: priority: must be an integer'],
    [
      { collection: 'c', notifications: 'a@b.org' },
      'p.yaml: notifications: must be a list of e-mail addresses',
    ],
    [{ collection: 'c', notifications: ['ok@b.org', 'nope'] }, '["nope"] is not'],
    [{ collection: 'c', callbackUrl: 'ftp://x' }, 'p.yaml: callbackUrl: must be an http(s) URL'],
    [{ collection: 'c', responseType: 'html' }, 'p.yaml: responseType: must be one of json, xml, turtle'],
    [{ collection: 'c', priorty: 3 }, 'p.yaml: priorty: unknown field'],
    [{ collection: 'c', name: 'other' }, 'p.yaml: name: "other" differs from the file name "p"'],
    [['a'], 'p.yaml: the file must hold a mapping'],
  ])('reports %j as %j', (data, problem) => {
    expect(problemsOf(data).join('\n')).toContain(problem);
  });

  it('reports every bad field, not just the first', () => {
    expect(problemsOf({ priority: -1, responseType: 'x' })).toHaveLength(3);
  });
});

describe('loading a profile directory', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'profiles-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads yaml, yml and json profiles and ignores other files', async () => {
    await writeFile(join(dir, 'one.yaml'), 'collection: c1\npriority: 3\n');
    await writeFile(join(dir, 'two.yml'), 'collection: c2\n');
    await writeFile(join(dir, 'three.json'), '{"collection":"c3","responseType":"turtle"}');
    await writeFile(join(dir, 'README.md'), '# not a profile');
    const store = await loadProfiles(dir);
    expect(store.names().sort()).toEqual(['one', 'three', 'two']);
    expect(store.getProfile('one').priority).toBe(3);
    expect(store.getProfile('three').responseType).toBe('turtle');
  });

  it('an unknown profile names the known ones; resolve picks up a profile added later', async () => {
    await writeFile(join(dir, 'one.yaml'), 'collection: c1\n');
    const store = await loadProfiles(dir);
    expect(() => store.getProfile('late')).toThrow(UnknownProfileError);
    expect(() => store.getProfile('late')).toThrow('unknown profile "late"; known profiles: one');
    await writeFile(join(dir, 'late.yaml'), 'collection: c2\n');
    expect((await store.resolve('late')).collection).toBe('c2');
    await expect(store.resolve('never')).rejects.toMatchObject({ code: 'PROFILE_UNKNOWN' });
  });

  it('refuses a directory with a bad profile, naming file and field, and keeps the old set on reload', async () => {
    await writeFile(join(dir, 'good.yaml'), 'collection: c\n');
    const store = await loadProfiles(dir);
    await writeFile(join(dir, 'bad.yaml'), 'collection: c\npriority: high\n');
    await writeFile(join(dir, 'broken.json'), '{');
    const err = await store.reload().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProfileError);
    expect((err as ProfileError).problems).toEqual([
      expect.stringContaining('bad.yaml: priority: must be an integer'),
      expect.stringContaining('broken.json: not valid JSON'),
    ]);
    expect(store.getProfile('good').collection).toBe('c');
    await expect(loadProfiles(dir)).rejects.toMatchObject({ code: 'PROFILE_INVALID' });
  });
});
