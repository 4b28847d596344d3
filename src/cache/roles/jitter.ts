/**
 * `ttlJitter`: how much of each write's ttl is taken off at random, so that keys written
 * together (a deploy, a batch, a warm-up) do not all turn stale, and hit their source, in the
 * same instant. Applied once per write, to the fresh time only (grace and stale-if-error keep
 * their length), and recorded in the entry: `inspect(key).ttl` shows what was drawn. The draw
 * itself is `jittered` in lifetimes.ts.
 */
import { toMs, type Duration } from '../../util/duration.ts';

/**
 * A checked `ttlJitter`. The option's number is a fraction of the ttl strictly between 0 and 1
 * (`0.1`: up to a tenth of the ttl is taken off); its string a duration (`'30s'`: up to that
 * much, never more than the ttl). A number is never milliseconds, so `0.1` and `100` can not
 * be confused: `100` is refused.
 */
export type Jitter = { readonly fraction: number } | { readonly ms: number };

/** Checks a `ttlJitter` option, throwing a RangeError that names `where`. */
export function checkTtlJitter(jitter: unknown, where: string): Jitter {
  if (typeof jitter === 'number') {
    if (jitter > 0 && jitter < 1) return { fraction: jitter };
    throw new RangeError(
      `cachette: ${where}: "ttlJitter" as a number is a fraction of the ttl between 0 and 1 (e.g. 0.1); give a duration as a string such as '30s' or '500ms', got ${String(jitter)}`,
    );
  }
  if (typeof jitter !== 'string') throw new TypeError(`cachette: ${where}: "ttlJitter" must be a fraction of the ttl (e.g. 0.1) or a duration string (e.g. '30s'), got ${typeof jitter}`);
  const ms = toMs(jitter as Duration, `cachette: ${where}: "ttlJitter"`);
  if (!(ms > 0 && Number.isFinite(ms))) throw new RangeError(`cachette: ${where}: "ttlJitter" must be a finite duration greater than 0, got ${JSON.stringify(jitter)}`);
  return { ms };
}
