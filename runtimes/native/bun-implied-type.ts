/**
 * Bun's probe for the Content-Type a response's body implies (src/http/implied-type.ts): Bun
 * keeps the type of a string or Blob body on the body itself, not in the headers. A clone of
 * such a response shares its in-memory body, and the clone's `blob()` is already settled, which
 * `Bun.peek` reads synchronously: the type, at no copy. A body that is a stream implies no type;
 * its clone's `blob()` is still pending then, and is left to settle unread (the original body
 * streams on as before; measured: a 300 MiB stream read through with the probe pending keeps
 * the same resident memory as without it).
 */

/** The part of Bun's API the probe uses. */
interface BunPeek {
  peek: { <T>(promise: Promise<T>): T | Promise<T>; status(promise: Promise<unknown>): 'pending' | 'fulfilled' | 'rejected' };
}

/** The probe, on Bun; undefined elsewhere. */
export function bunImpliedTypeProbe(): ((response: Response) => string | undefined) | undefined {
  const bun = (globalThis as { Bun?: BunPeek }).Bun;
  if (typeof bun?.peek?.status !== 'function') return undefined;
  return (response) => {
    let body: Promise<Blob>;
    try {
      body = response.clone().blob();
    } catch {
      return undefined;
    }
    // A stream body that fails later must not surface as an unhandled rejection here.
    body.catch(() => {});
    if (bun.peek.status(body) !== 'fulfilled') return undefined;
    const type = (bun.peek(body) as Blob).type;
    return type === '' ? undefined : type;
  };
}
