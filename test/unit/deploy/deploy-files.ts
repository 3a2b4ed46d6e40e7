import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseDockerfile } from '../../support/dockerfile.js';
import { parseCompose, type Compose } from './compose-model.js';
import { parseDockerignore } from './dockerignore.js';

/** The repository's deployment files, read once, and broken copies of them for the negative tests. */

export const REPO = resolve(import.meta.dirname, '../../..');
export const COMPOSE_PATH = join(REPO, 'docker-compose.yml');

export const composeText = readFileSync(COMPOSE_PATH, 'utf8');
export const dockerfileText = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
export const dockerignoreText = readFileSync(join(REPO, '.dockerignore'), 'utf8');

/** What the operator sets before `docker compose up` (the compose file requires a token). */
export const OPERATOR_ENV = { MRTQ_API_TOKEN: 'an-operators-secret' };

export const compose = parseCompose(composeText, COMPOSE_PATH, OPERATOR_ENV);
export const context = { root: REPO, ignore: parseDockerignore(dockerignoreText) };

/** `text` with `from` replaced; throws when `from` is not there, so a negative test cannot pass vacuously. */
export function edit(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the file no longer contains ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

/** The 1-based line of the Dockerfile that starts with `start`. */
export function dockerfileLine(start: string): number {
  const index = dockerfileText.split('\n').findIndex((line) => line.startsWith(start));
  if (index === -1) throw new Error(`the Dockerfile has no line starting ${JSON.stringify(start)}`);
  return index + 1;
}

export const brokenCompose = (from: string, to: string): Compose =>
  parseCompose(edit(composeText, from, to), COMPOSE_PATH, OPERATOR_ENV);

export const brokenDockerfile = (from: string, to: string) => parseDockerfile(edit(dockerfileText, from, to));
