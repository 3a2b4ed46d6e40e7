import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileError } from '../../../src/steps/intake-errors.js';
import { loadProfiles } from '../../../src/steps/formats/profiles/profiles.js';
import { parseMerrittProfile, type ProfileFindings } from '../../../src/steps/formats/profiles/properties.js';

const MERRITT_COPIES = join(import.meta.dirname, 'merritt-profiles');

/** The keys every strict (non-template) profile below shares. */
const BASE = ['Type: MRT-curatorial', 'Role: MRT-content', 'Owner: ark:/99999/j2000000'];

function read(name: string, lines: string[]): { profile: unknown; findings: ProfileFindings } {
  const findings: ProfileFindings = { problems: [], warnings: [] };
  const text = [`ProfileID: ${name}`, ...lines].join('\n');
  return { profile: parseMerrittProfile(name, name, text, findings), findings };
}

describe("Merritt's profiles as Merritt writes them (merritt-protocols.md §5)", () => {
  it("loads mrt-ingest's merritt_test_content and TEMPLATE-PROFILE as they are", async () => {
    const store = await loadProfiles(MERRITT_COPIES);
    expect(store.names().sort()).toEqual(['TEMPLATE-PROFILE', 'merritt_test_content']);
    expect(store.getProfile('merritt_test_content')).toEqual({
      name: 'merritt_test_content',
      collection: 'merritt_test_content',
      priority: 3,
      notifications: ['test.email@test.edu'],
      responseType: 'json',
      description: 'Merritt Test',
      identifierScheme: 'ARK',
      identifierNamespace: '99999',
      collections: ['ark:/99999/m5000000'],
      objectType: 'MRT-curatorial',
      role: 'MRT-content',
      owner: 'ark:/99999/j2000000',
      storageService: 'http://localhost:4567',
      storageNode: 9999,
      minterUrl: 'http://localhost:4567/shoulder/ark:/99999/fk4',
      notificationType: 'additional',
      context: 'merritt_test',
    });
    // The template's ${…} placeholders pass: Collection, Owner, StorageNode and dates are lenient.
    expect(store.getProfile('TEMPLATE-PROFILE')).toMatchObject({
      collection: 'TEMPLATE-PROFILE',
      notifications: [],
      role: 'MRT-class',
      minterUrl: 'http://ezid:4567/shoulder/ark:/13030/m5',
    });
    expect(store.getProfile('TEMPLATE-PROFILE')).not.toHaveProperty('storageNode');
    expect(store.warnings()).toEqual([]);
  });

  it('reads the Java-Properties syntax: = and : separators, continuations, escapes, ! comments, the last repeat', () => {
    const { profile, findings } = read('p_content', [
      ...BASE,
      'ProfileDescription = A long \\',
      '    description',
      '! a comment',
      'Context=caf\\u00e9\\:x',
      'Priority: 7',
      'Priority: 8',
      'NotificationFormat   xml',
    ]);
    expect(findings).toEqual({ problems: [], warnings: [] });
    expect(profile).toMatchObject({
      description: 'A long description',
      context: 'café:x',
      priority: 8,
      responseType: 'xml',
      notificationFormat: 'xml',
    });
  });

  it('matches keys by prefix in order of their number, and ignores handler lists and unknown keys', () => {
    const { profile, findings } = read('p_content', [
      ...BASE,
      'Notification.10: ten@example.org',
      'Notification.2: two@example.org',
      'Notification.1:',
      'Collection.2: ark:/99999/b',
      'Collection.1: ark:/99999/a',
      'HandlerProcess.x: not.a.Number',
      'HandlerUpdateBatchReport.1: org.cdlib.Whatever',
      'SomethingNew: 1',
      'SuppressDublinCoreLocalID: TRUE',
      'EZID_co-owner: merritt',
    ]);
    expect(findings).toEqual({ problems: [], warnings: [] });
    expect(profile).toMatchObject({
      notifications: ['two@example.org', 'ten@example.org'],
      collections: ['ark:/99999/a', 'ark:/99999/b'],
      suppressDublinCoreLocalId: true,
      ezidCoOwner: 'merritt',
    });
  });

  it.each([
    ['Priority: high', 'merritt_x: Priority: must be an integer from 00 to 99, not "high"'],
    ['Collection.1: m5000000', 'merritt_x: Collection.1: must be a collection ark (ark:/…), not "m5000000"'],
    ['ObjectMinterURL: ezid', 'merritt_x: ObjectMinterURL: must be an http(s) URL, not "ezid"'],
    ['CallbackURL: ftp://x', 'merritt_x: CallbackURL: must be an http(s) URL'],
    ['StorageService:', 'merritt_x: StorageService: must be an http(s) URL, not ""'],
    ['StorageNode: seven', 'merritt_x: StorageNode: must be a storage node number'],
    ['CreationDate: yesterday', 'merritt_x: CreationDate: must be a date'],
    ['Type: MRT-thing', 'merritt_x: Type: must be one of MRT-curatorial, MRT-system'],
    ['Role: MRT-other', 'merritt_x: Role: must be one of MRT-content, MRT-class'],
    ['Aggregate: MRT-thing', 'merritt_x: Aggregate: must be empty or one of MRT-collection'],
    ['Owner: j2000000', 'merritt_x: Owner: must be an ark'],
    ['Notification.1: nobody', 'merritt_x: Notification.1: must be an e-mail address, not "nobody"'],
  ])('refuses %j naming the file and the key', (line, problem) => {
    const { profile, findings } = read('merritt_x', [...BASE, line]);
    expect(profile).toBeUndefined();
    expect(findings.problems).toEqual([expect.stringContaining(problem)]);
  });

  it('a file with no ProfileID is not a Merritt profile', () => {
    const findings: ProfileFindings = { problems: [], warnings: [] };
    expect(parseMerrittProfile('LICENSE', 'LICENSE', 'Copyright: nobody\n', findings)).toBeUndefined();
    expect(findings.problems).toEqual([expect.stringContaining('LICENSE: ProfileID: required')]);
  });

  it('checks a TEMPLATE* profile leniently, as Merritt does, but not its Type or URLs', () => {
    const lenient = [
      'Collection.1: ${C}',
      'Owner: ${O}',
      'StorageNode: ${N}',
      'Aggregate: x',
      'CreationDate: ${D}',
    ];
    expect(read('TEMPLATE-X', lenient).findings).toEqual({ problems: [], warnings: [] });
    expect(read('TEMPLATE-X', ['Type: ${T}']).findings.problems).toEqual([
      expect.stringContaining('TEMPLATE-X: Type: must be one of'),
    ]);
    expect(read('TEMPLATE-X', ['ObjectMinterURL: ${U}']).findings.problems).toHaveLength(1);
  });

  it.each([
    ['150', 99, 'merritt_x: Priority: 150 is outside 00..99; jobs get 99'],
    ['-3', 0, 'merritt_x: Priority: -3 is outside 00..99; jobs get 0'],
    ['', 0, 'merritt_x: Priority: empty; read as 00 as Merritt does'],
  ])(
    'clamps Priority %j to %i with a warning, not an error (Merritt accepts it)',
    (value, priority, warning) => {
      const { profile, findings } = read('merritt_x', [...BASE, `Priority: ${value}`]);
      expect(profile).toMatchObject({ priority });
      expect(findings).toEqual({ problems: [], warnings: [expect.stringContaining(warning)] });
    },
  );

  it('takes the response type from NotificationFormat where it maps, else json with a warning', () => {
    const format = (value: string) => read('merritt_x', [...BASE, `NotificationFormat: ${value}`]);
    expect(format('JSON2').profile).toMatchObject({ responseType: 'json', notificationFormat: 'JSON2' });
    expect(format('turtle').profile).toMatchObject({ responseType: 'turtle' });
    const anvl = format('anvl');
    expect(anvl.profile).toMatchObject({ responseType: 'json', notificationFormat: 'anvl' });
    expect(anvl.findings.warnings).toEqual([
      expect.stringContaining('NotificationFormat: the engine writes no "anvl"'),
    ]);
  });

  it('reads NotificationType and NotificationSuppression case-blind; another value is a warning', () => {
    const { profile, findings } = read('merritt_x', [
      ...BASE,
      'NotificationType: VERBOSE',
      'NotificationSuppression: Partial',
    ]);
    expect(profile).toMatchObject({ notificationType: 'verbose', notificationSuppression: 'partial' });
    expect(findings.warnings).toEqual([]);
    const odd = read('merritt_x', [...BASE, 'NotificationSuppression: some']);
    expect(odd.profile).not.toHaveProperty('notificationSuppression');
    expect(odd.findings.warnings).toEqual([
      expect.stringContaining('NotificationSuppression: "some" is not one of full, partial'),
    ]);
  });

  it('warns when ProfileID differs from the file name, which is what submissions use', () => {
    const findings: ProfileFindings = { problems: [], warnings: [] };
    const text = ['ProfileID: other_content', ...BASE].join('\n');
    expect(parseMerrittProfile('mine_content', 'mine_content', text, findings)).toMatchObject({
      name: 'mine_content',
      collection: 'mine_content',
    });
    expect(findings.warnings).toEqual([
      expect.stringContaining('"other_content" differs from the file name'),
    ]);
  });
});

describe('a profile directory with Merritt profiles beside YAML ones', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'profiles-merritt-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const merritt = (name: string, ...lines: string[]) => [`ProfileID: ${name}`, ...BASE, ...lines].join('\n');

  it('reads <name>, <name>.txt and dotted *_content files; skips dot files, other extensions and directories', async () => {
    await writeFile(join(dir, 'plain_content'), merritt('plain_content'));
    await writeFile(join(dir, 'texty_content.txt'), merritt('texty_content'));
    await writeFile(join(dir, 'ucb.lib_content'), merritt('ucb.lib_content'));
    await writeFile(join(dir, 'demo.yaml'), 'collection: demo\n');
    await writeFile(join(dir, 'README.md'), '# not a profile');
    await writeFile(join(dir, '.gitkeep'), '');
    await mkdir(join(dir, 'admin'));
    await writeFile(join(dir, 'admin', 'nested_content'), merritt('nested_content'));
    const store = await loadProfiles(dir);
    expect(store.names().sort()).toEqual(['demo', 'plain_content', 'texty_content', 'ucb.lib_content']);
    expect(store.getProfile('texty_content').collection).toBe('texty_content');
  });

  it('reads a Latin-1 file as Java does, and a UTF-8 one as UTF-8', async () => {
    await writeFile(
      join(dir, 'l1_content'),
      Buffer.from(merritt('l1_content', 'Context: caf\u00e9'), 'latin1'),
    );
    await writeFile(
      join(dir, 'u8_content'),
      Buffer.from(merritt('u8_content', 'Context: caf\u00e9'), 'utf8'),
    );
    const store = await loadProfiles(dir);
    expect(store.getProfile('l1_content').context).toBe('café');
    expect(store.getProfile('u8_content').context).toBe('café');
  });

  it('refuses the directory naming each bad file and key, and two files for one profile', async () => {
    await writeFile(join(dir, 'merritt_x'), merritt('merritt_x', 'Priority: high'));
    await writeFile(join(dir, 'twice.yaml'), 'collection: c\n');
    await writeFile(join(dir, 'twice'), merritt('twice'));
    const err = await loadProfiles(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProfileError);
    expect((err as ProfileError).problems).toEqual([
      'merritt_x: Priority: must be an integer from 00 to 99, not "high"',
      'twice.yaml: a second file for profile "twice"',
    ]);
  });

  it('logs the warnings of each load and keeps them', async () => {
    await writeFile(join(dir, 'hot_content'), merritt('hot_content', 'Priority: 150'));
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const store = await loadProfiles(dir, { log: pino({ level: 'warn' }, sink) });
    expect(store.warnings()).toEqual([
      expect.stringContaining('hot_content: Priority: 150 is outside 00..99'),
    ]);
    expect(lines.join('')).toContain('profile: hot_content: Priority: 150 is outside 00..99');
    await writeFile(join(dir, 'hot_content'), merritt('hot_content', 'Priority: 15'));
    await store.reload();
    expect(store.warnings()).toEqual([]);
  });
});
