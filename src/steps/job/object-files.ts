import type { JobRecord } from '../../queue/jobs/load.js';
import type { JobConfiguration } from '../../queue/tree/records.js';
import { parseCheckm } from '../formats/checkm.js';
import type { Digest, DownloadRecord, Erc } from '../ingest-contracts.js';
import { parseDigest } from '../formats/digest.js';
import { IntakeError, ManifestError } from '../intake-errors.js';
import type { Fetcher } from '../services/fetch/fetch.js';
import { safeRelativePath } from '../workdir/safe-path.js';
import { redactUrl } from '../formats/url-credentials.js';

/** One file to fetch for an object. */
export interface ObjectFile {
  url: string;
  /** Safe relative path under `producer/` (no absolute path, no `..`). */
  fileName: string;
  size?: number;
  digest?: Digest;
}

/** What a job's object consists of, from its configuration (and its object manifest). */
export interface JobObject {
  files: ObjectFile[];
  /** The single file is a container, unpacked into `producer/` at download. */
  container: boolean;
  object: DownloadRecord['object'];
}

/** The last path segment of a URL, decoded: the default file name. */
export function fileNameFromUrl(url: string): string {
  if (!URL.canParse(url)) throw new IntakeError('SUBMISSION_INVALID', `"${url}" is not a valid URL`);
  const segment = new URL(url).pathname.split('/').pop() ?? '';
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // A malformed escape: keep the segment as written.
  }
  if (name === '') {
    throw new IntakeError(
      'PATH_UNSAFE',
      `cannot derive a file name from ${redactUrl(url)}; give nfo:fileName`,
    );
  }
  return name;
}

/** A configuration value as text: '' when absent, JSON for anything that is not a string. */
function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The digest a submission or configuration gives (`digest_type`, `digest_value`), if any. */
export function configuredDigest(config: Record<string, unknown>): Digest | undefined {
  const type = asText(config.digest_type);
  const value = asText(config.digest_value);
  if (type === '' && value === '') return undefined;
  const digest = parseDigest(type, value);
  if (typeof digest === 'string')
    throw new IntakeError('SUBMISSION_INVALID', `digest_type/digest_value: ${digest}`);
  return digest;
}

/** The size a submission or configuration gives (`file_size`), if any. */
export function configuredSize(config: Record<string, unknown>): number | undefined {
  const size = config.file_size;
  if (size === undefined || size === null || size === '') return undefined;
  const value = Number(size);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new IntakeError('SUBMISSION_INVALID', `file_size ${JSON.stringify(size)} is not a size in bytes`);
  }
  return value;
}

function describeObject(job: JobRecord): DownloadRecord['object'] {
  const metadata = job.metadata ?? {};
  const erc: Erc = {};
  if (metadata.erc_who) erc.who = metadata.erc_who;
  if (metadata.erc_what) erc.what = metadata.erc_what;
  if (metadata.erc_when) erc.when = metadata.erc_when;
  if (metadata.erc_where) erc.where = metadata.erc_where;
  const object: DownloadRecord['object'] = { erc };
  const primary = job.identifiers?.primary_id;
  if (primary) object.primaryIdentifier = primary;
  const local = job.identifiers?.local_id[0] ?? job.configuration.local_id;
  if (local) object.localIdentifier = local;
  return object;
}

function singleFile(config: JobConfiguration): ObjectFile {
  const file: ObjectFile = {
    url: config.payload_url,
    fileName: safeRelativePath(
      typeof config.file_name === 'string' && config.file_name !== ''
        ? config.file_name
        : fileNameFromUrl(config.payload_url),
    ),
  };
  const size = configuredSize(config);
  if (size !== undefined) file.size = size;
  const digest = configuredDigest(config);
  if (digest) file.digest = digest;
  return file;
}

async function manifestFiles(url: string, fetcher: Fetcher, signal: AbortSignal): Promise<ObjectFile[]> {
  const source = `object manifest ${redactUrl(url)}`;
  const manifest = parseCheckm(await fetcher.text(url, { signal }), source);
  const seen = new Map<string, number>();
  return manifest.entries.map((entry) => {
    let fileName: string;
    try {
      fileName = safeRelativePath(entry.fileName ?? fileNameFromUrl(entry.fileUrl));
    } catch (err) {
      throw new ManifestError(`${source} line ${entry.line}: ${(err as Error).message}`, entry.line, {
        cause: err,
      });
    }
    const earlier = seen.get(fileName);
    if (earlier !== undefined) {
      throw new ManifestError(
        `${source} line ${entry.line}: "${fileName}" is also on line ${earlier}`,
        entry.line,
      );
    }
    seen.set(fileName, entry.line);
    const file: ObjectFile = { url: entry.fileUrl, fileName };
    if (entry.fileSize !== undefined) file.size = entry.fileSize;
    if (entry.digest) file.digest = entry.digest;
    return file;
  });
}

/**
 * The files of a job's object: an object manifest's entries (fetched and parsed now), or the
 * single file or container of the payload. File names default to the URL's last segment and are
 * refused when they could escape the object's directory.
 */
export async function objectOf(job: JobRecord, fetcher: Fetcher, signal: AbortSignal): Promise<JobObject> {
  const config = job.configuration;
  const object = describeObject(job);
  switch (config.payload_type) {
    case 'object_manifest':
      return { files: await manifestFiles(config.payload_url, fetcher, signal), container: false, object };
    case 'file':
      return { files: [singleFile(config)], container: false, object };
    case 'container':
      return { files: [singleFile(config)], container: true, object };
    default:
      throw new IntakeError(
        'SUBMISSION_INVALID',
        `job ${job.jobId} has payload_type "${config.payload_type}" (expected object_manifest, file or container)`,
      );
  }
}
