/**
 * User and password of an `Authorization: Basic …` header, or undefined when it is not one (the
 * password keeps its colons: only the first separates it from the user, RFC 7617). The users
 * themselves are in the credentials files (src/auth).
 */
export function basicCredentialsOf(
  header: string | undefined,
): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
