/**
 * What `GET /work` does, written once for every runtime (no `node:` import: it runs in workerd
 * too): six awaited cache calls on keys spread over a keyspace, every value read back checked.
 */
import type { Contender } from '../../contenders/types.ts';
import { isRowsValue, isSmallValue, rowsValue, smallValue } from '../../support/payloads.ts';

/** Small keys are ids 0 … SMALL_KEYS-1; the even ones exist (prefilled), so reads hit about half the time. */
export const SMALL_KEYS = 2000;
/** Keys per getMany. */
export const MANY = 10;
/** The ~14 KiB documents are written and read back under DOC_KEYS keys. */
export const DOC_KEYS = 100;
/** Counters incremented. */
export const COUNTER_KEYS = 100;

/** Which keys one request touches. */
export interface WorkParams {
  /** Small key read alone, and the first of the getMany run. */
  read: number;
  /** Even small key rewritten (writes stay on even ids so the hit ratio stays near 50 %). */
  write: number;
  /** Document key written, then read back. */
  doc: number;
  /** Counter incremented. */
  counter: number;
}

/** What one request found, returned as the response body (the smoke test checks it). */
export interface WorkResult {
  /** The small key read alone was a hit. */
  small: boolean;
  /** Hits among the getMany keys. */
  many: number;
  /** The counter's new value. */
  counter: number;
  /** The document read back equals the one written. */
  doc: boolean;
}

/** A value read back that is neither a miss nor what was stored: a broken contender, never ignored. */
export class WrongValueError extends Error {
  override readonly name = 'WrongValueError';
}

/** The keys of one server's workload, under a prefix of its own: the servers of a run share one redis-server. */
export interface WorkKeys {
  small(i: number): string;
  doc(i: number): string;
  counter(i: number): string;
}

/** The workload's keys under `prefix` (`PREFIX:small:4`, `PREFIX:doc:3`, `PREFIX:counter:7`). */
export function workKeys(prefix: string): WorkKeys {
  return { small: (i) => `${prefix}:small:${i}`, doc: (i) => `${prefix}:doc:${i}`, counter: (i) => `${prefix}:counter:${i}` };
}

const DEFAULT_KEYS = workKeys('fs');

const randomInt = (below: number): number => Math.floor(Math.random() * below);

/** Keys for one request, spread uniformly over the keyspace. */
export function randomParams(): WorkParams {
  return { read: randomInt(SMALL_KEYS - MANY), write: 2 * randomInt(SMALL_KEYS / 2), doc: randomInt(DOC_KEYS), counter: randomInt(COUNTER_KEYS) };
}

const FIELDS = ['read', 'write', 'doc', 'counter'] as const;
const LIMITS: Record<(typeof FIELDS)[number], number> = { read: SMALL_KEYS - MANY, write: SMALL_KEYS, doc: DOC_KEYS, counter: COUNTER_KEYS };

/**
 * Keys named in the query (`?read=4&write=6&doc=3&counter=7`, for tests), or random ones when
 * the query names none. A value out of range or not an integer is a RangeError (the route
 * answers 400), never a key outside the keyspace.
 */
export function paramsFromQuery(query: URLSearchParams): WorkParams {
  if (!FIELDS.some((f) => query.has(f))) return randomParams();
  const params = randomParams();
  for (const field of FIELDS) {
    const raw = query.get(field);
    if (raw === null) continue;
    const n = Number(raw);
    if (!/^\d{1,9}$/.test(raw) || n >= LIMITS[field] || (field === 'write' && n % 2 === 1)) {
      throw new RangeError(`"${field}" must be an integer from 0 to ${LIMITS[field] - 1}${field === 'write' ? ' and even' : ''}, got "${raw}"`);
    }
    params[field] = n;
  }
  return params;
}

/**
 * The six awaited calls: get a ~150 B object; getMany of 10; set a ~150 B object; set a ~14 KiB
 * JSON document; incr; get that document back. Each value read is checked against what was
 * stored under that key (a miss is fine, another value is a {@link WrongValueError}).
 */
export async function doWork(cache: Contender, p: WorkParams, key: WorkKeys = DEFAULT_KEYS): Promise<WorkResult> {
  const one = await cache.get(key.small(p.read));
  if (one != null && !isSmallValue(one, p.read)) throw new WrongValueError(`get ${key.small(p.read)} returned another value`);
  const keys = Array.from({ length: MANY }, (_, k) => key.small(p.read + k));
  const values = await cache.getMany(keys);
  let many = 0;
  values.forEach((v, k) => {
    if (v == null) return;
    if (!isSmallValue(v, p.read + k)) throw new WrongValueError(`getMany ${keys[k]} returned another value`);
    many++;
  });
  await cache.set(key.small(p.write), smallValue(p.write));
  await cache.set(key.doc(p.doc), rowsValue(p.doc));
  const counter = await cache.incr(key.counter(p.counter));
  if (!Number.isSafeInteger(counter) || counter < 1) throw new WrongValueError(`incr ${key.counter(p.counter)} returned ${String(counter)}`);
  const doc = await cache.get(key.doc(p.doc));
  // Every request writes this key before reading it, always with the same value: a miss here is lost data.
  if (!isRowsValue(doc, p.doc)) throw new WrongValueError(`get ${key.doc(p.doc)} right after setting it returned ${doc == null ? 'a miss' : 'another value'}`);
  return { small: one != null, many, counter, doc: true };
}

/** Stores every even small key, so reads hit about half the time from the first request on. */
export async function prefill(cache: Contender, key: WorkKeys = DEFAULT_KEYS): Promise<number> {
  const ids = Array.from({ length: SMALL_KEYS / 2 }, (_, k) => 2 * k);
  // 50 writes in flight: quick, without a burst one store would refuse.
  for (let at = 0; at < ids.length; at += 50) {
    await Promise.all(ids.slice(at, at + 50).map((i) => cache.set(key.small(i), smallValue(i))));
  }
  return ids.length;
}
