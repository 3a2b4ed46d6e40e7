/**
 * `.dockerignore` as Docker reads it: one pattern a line, `#` comments, `!` re-includes, `*` and `?`
 * within one path segment, `**` across segments; a path is excluded when the last pattern matching
 * it, or one of its parent directories, is not a `!` pattern.
 */

interface Pattern {
  regex: RegExp;
  include: boolean;
}

function toRegex(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? '';
    if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      source += '.*';
      i += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export function parseDockerignore(text: string): Pattern[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const include = line.startsWith('!');
      const glob = (include ? line.slice(1) : line).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      return { regex: toRegex(glob), include };
    });
}

/** Whether `path` (relative to the build context, `/`-separated) is left out of the context. */
export function isIgnored(patterns: Pattern[], path: string): boolean {
  const segments = path.replace(/^\.\/|\/+$/g, '').split('/');
  const prefixes = segments.map((_, i) => segments.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const pattern of patterns) {
    if (prefixes.some((prefix) => pattern.regex.test(prefix))) ignored = !pattern.include;
  }
  return ignored;
}
