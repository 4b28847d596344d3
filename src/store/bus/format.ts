/**
 * The wire format of the coherence bus over pub/sub (pubsub-bus.ts), defined once: channel
 * names, the lease, and the three messages. Every process sharing a store must agree on all of
 * it, the lease included (a writer waits for a silent holder exactly as long as that holder
 * serves without hearing from the bus), so none of it is configurable.
 *
 *   cachette:bus:<bucket>     invalidations of the keys whose bucket this is (0 … BUCKETS-1)
 *   cachette:bus:all          invalidations of everything (a clear, or too many keys at once)
 *   cachette:bus:h:<id>       one process's own channel: acknowledgements to it, and its beats
 *
 * Messages are JSON objects: `{"w":id,"s":seq,"k":[keys]}` (an invalidation; no `k`: everything;
 * `"d":1` when the write removed the keys, for watchers: a process that does not know it ignores it),
 * `{"a":id,"s":[seqs]}` (holder `a` applied those invalidations of the channel's owner),
 * `{"b":n}` (a beat of the channel's owner, to itself). Whatever arrives is untrusted: a message
 * that is not one of these is an invalidation of everything.
 */

/** How many buckets keys are spread over: a holder listens to the buckets of what it holds. */
export const BUCKETS = 1024;

/** How long a lease lasts, ms: a holder that has not heard its own beat back for this long has stopped serving. */
export const LEASE_MS = 1000;

/**
 * What a holder takes off its lease: it stops serving this long before a writer that waited
 * the whole lease gives up on it (each measures on its own monotonic clock; only their rates
 * differ, by far less than this).
 */
export const LEASE_MARGIN_MS = 100;

/** How often a holder sends itself a beat: several per lease, so that one late beat costs nothing. */
export const BEAT_MS = LEASE_MS / 5;

/** The most keys one invalidation message names; more, or longer, become an invalidation of everything. */
export const MAX_MESSAGE_KEYS = 256;
/** The most characters of keys one invalidation message carries. */
export const MAX_MESSAGE_CHARS = 64 * 1024;

const CHANNEL = 'cachette:bus:';

/** The channel of invalidations of everything. */
export const ALL_CHANNEL = `${CHANNEL}all`;

/** The bucket of a store key: FNV-1a over its UTF-16 code units, modulo {@link BUCKETS}. */
export function bucketOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % BUCKETS;
}

/** The channel invalidations of `key` travel on. */
export function keyChannel(key: string): string {
  return CHANNEL + bucketOf(key);
}

/** Every bucket channel, in bucket order: what a watcher listens to. */
export function bucketChannels(): string[] {
  return Array.from({ length: BUCKETS }, (_, bucket) => CHANNEL + bucket);
}

/** The own channel of process `id`. */
export function ownChannel(id: string): string {
  return `${CHANNEL}h:${id}`;
}

/** True for a process's own channel (acknowledgements and beats travel there; no invalidation does). */
export function isOwnChannel(channel: string): boolean {
  return channel.startsWith(`${CHANNEL}h:`);
}

/** One message, as decoded. */
export type BusMessage =
  | { readonly kind: 'invalidate'; readonly writer: string; readonly seq: number; readonly keys: readonly string[] | undefined; readonly removed: boolean }
  | { readonly kind: 'ack'; readonly holder: string; readonly seqs: readonly number[] }
  | { readonly kind: 'beat'; readonly beat: number }
  | { readonly kind: 'unknown' };

/** An invalidation of `keys` (undefined: everything) by writer `writer`, its `seq`-th; `removed`: by a removal. */
export function invalidationMessage(writer: string, seq: number, keys: readonly string[] | undefined, removed = false): string {
  if (keys === undefined) return JSON.stringify({ w: writer, s: seq });
  return JSON.stringify(removed ? { w: writer, s: seq, k: keys, d: 1 } : { w: writer, s: seq, k: keys });
}

/** Holder `holder` applied the invalidations `seqs` of the channel's owner. */
export function ackMessage(holder: string, seqs: readonly number[]): string {
  return JSON.stringify({ a: holder, s: seqs });
}

/** The owner's `beat`-th beat. */
export function beatMessage(beat: number): string {
  return `{"b":${beat}}`;
}

const UNKNOWN: BusMessage = Object.freeze({ kind: 'unknown' });

/** Decodes a message; anything that is not exactly one of the three is `unknown`. */
export function decodeMessage(text: string): BusMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return UNKNOWN;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return UNKNOWN;
  const o = value as Record<string, unknown>;
  if (typeof o.w === 'string' && isSeq(o.s)) {
    // Only the exact `1` marks a removal: anything else there is a write, which a watcher reports as an update.
    const removed = o.d === 1;
    if (o.k === undefined) return { kind: 'invalidate', writer: o.w, seq: o.s, keys: undefined, removed: false };
    if (Array.isArray(o.k) && o.k.every((key) => typeof key === 'string')) return { kind: 'invalidate', writer: o.w, seq: o.s, keys: o.k as string[], removed };
    return UNKNOWN;
  }
  if (typeof o.a === 'string' && Array.isArray(o.s) && o.s.every(isSeq)) return { kind: 'ack', holder: o.a, seqs: o.s as number[] };
  if (isSeq(o.b)) return { kind: 'beat', beat: o.b };
  return UNKNOWN;
}

function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Bytes an invalidation message takes besides its keys' JSON, at most: `{"w":"<16 hex>","s":<seq>,"k":[],"d":1}`
 * with the longest safe-integer seq is 50.
 */
const MESSAGE_FRAME_BYTES = 64;
/** Bytes an acknowledgement takes besides its seqs: `{"a":"<16 hex>","s":[]}`; each seq takes at most 16 digits and a comma. */
const ACK_FRAME_BYTES = 32;
const SEQ_BYTES = 17;

const utf8 = new TextEncoder();

/**
 * The invalidation messages for `keys`: one per channel, each naming that channel's keys; or,
 * when there are more than a message may carry, one on {@link ALL_CHANNEL} for everything.
 * `maxBytes` (a transport whose payloads are bounded, BusTransport.maxMessageBytes): a channel's
 * keys are split over as many messages as keep each within it, and a key too long for one
 * message on its own makes it an invalidation of everything.
 */
export function messagesFor(keys: readonly string[] | undefined, maxBytes?: number): Array<{ channel: string; keys: readonly string[] | undefined }> {
  if (keys === undefined) return [{ channel: ALL_CHANNEL, keys: undefined }];
  const byChannel = new Map<string, string[]>();
  let chars = 0;
  for (const key of keys) {
    chars += key.length;
    const channel = keyChannel(key);
    const list = byChannel.get(channel);
    if (list) list.push(key);
    else byChannel.set(channel, [key]);
  }
  if (keys.length > MAX_MESSAGE_KEYS || chars > MAX_MESSAGE_CHARS) return [{ channel: ALL_CHANNEL, keys: undefined }];
  if (maxBytes === undefined) return [...byChannel].map(([channel, list]) => ({ channel, keys: list }));
  const messages: Array<{ channel: string; keys: readonly string[] }> = [];
  for (const [channel, list] of byChannel) {
    let part: string[] = [];
    let bytes = MESSAGE_FRAME_BYTES;
    for (const key of list) {
      // The key as the message spells it (JSON escapes), and the comma before it.
      const size = utf8.encode(JSON.stringify(key)).length + 1;
      if (MESSAGE_FRAME_BYTES + size > maxBytes) return [{ channel: ALL_CHANNEL, keys: undefined }];
      if (bytes + size > maxBytes) {
        messages.push({ channel, keys: part });
        part = [];
        bytes = MESSAGE_FRAME_BYTES;
      }
      part.push(key);
      bytes += size;
    }
    messages.push({ channel, keys: part });
  }
  return messages;
}

/** The acknowledgements by `holder` of `seqs`: one message, or (`maxBytes`: bounded payloads) as many as keep each within it. */
export function ackMessages(holder: string, seqs: readonly number[], maxBytes?: number): string[] {
  if (maxBytes === undefined) return [ackMessage(holder, seqs)];
  const per = Math.max(1, Math.floor((maxBytes - ACK_FRAME_BYTES) / SEQ_BYTES));
  const messages: string[] = [];
  for (let from = 0; from < seqs.length; from += per) messages.push(ackMessage(holder, seqs.slice(from, from + per)));
  return messages;
}
