import { chmod, readFile, rename, stat, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ROLES, type Role } from '../../auth/actor.js';
import type { CredentialEntry } from '../../auth/credentials-file.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { table } from '../table.js';

// Loaded when a command runs (crypto and the file format are not needed for --help).
const format = () => import('../../auth/credentials-file.js');
const edit = () => import('../../auth/credentials-edit.js');

interface FileFlag {
  file?: string;
}

interface AddFlags extends FileFlag {
  role: string;
  collections?: string;
  basic?: boolean;
}

function fileOf(ctx: CliContext, flags: FileFlag): string {
  const file = flags.file ?? ctx.config.credentialsFile;
  if (file === undefined)
    throw new CliError('name the credentials file: --file <file>, or set MRTQ_CREDENTIALS', ExitCode.usage);
  return file;
}

/** The file's text; a file not there yet is empty (`add` creates it). */
async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/**
 * Writes `text` to `file` through a temporary file renamed over it, so the service never reads a
 * half-written file; a new file is readable by its owner only (it holds hashes, not secrets, but a
 * stolen list of hashes still invites guessing at passwords).
 */
async function writeText(file: string, text: string): Promise<void> {
  const mode = await stat(file).then(
    (info) => info.mode & 0o777,
    () => 0o600,
  );
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode });
  await chmod(temporary, mode);
  await rename(temporary, file);
}

/** The password piped on stdin, without its final newline; never echoed or logged. */
async function passwordFromStdin(ctx: CliContext): Promise<string> {
  if (process.stdin.isTTY) ctx.stderr.write('password (then Enter and Ctrl-D): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (password === '')
    throw new CliError('--basic reads the password from stdin: none was given', ExitCode.usage);
  return password;
}

/** The entry `add` writes, its name, role and collections checked as the service will read them. */
async function entryOf(name: string, flags: AddFlags): Promise<CredentialEntry> {
  const { nameProblem, parseCollections, parseRole } = await format();
  const problem = nameProblem(name);
  if (problem) throw new CliError(problem, ExitCode.usage);
  const role: Role | undefined = parseRole(flags.role);
  if (!role) throw new CliError(`--role ${flags.role}: one of ${ROLES.join(', ')}`, ExitCode.usage);
  const collections = parseCollections(flags.collections ?? '');
  if (typeof collections === 'string') throw new CliError(`--collections: ${collections}`, ExitCode.usage);
  return { name, kind: flags.basic ? 'basic' : 'token', role, ...(collections ? { collections } : {}) };
}

/** Runs an edit of the file's text, its refusals (a malformed file, a taken name) as usage errors. */
function refusing<T>(work: () => T, exitCode: number = ExitCode.usage): T {
  try {
    return work();
  } catch (err) {
    throw new CliError((err as Error).message, exitCode, { cause: err });
  }
}

async function add(ctx: CliContext, name: string, flags: AddFlags): Promise<void> {
  const file = fileOf(ctx, flags);
  const entry = await entryOf(name, flags);
  const { addCredential, checkNameFree } = await edit();
  const text = await readText(file);
  // Checked before a password is asked for: a taken name or a malformed file fails at once.
  refusing(() => checkNameFree(text, file, name));
  let secret: string | undefined;
  let hash: string;
  if (entry.kind === 'basic') {
    const { hashPassword } = await import('../../auth/password-hash.js');
    hash = await hashPassword(await passwordFromStdin(ctx));
  } else {
    const { hashToken, newToken } = await import('../../auth/token-hash.js');
    secret = newToken();
    hash = hashToken(secret);
  }
  await writeText(
    file,
    refusing(() => addCredential(text, file, entry, hash)),
  );
  const limited = entry.collections ? `, collections ${entry.collections.join(', ')}` : '';
  ctx.stderr.write(`${entry.kind} credential '${name}' (role ${entry.role}${limited}) added to ${file}\n`);
  // The token alone on stdout, once (`TOKEN=$(mrtq credentials add …)`): only its hash is kept.
  if (secret !== undefined) {
    ctx.stdout.write(`${secret}\n`);
    ctx.stderr.write('the token is shown once: keep it (only its hash is stored)\n');
  }
}

function listing(entries: readonly CredentialEntry[]): string {
  if (entries.length === 0) return 'no credentials\n';
  const rows = entries.map((e) => [e.name, e.kind, e.role, e.collections?.join(',') ?? '(all)']);
  return table(['NAME', 'KIND', 'ROLE', 'COLLECTIONS'], rows);
}

/**
 * `mrtq credentials add|list|remove`: the named credentials of the HTTP API (the file of
 * MRTQ_CREDENTIALS, or --file), read again by a running service when the file changes.
 */
export function registerCredentials(program: Command, ctx: CliContext): void {
  const credentials = program
    .command('credentials')
    .description(
      "the HTTP API's named credentials: bearer tokens and basic users, each with a role (MRTQ_CREDENTIALS)",
    );
  credentials
    .command('add')
    .argument('<name>', 'who it is, as the audit log names it (letters, digits, . _ @ -)')
    .description(
      'add a credential: a new token, printed once, or (--basic) a user whose password is on stdin',
    )
    .requiredOption('--role <role>', `what it may do: ${ROLES.join(', ')} (each what the ones before may)`)
    .option('--collections <list>', 'limit it to these collections (comma-separated mnemonics)')
    .option('--basic', "an HTTP basic user of Merritt's front door (/poster), password read from stdin")
    .option('--file <file>', 'the credentials file (default MRTQ_CREDENTIALS); created when missing')
    .action((name: string, flags: AddFlags) => add(ctx, name, flags));
  credentials
    .command('list')
    .description('the credentials: name, kind, role, collections (never a secret or hash)')
    .option('--file <file>', 'the credentials file (default MRTQ_CREDENTIALS)')
    .option('--json', 'print them as JSON lines')
    .action(async (flags: FileFlag & { json?: boolean }) => {
      const file = fileOf(ctx, flags);
      const { listCredentials } = await edit();
      const text = await readText(file);
      const entries = refusing(() => listCredentials(text, file));
      if (flags.json) for (const e of entries) ctx.stdout.write(`${JSON.stringify(e)}\n`);
      else ctx.stdout.write(listing(entries));
    });
  credentials
    .command('remove')
    .argument('<name>', 'the credential')
    .description('remove a credential: a running service refuses it from its next request')
    .option('--file <file>', 'the credentials file (default MRTQ_CREDENTIALS)')
    .action(async (name: string, flags: FileFlag) => {
      const file = fileOf(ctx, flags);
      const { listCredentials, removeCredential } = await edit();
      const text = await readText(file);
      if (!refusing(() => listCredentials(text, file)).some((e) => e.name === name))
        throw new CliError(`${file} has no credential "${name}"`, ExitCode.notFound);
      await writeText(
        file,
        refusing(() => removeCredential(text, file, name)),
      );
      ctx.stdout.write(`credential '${name}' removed from ${file}\n`);
    });
}
