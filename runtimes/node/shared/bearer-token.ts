/**
 * Checking `Authorization: Bearer <token>` for the servers behind the `cachette` command (the
 * bridge's every request, the proxy's purge endpoint).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

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
