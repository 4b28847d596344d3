/**
 * Which directives govern a response for this cache: a targeted field such as
 * CDN-Cache-Control (RFC 9213) when one is present and valid, otherwise Cache-Control and
 * Expires (RFC 9111 §5.2.2, §5.3).
 */
import { MAX_DELTA_SECONDS, parseDirectives, type Directives } from './cache-control.ts';
import { parseDictionary, type MemberValue } from './structured-fields.ts';

/** The directives a response's storage and freshness follow. */
export interface ResponseDirectives {
  /** By lowercase name, in the shape `parseDirectives` gives (delta-seconds as decimal text). */
  cacheControl: Directives;
  /** False when a targeted field applies: it replaces Expires as well as Cache-Control (RFC 9213 §2.1). */
  useExpires: boolean;
}

/** Directives whose argument is delta-seconds: a targeted field must give a non-negative Integer. */
const DELTA_DIRECTIVES: ReadonlySet<string> = new Set(['max-age', 's-maxage', 'stale-while-revalidate', 'stale-if-error']);
/** Directives that are flags: a targeted field must give a Boolean (a bare key is `?1`). */
const FLAG_DIRECTIVES: ReadonlySet<string> = new Set(['no-store', 'public', 'must-revalidate', 'proxy-revalidate', 'must-understand', 'no-transform', 'immutable']);
/** Flags that may also name fields (`no-cache="Set-Cookie"`): a String, a Token or an Inner List of them is accepted too. */
const QUALIFIED_FLAGS: ReadonlySet<string> = new Set(['no-cache', 'private']);

/** The targeted fields this cache honours by default (RFC 9213 §2: every CDN reads this one). */
export const DEFAULT_TARGETED_FIELDS: readonly string[] = ['cdn-cache-control'];

/**
 * The directives for `headers`: those of the first targeted field (in `targetedFields` order,
 * lowercase names) that is present, non-empty and valid; otherwise Cache-Control's.
 */
export function responseDirectives(headers: Headers, targetedFields: readonly string[]): ResponseDirectives {
  for (const name of targetedFields) {
    const value = headers.get(name);
    if (value === null) continue;
    const targeted = targetedDirectives(value);
    if (targeted !== undefined) return { cacheControl: targeted, useExpires: false };
  }
  return { cacheControl: parseDirectives(headers.get('cache-control')), useExpires: true };
}

/**
 * A targeted field's directives, or undefined when the field must be ignored: it does not
 * parse as a Dictionary, it is empty, or a directive this cache uses has a value of the wrong
 * type (`max-age="60"`, `max-age=-1`, `no-store=3`).
 */
export function targetedDirectives(value: string): Directives | undefined {
  const dictionary = parseDictionary(value);
  if (dictionary === undefined || dictionary.size === 0) return undefined;
  const out = new Map<string, string | true>();
  for (const [name, member] of dictionary) {
    const directive = directiveValue(name, member);
    if (directive === undefined) return undefined;
    if (directive !== false) out.set(name, directive);
  }
  return out;
}

/** A member as a directive: its value, `false` for an absent flag (`?0`), undefined for a wrong type. */
function directiveValue(name: string, member: MemberValue): string | true | false | undefined {
  if (DELTA_DIRECTIVES.has(name)) {
    if (member.type !== 'integer' || member.value < 0) return undefined;
    // RFC 9111 §1.2.2: a delta-seconds too large to represent counts as 2^31.
    return String(Math.min(member.value, MAX_DELTA_SECONDS));
  }
  if (member.type === 'boolean') return member.value === true;
  if (FLAG_DIRECTIVES.has(name)) return undefined;
  if (QUALIFIED_FLAGS.has(name)) return member.type === 'string' || member.type === 'token' || member.type === 'inner-list' ? true : undefined;
  // A directive this cache does not use: kept when it reads as text, and never a reason to drop the field.
  return member.type === 'inner-list' ? true : String(member.value);
}
