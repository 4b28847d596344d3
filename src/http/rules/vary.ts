/**
 * The secondary cache key (RFC 9111 §4.1): which stored variant of a URL a request selects,
 * from the request fields the response's `Vary` names. Values are normalised first, as §4.1
 * allows, so that spellings with the same meaning share one variant: whitespace and repeated
 * field lines everywhere, and for the content-negotiation fields (Accept, Accept-Language)
 * also case, the order of equally weighted members and the spelling of q-values.
 * Accept-Encoding is reduced further, to the closed set of codings a response may come in
 * (see {@link acceptedEncodings}): junk values cannot fill a URL's variants, and the origin is
 * sent that same reduced value (origin-call.ts), so what it answers is what the key says.
 *
 * Every reading here is linear in the value's length (a split, then work per member): no regular
 * expression that can backtrack over a run of characters a client chose. A value longer than
 * {@link MAX_VARY_VALUE_LENGTH} is never a key: the request goes past the cache (http-cache.ts)
 * and its answer is not stored (storability.ts).
 */
import type { HeaderPair } from './headers.ts';

/**
 * The field names a `Vary` value lists, lowercase, sorted and unique; `'*'` when it lists `*`
 * (such a response can never be reused, §4.1).
 */
export function parseVary(value: string | null): readonly string[] | '*' {
  if (value === null) return [];
  const names = new Set<string>();
  for (const part of value.split(',')) {
    const name = part.trim().toLowerCase();
    if (name === '*') return '*';
    if (name) names.add(name);
  }
  return [...names].sort();
}

/**
 * The longest value (in UTF-16 code units, as received) of a field a response varies on that a
 * request may carry and still be answered from, or stored in, the cache. A variant keyed on a
 * longer value would serve only the client that sent it, and each one would cost a stored
 * copy of its value; such requests go to the origin, uncached (Cache-Status
 * `fwd=bypass; detail="vary-value-too-long"`).
 */
export const MAX_VARY_VALUE_LENGTH = 4096;

/** The first of `names` whose value in `headers` is longer than {@link MAX_VARY_VALUE_LENGTH}, or undefined. */
export function oversizedVaryField(names: readonly string[], headers: Headers): string | undefined {
  for (const name of names) {
    const value = headers.get(name);
    if (value !== null && value.length > MAX_VARY_VALUE_LENGTH) return name;
  }
  return undefined;
}

/** A weight (RFC 9110 §12.4.2). */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** Fields whose members carry weights (q) and whose member order means nothing beyond them (RFC 9110 §12.5). */
const NEGOTIATION_FIELDS: ReadonlySet<string> = new Set(['accept', 'accept-language']);

/**
 * The request's values for the varying fields, normalised; `null` marks an absent field,
 * distinct from an empty one. A value over {@link MAX_VARY_VALUE_LENGTH} is kept as it came,
 * unread: it is longer than any normalised value that can be stored, so it matches none.
 */
export function varyValues(names: readonly string[], headers: Headers): Array<string | null> {
  return names.map((name) => {
    const value = headers.get(name);
    if (value === null) return null;
    if (value.length > MAX_VARY_VALUE_LENGTH) return value;
    if (name === 'accept-encoding') return acceptedEncodings(value);
    return (NEGOTIATION_FIELDS.has(name) ? normaliseNegotiation(value) : undefined) ?? normaliseWhitespace(value);
  });
}

/**
 * The content codings responses are encoded with in practice (RFC 9110 §8.4.1; br RFC 7932,
 * zstd RFC 8878), in the order {@link acceptedEncodings} writes them. `x-gzip` is gzip (§8.4.1.3).
 */
const CODINGS: readonly string[] = ['br', 'deflate', 'gzip', 'zstd'];
const CODING_ALIASES: Readonly<Record<string, string>> = { 'x-gzip': 'gzip' };

/**
 * Accept-Encoding reduced to what it means for the responses a cache holds: the known codings
 * the client accepts (q above 0, or through `*`), in a fixed order, and `identity;q=0` when it
 * refuses an unencoded body (RFC 9110 §12.5.3). Weights between accepted codings, unknown
 * codings and malformed members are left out, so at most 32 values exist: `gzip;q=0.5, br`,
 * `br,gzip` and `GZIP, br, foo` are all `br,gzip`, and `gzip;q=0` or junk is `` (identity
 * only). The origin gets this value too, so it never picks a coding outside the key.
 */
export function acceptedEncodings(value: string): string {
  const weights = new Map<string, number>();
  for (const { name, weight } of weightedMembers(value)) {
    // A malformed weight: the member is left out, as if it were not there.
    const canonical = CODING_ALIASES[name] ?? name;
    if (!Number.isNaN(weight) && !weights.has(canonical)) weights.set(canonical, weight);
  }
  const wildcard = weights.get('*');
  const accepted = CODINGS.filter((coding) => (weights.get(coding) ?? wildcard ?? 0) > 0);
  const identity = weights.get('identity') ?? wildcard ?? 1;
  if (identity <= 0) accepted.push('identity;q=0');
  return accepted.join(',');
}

/** One member of a weighted list field (RFC 9110 §12.4.2): its name and other parameters lowercased, its weight (NaN when malformed). */
interface WeightedMember {
  name: string;
  /** The `q` parameter (RFC 9110 §12.4.2), 1 when absent. */
  weight: number;
  /** `key=value` (or a bare `key`), in order, without q. */
  params: string[];
}

/** The non-empty members of a weighted list field such as Accept-Encoding or Accept-Language. */
function weightedMembers(value: string): WeightedMember[] {
  const members: WeightedMember[] = [];
  for (const part of value.split(',')) {
    const [range, ...rest] = part.split(';');
    const name = range!.trim().toLowerCase();
    if (!name) continue;
    let weight = 1;
    const params: string[] = [];
    for (const param of rest) {
      const equals = param.indexOf('=');
      const key = (equals === -1 ? param : param.slice(0, equals)).trim().toLowerCase();
      const argument = equals === -1 ? '' : param.slice(equals + 1).trim();
      // A malformed q spoils the member's weight for good, however many follow.
      if (key === 'q') weight = QVALUE.test(argument) && !Number.isNaN(weight) ? Number(argument) : Number.NaN;
      else if (key) params.push(equals === -1 ? key : `${key}=${argument}`);
    }
    members.push({ name, weight, params });
  }
  return members;
}

/**
 * Whitespace around commas and runs of it carry no meaning in a list field. Member by member:
 * a pattern such as `\s*,\s*` over the whole value would be retried from every character of a
 * run of spaces that reaches no comma (quadratic: 16 KB of spaces cost half a second).
 */
function normaliseWhitespace(value: string): string {
  return value
    .split(',')
    .map((member) => member.replace(/\s+/g, ' ').trim())
    .join(',');
}

/**
 * A negotiation field in canonical form: members lowercased (language tags, codings and media
 * types are case-insensitive, and so are parameter names), `q=1` dropped and other q-values
 * written shortest, duplicates dropped, sorted by weight and then by text. Undefined when the
 * value holds something this reading might misjudge (a quoted string, a malformed q): it is
 * then only whitespace-normalised, which can split variants but never merge different ones.
 */
function normaliseNegotiation(value: string): string | undefined {
  if (value.includes('"')) return undefined;
  const members = new Map<string, number>();
  for (const { name, weight, params } of weightedMembers(value)) {
    if (Number.isNaN(weight)) return undefined;
    const member = [name, ...params].join(';');
    if (!members.has(member)) members.set(member, weight);
  }
  return [...members]
    .sort(([a, weightA], [b, weightB]) => weightB - weightA || (a < b ? -1 : a > b ? 1 : 0))
    .map(([member, weight]) => (weight === 1 ? member : `${member};q=${weight}`))
    .join(',');
}

/** True when both value lists are equal. */
export function sameValues(a: ReadonlyArray<string | null>, b: ReadonlyArray<string | null>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A short fixed-length digest of the values for the variant key (two FNV-1a 32-bit hashes).
 * Not cryptographic: the stored variant keeps its values, and a reader compares them, so a
 * collision is a miss, never a wrong response.
 */
export function variantDigest(values: ReadonlyArray<string | null>): string {
  let first = 0x811c9dc5;
  let second = 0x01000193;
  const text = JSON.stringify(values);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    first = Math.imul(first ^ code, 0x01000193);
    second = Math.imul(second ^ code, 0x5bd1e995);
  }
  return (first >>> 0).toString(36) + (second >>> 0).toString(36);
}

// ── language selection ─────────────────────────────────────────────────────────────────

/**
 * Marks a value slot that names a language rather than a request's Accept-Language. A field
 * value can never contain a line feed, so no request value can collide with it.
 */
const LANGUAGE_SLOT = '\nlanguage:';

/**
 * The language of a response that declares exactly one in Content-Language, lowercase;
 * undefined otherwise.
 */
export function contentLanguage(headers: readonly HeaderPair[]): string | undefined {
  let found: string | undefined;
  for (const [name, value] of headers) {
    if (name !== 'content-language') continue;
    if (found !== undefined || value.includes(',')) return undefined;
    found = value.trim().toLowerCase();
  }
  return found || undefined;
}

/**
 * The language ranges a request's Accept-Language weights highest (above 0), lowercase;
 * none when `*` is among them. A stored response in one of these languages is one the client would take as
 * its first choice, whatever the exact spelling of its field (RFC 9111 §4.1 lets a cache
 * select by the field's semantics).
 */
export function preferredLanguages(value: string | null): string[] {
  const normalised = value === null || value.length > MAX_VARY_VALUE_LENGTH ? undefined : normaliseNegotiation(value);
  if (!normalised) return [];
  const top: string[] = [];
  let best = 0;
  for (const member of normalised.split(',')) {
    const [name, ...params] = member.split(';');
    const weightParam = params.find((param) => param.startsWith('q='));
    const weight = weightParam === undefined ? 1 : Number(weightParam.slice(2));
    if (weight <= 0 || params.some((param) => !param.startsWith('q='))) continue;
    if (weight > best) {
      best = weight;
      top.length = 0;
    }
    if (weight === best) top.push(name!);
  }
  // A top-weighted `*` takes any language as first choice: no stored one is more right than another.
  return top.includes('*') ? [] : top;
}

/**
 * True when a variant stored for `values` may answer, by language selection, the requests that
 * weight `language` highest: its request asked for exactly that language and nothing else. A
 * variant computed for any other Accept-Language (`en, <payload>`) is the answer to that value
 * alone, however its Content-Language reads: an origin that echoes the field would otherwise
 * spread one request's payload to every visitor who prefers the same language.
 */
export function answersLanguage(vary: readonly string[], values: ReadonlyArray<string | null>, language: string): boolean {
  return values[vary.indexOf('accept-language')] === language;
}

/**
 * The values under which a response in `language` is filed for language selection: the
 * request's values with the Accept-Language slot replaced by the language.
 */
export function languageValues(vary: readonly string[], values: ReadonlyArray<string | null>, language: string): Array<string | null> {
  const slot = vary.indexOf('accept-language');
  return values.map((v, i) => (i === slot ? LANGUAGE_SLOT + language : v));
}
