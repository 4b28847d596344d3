/**
 * `cache.expire`: fresh entries turn stale now and keep their grace (docs/architecture.md#stored-formats,
 * the entry envelope: their created-at and fresh-for are rewritten, nothing else). A store with
 * {@link Store.expireEntries} does it atomically per key in one round trip (a script on the
 * Redis-protocol stores, one step or transaction on memory and SQLite). Elsewhere (Workers KV,
 * Upstash, third-party stores) the engine reads the entries and writes them back rewritten:
 * two round trips, and a write that lands between the two is overwritten by the older value,
 * now stale, which the next read serves while refreshing it.
 */
import { staledEnvelope } from '../store/layout/envelope.ts';
import type { Store, StoreEntry } from '../store/types.ts';

/** Marks the entries under `fulls` (store keys) stale at `now`; resolves how many were fresh. */
export async function expireEntries(path: Store, fulls: readonly string[], now: number): Promise<number> {
  if (path.expireEntries) return path.expireEntries({ keys: fulls, now });
  const found = await path.getMany(fulls);
  const rewritten: StoreEntry[] = [];
  for (let i = 0; i < fulls.length; i++) {
    const bytes = found[i];
    const staled = bytes === undefined ? undefined : staledEnvelope(bytes, now);
    if (staled !== undefined) rewritten.push({ key: fulls[i]!, value: staled.bytes, ttlMs: staled.ttlMs });
  }
  if (rewritten.length > 0) await path.setMany(rewritten);
  return rewritten.length;
}
