/**
 * Every key a cache writes on its store, under the cache's prefix (so `clear()` removes them all):
 *
 *   <prefix><key>                 an entry: the caller's key, escaped (below)
 *   <prefix>#{tag:<tag>}:gen      a tag's generation, a decimal counter
 *   <prefix>#{tag:<tag>}:fence    the write leases held on a tag
 *   <prefix>#{tag:<tag>}:soft     the tag's latest run of soft moves (`from:to:at`)
 *   <prefix>#lease:<key>          the fill lease of one entry
 *   <prefix>#lock:<name>          the lease of a `cache.lock(name)` holder
 *   <prefix>#lock-fence:<name>    the fencing counter of that lock, a decimal counter
 *
 * The kinds are disjoint by construction, not by convention. A key the engine writes for
 * itself always has `#` right after the prefix, followed by `{` or `l`. A caller's key is
 * escaped so that it can never produce that: one more `#` goes in front of every run of `#` that
 * starts the key or follows a `:`. The escaped key therefore never holds `:#` or a leading `#`
 * followed by anything but another `#`, and the escape is one-to-one (drop one `#` of each such
 * run to undo it). Since every prefix ends with `:` (options.ts joins its segments that way, and
 * refuses segments that start with `#`), this holds across caches too: no key of one cache,
 * namespaced or not, can name a tag counter, a fence or a lease of another cache on the store.
 * A caller writing `#{tag:users}:gen` writes an entry, and `incr` on it moves a counter of its
 * own, never the tag's generation.
 *
 * The keys of a tag share the hash tag `{tag:<tag>}`, so on a Valkey/Redis cluster they live
 * in one slot and one script reads or writes them together (a `}` inside the tag name ends the
 * hash tag early, at the same place in both keys, so they still share it). The `tag:` inside the
 * braces keeps the hash tag non-empty whatever the tag starts with (`{}` would hash the whole
 * key). Entry keys keep no hash tag of the engine's: entries spread over the cluster, and a hot
 * tag's two keys live on one node, as any hot key does.
 */
import type { TagKeys } from '../store/types.ts';

const HASH = 0x23; // '#'

/** The store key of the caller's entry `key` under `prefix`. */
export function entryKey(prefix: string, key: string): string {
  // Most keys hold no `#` where it matters: one char test and one scan, no allocation beyond the concatenation.
  if (key.charCodeAt(0) !== HASH && !key.includes(':#')) return prefix + key;
  const escaped = key.replaceAll(':#', ':##');
  return prefix + (key.charCodeAt(0) === HASH ? `#${escaped}` : escaped);
}

/**
 * The caller's key behind the store key `stored` of a cache under `prefix` (the inverse of
 * {@link entryKey}), or undefined when `stored` is none of this cache's entries: outside the
 * prefix, or a tag's or a lease's key, of this cache or of a cache namespaced below it. Those
 * are the escaped forms no caller key produces: a `#` not doubled at the start or after a `:`.
 */
export function callerKeyOf(prefix: string, stored: string): string | undefined {
  if (!stored.startsWith(prefix)) return undefined;
  const escaped = stored.slice(prefix.length);
  // Most keys hold no `#` where it matters, as in entryKey.
  if (escaped.charCodeAt(0) !== HASH && !escaped.includes(':#')) return escaped;
  let start = 0;
  if (escaped.charCodeAt(0) === HASH) {
    if (escaped.charCodeAt(1) !== HASH) return undefined;
    start = 1;
  }
  for (let at = escaped.indexOf(':#', start); at !== -1; at = escaped.indexOf(':#', at + 3)) {
    if (escaped.charCodeAt(at + 2) !== HASH) return undefined;
  }
  return escaped.slice(start).replaceAll(':##', ':#');
}

/** The store keys of `tag` under `prefix`. */
export function tagKeys(prefix: string, tag: string): TagKeys {
  const base = `${prefix}#{tag:${tag}}`;
  return { generation: `${base}:gen`, fence: `${base}:fence`, soft: `${base}:soft` };
}

/** The fill lease key of the caller's entry `key` (unescaped: the lease kind is its own) under `prefix`. */
export function fillLeaseKey(prefix: string, key: string): string {
  return `${prefix}#lease:${key}`;
}

/** The lease key of the lock `name` (`cache.lock`) under `prefix`. */
export function lockKey(prefix: string, name: string): string {
  return `${prefix}#lock:${name}`;
}

/** The fencing counter of the lock `name` under `prefix`: kept apart from its lease, so that it outlives every holder. */
export function lockFenceKey(prefix: string, name: string): string {
  return `${prefix}#lock-fence:${name}`;
}

/** The tag whose generation counter is the store key `key` of a cache under `prefix`, or undefined when it is none. */
export function tagOfGenerationKey(prefix: string, key: string): string | undefined {
  const head = `${prefix}#{tag:`;
  return key.startsWith(head) && key.endsWith('}:gen') && key.length >= head.length + 5 ? key.slice(head.length, -'}:gen'.length) : undefined;
}

/**
 * Checks one segment of the `prefix`/`namespace` options: a segment starting with `#` would make
 * the cache's entry keys overlap the tag counters, fences or leases of another cache on the
 * same store (see above). Returns the reason, or undefined when the segment is fine.
 */
export function reservedSegment(segment: string): string | undefined {
  return segment.charCodeAt(0) === HASH || segment.includes(':#') ? 'may not start with "#" nor hold ":#" (the cache reserves them for its tag and lease keys)' : undefined;
}
