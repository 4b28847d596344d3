/**
 * Cache-Control parsing (RFC 9111 §5.2). Malformed input never throws: unknown or broken
 * members are skipped, and the reader of each directive decides what "invalid" means for it.
 */

/** Directives by lowercase name; `true` for a directive without an argument. */
export type Directives = ReadonlyMap<string, string | true>;

const EMPTY: Directives = new Map();

/** RFC 9111 §1.2.2: a delta-seconds too large to represent counts as 2^31. */
export const MAX_DELTA_SECONDS = 2147483648;

/**
 * Parses a Cache-Control (or Pragma) field value. Names are case-insensitive; arguments may be
 * tokens or quoted strings (`max-age="60"` is accepted, as §5.2 asks). A directive that appears
 * twice keeps its first occurrence (§4.2.1).
 */
export function parseDirectives(value: string | null | undefined): Directives {
  if (!value) return EMPTY;
  const directives = new Map<string, string | true>();
  const length = value.length;
  let i = 0;
  while (i < length) {
    let end = i;
    while (end < length && value[end] !== '=' && value[end] !== ',') end++;
    const name = value.slice(i, end).trim().toLowerCase();
    let argument: string | true = true;
    i = end;
    if (value[i] === '=') {
      i++;
      while (value[i] === ' ' || value[i] === '\t') i++;
      if (value[i] === '"') {
        let text = '';
        i++;
        while (i < length && value[i] !== '"') {
          if (value[i] === '\\' && i + 1 < length) i++;
          text += value[i];
          i++;
        }
        argument = text;
        i++;
        // Anything between the closing quote and the next comma is garbage: skipped.
        while (i < length && value[i] !== ',') i++;
      } else {
        end = i;
        while (end < length && value[end] !== ',') end++;
        argument = value.slice(i, end).trim();
        i = end;
      }
    }
    i++; // the comma
    if (name && !directives.has(name)) directives.set(name, argument);
  }
  return directives;
}

/**
 * Reads a delta-seconds argument: the number of seconds, clamped to 2^31; `undefined` when the
 * directive is absent; `NaN` when it is present but not a non-negative integer (the caller picks
 * the safe reading: a response's invalid max-age makes it stale, a request's is ignored).
 */
export function deltaSeconds(directives: Directives, name: string): number | undefined {
  const argument = directives.get(name);
  if (argument === undefined) return undefined;
  if (argument === true || !/^\d+$/.test(argument)) return NaN;
  return Math.min(Number(argument), MAX_DELTA_SECONDS);
}

/** What a request asks of the cache (§5.2.1), with `Pragma: no-cache` honoured when Cache-Control is absent. */
export interface RequestDirectives {
  noStore: boolean;
  noCache: boolean;
  onlyIfCached: boolean;
  /** Largest acceptable age, ms. */
  maxAge: number | undefined;
  /** Largest acceptable staleness, ms (Infinity for a bare `max-stale`). */
  maxStale: number | undefined;
  /** Smallest acceptable remaining freshness, ms. */
  minFresh: number | undefined;
  /** Staleness acceptable when the origin fails, ms (`stale-if-error` as a request directive, RFC 5861 §4). */
  staleIfError: number | undefined;
}

const NO_REQUEST_DIRECTIVES: RequestDirectives = {
  noStore: false,
  noCache: false,
  onlyIfCached: false,
  maxAge: undefined,
  maxStale: undefined,
  minFresh: undefined,
  staleIfError: undefined,
};

/** Reads the request's directives; invalid arguments are ignored rather than guessed. */
export function requestDirectives(headers: Headers): RequestDirectives {
  const field = headers.get('cache-control');
  if (field === null) {
    const pragma = headers.get('pragma');
    return pragma !== null && parseDirectives(pragma).has('no-cache') ? { ...NO_REQUEST_DIRECTIVES, noCache: true } : NO_REQUEST_DIRECTIVES;
  }
  const directives = parseDirectives(field);
  const ms = (name: string) => {
    const seconds = deltaSeconds(directives, name);
    return seconds === undefined || Number.isNaN(seconds) ? undefined : seconds * 1000;
  };
  const staleArg = directives.get('max-stale');
  return {
    noStore: directives.has('no-store'),
    noCache: directives.has('no-cache'),
    onlyIfCached: directives.has('only-if-cached'),
    maxAge: ms('max-age'),
    // A bare max-stale accepts any staleness (§5.2.1.2); a broken argument is read the same way.
    maxStale: staleArg === undefined ? undefined : (ms('max-stale') ?? Infinity),
    minFresh: ms('min-fresh'),
    staleIfError: ms('stale-if-error'),
  };
}
