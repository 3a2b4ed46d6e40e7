import { parseCredentialsFile, type CredentialEntry, credentialLine, entryOf } from './credentials-file.js';

/**
 * Changes to a credentials file's text, as `mrtq credentials` makes them: lines added or removed
 * by name, every other line (comments, order) kept as it was. The text is parsed first, so a
 * file that the service would refuse is not edited further.
 */

/** The first lines of a new file: what its lines are, for whoever opens it. */
export const FILE_HEADER = [
  '# mrtq credentials (MRTQ_CREDENTIALS): name:kind:role:collections:hash, one a line.',
  '# Edit with `mrtq credentials add|list|remove`; only hashes are stored (docs/http.md).',
  '',
].join('\n');

/** The file's credentials as `list` shows them. */
export function listCredentials(text: string, source: string): CredentialEntry[] {
  return parseCredentialsFile(text, source).map(entryOf);
}

/** An error when `text` is not a credentials file, or names `name` already. */
export function checkNameFree(text: string, source: string, name: string): void {
  if (parseCredentialsFile(text, source).some((credential) => credential.name === name))
    throw new Error(`${source} already has a credential "${name}": remove it first`);
}

/** `text` with the credential's line appended; an error when its name is taken. */
export function addCredential(text: string, source: string, entry: CredentialEntry, hash: string): string {
  checkNameFree(text, source, entry.name);
  const start = text === '' ? FILE_HEADER : text.endsWith('\n') ? text : `${text}\n`;
  return `${start}${credentialLine(entry, hash)}\n`;
}

/** `text` without the line of `name`; an error when there is none. */
export function removeCredential(text: string, source: string, name: string): string {
  if (!parseCredentialsFile(text, source).some((credential) => credential.name === name))
    throw new Error(`${source} has no credential "${name}"`);
  const lines = text.split('\n');
  const kept = lines.filter((line) => {
    const trimmed = line.trim();
    return trimmed.startsWith('#') || trimmed.split(':')[0] !== name;
  });
  return kept.join('\n');
}
