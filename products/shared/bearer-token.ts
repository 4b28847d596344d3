/**
 * Bearer tokens for the servers behind the `cachette` command (the bridge's every request, the
 * proxy's purge endpoint): the rule a configured token must meet, and checking
 * `Authorization: Bearer <token>` against it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Fewest characters a configured token may have. Sixteen random characters of hex already
 * carry 64 bits, beyond any online guessing; a shorter token is a word someone chose
 * (README's old `dev-token`), which is the first thing a guesser tries.
 */
export const MIN_TOKEN_LENGTH = 16;

// Visible ASCII only: what an Authorization header carries unchanged on every client and server.
const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

/**
 * Why `token` cannot serve as a bearer secret ("must be …", to follow the option's name), or
 * undefined when it can: a string of at least {@link MIN_TOKEN_LENGTH} visible ASCII characters.
 */
export function tokenProblem(token: unknown): string | undefined {
  const rule = `must be at least ${MIN_TOKEN_LENGTH} characters of visible ASCII, such as the output of \`openssl rand -hex 16\``;
  if (typeof token !== 'string') return `${rule}, got ${token === null ? 'null' : typeof token}`;
  if (token.length < MIN_TOKEN_LENGTH) return `${rule}, got ${token.length} character${token.length === 1 ? '' : 's'}`;
  if (!TOKEN_CHARACTERS.test(token)) return `${rule}, got one with spaces, control or non-ASCII characters`;
  return undefined;
}

/** What an Authorization header amounts to: the right token, none, or a wrong one. */
export type BearerVerdict = 'ok' | 'missing' | 'invalid';

/**
 * A checker for one secret. Digests are compared rather than the tokens themselves, so the
 * comparison takes the same time whatever the length or the first differing byte of a guess.
 */
export function bearerTokenCheck(token: string): (authorization: string | undefined) => BearerVerdict {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer (.+)$/i.exec(authorization ?? '');
    if (!match) return 'missing';
    return timingSafeEqual(digest(match[1]!), expected) ? 'ok' : 'invalid';
  };
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
