/**
 * Refuses option names nobody reads: a typo such as `tll` would otherwise be ignored in
 * silence and the default used instead. Every options object cachette takes goes through here
 * (createCache's, the per-call options of getOrSet/set/setMany, wrap and the decorators, the
 * HTTP cache and every binding of it, the stores'), so each error names the option as the user
 * wrote it, the function they called, and the closest known option.
 */
import { redactUrl } from './redact-url.ts';

/**
 * Throws a TypeError for the first name of `options` that is not in `known`; `where` names the
 * call as the user wrote it, e.g. `cache() from cachette/hono` or `getOrSet("user:42")`.
 */
export function checkKnownOptions(options: object, known: readonly string[], where: string): void {
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) throw unknownOption(name, known, where);
  }
}

/** Throws a TypeError unless `options` is an object (not null, not an array); `what` names it in the message. */
export function checkOptionsObject(options: unknown, where: string, what = 'options'): asserts options is object {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${where}: ${what} must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
}

/**
 * A check for options passed on every call (getOrSet's, set's), as `check(options, method,
 * subject)`: the names are looked up in a Set with no array or closure built, so that a call
 * with valid options pays a few nanoseconds; the message (`cachette: getOrSet("user:42"):
 * unknown option "ttL" (did you mean "ttl"?)`) is built only for an unknown name. `hint` may
 * say what was probably meant by options that are no object (a bare ttl: `{ ttl }`).
 */
export function callOptionsCheck(known: readonly string[], hint?: (options: unknown) => string | undefined): (options: unknown, method: string, subject: string) => void {
  const names = new Set(known);
  return (options, method, subject) => {
    if (typeof options !== 'object' || options === null) {
      const meant = hint?.(options);
      throw new TypeError(`cachette: ${method}(${JSON.stringify(subject)}): options must be an object, got ${options === null ? 'null' : typeof options}${meant ? `; ${meant}` : ''}`);
    }
    for (const name in options) {
      if (!names.has(name)) throw unknownOption(name, known, `cachette: ${method}(${JSON.stringify(subject)})`);
    }
  };
}

/** The error for an unknown option `name`, with the closest known one when there is one. */
export function unknownOption(name: string, known: readonly string[], where: string): TypeError {
  const guess = closest(name, known);
  return new TypeError(`${where}: unknown option "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}; known options: ${known.join(', ')}`);
}

/**
 * What to say about a `store` option that is not a store object, or undefined when it is
 * acceptable (an object: the store contract is checked where the store is used). A URL string
 * gets the adapter call that opens it, since only the server runtimes' helpers (which can load
 * adapters) take a URL as a store.
 */
export function storeOptionMistake(store: unknown, where: string): TypeError | undefined {
  if (typeof store === 'object' && store !== null) return undefined;
  if (typeof store !== 'string') return new TypeError(`${where}: "store" must be a store object such as memoryStore() or valkeyStore(url), got ${store === null ? 'null' : typeof store}`);
  return new TypeError(`${where}: "store": got the string ${JSON.stringify(redactUrl(store))}; ${storeCallFor(store)}`);
}

/** The adapter call that opens the store a URL-like string names. */
function storeCallFor(text: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  const quoted = JSON.stringify(redactUrl(text));
  switch (scheme) {
    case 'redis':
    case 'rediss':
    case 'valkey':
    case 'valkeys':
      return `pass valkeyStore(${quoted}) from cachette/adapters/valkey`;
    case 'http':
    case 'https':
      return `pass upstashStore({ url: ${quoted}, token }) from cachette/adapters/upstash`;
    case 'sqlite':
      return `pass sqliteStore(${JSON.stringify(text.slice('sqlite:'.length))}) from cachette/adapters/sqlite`;
    default:
      return text === 'memory' ? 'pass memoryStore() from cachette/adapters/memory' : 'pass a store object such as memoryStore() or valkeyStore(url)';
  }
}

/**
 * Names other caches use for what cachette calls `ttl` or `grace`: too far from either to be
 * caught as a typo, and just as surely meant.
 */
const SYNONYMS: Readonly<Record<string, string>> = {
  maxage: 'ttl',
  'max-age': 'ttl',
  expires: 'ttl',
  expire: 'ttl',
  expiry: 'ttl',
  timetolive: 'ttl',
  stalewhilerevalidate: 'grace',
  'stale-while-revalidate': 'grace',
};

/** The known name within two edits of `name` (case-insensitive), or the one it is a synonym of, if there is one. */
function closest(name: string, known: readonly string[]): string | undefined {
  const synonym = SYNONYMS[name.toLowerCase()];
  if (synonym !== undefined && known.includes(synonym)) return synonym;
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const edits = Math.min(distance(name.toLowerCase(), candidate.toLowerCase()), inflection(name.toLowerCase(), candidate.toLowerCase()));
    if (edits < bestDistance) {
      best = candidate;
      bestDistance = edits;
    }
  }
  return best;
}

/**
 * 2 when the two names share a stem of at least 4 characters and differ only in an ending of
 * at most 3 (`maxEntry` for `maxEntries`: a singular typed for a plural), else Infinity.
 */
function inflection(a: string, b: string): number {
  let stem = 0;
  while (stem < a.length && stem < b.length && a[stem] === b[stem]) stem++;
  return stem >= 4 && a.length - stem <= 3 && b.length - stem <= 3 ? 2 : Infinity;
}

/** Edit distance with transpositions (optimal string alignment), on short option names. */
function distance(from: string, to: string): number {
  const rows: number[][] = Array.from({ length: from.length + 1 }, (_, i) => [i, ...new Array<number>(to.length).fill(0)]);
  for (let j = 1; j <= to.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= from.length; i++) {
    for (let j = 1; j <= to.length; j++) {
      const cost = from[i - 1] === to[j - 1] ? 0 : 1;
      let edits = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && from[i - 1] === to[j - 2] && from[i - 2] === to[j - 1]) edits = Math.min(edits, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = edits;
    }
  }
  return rows[from.length]![to.length]!;
}
