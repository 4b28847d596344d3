import type { GenerationRead, GenerationReadResult, GenerationWrite, Store, TagKeys, TagState } from '../../store/types.ts';
import { StoreLayer } from './layer.ts';

/** A read waiting for the end of the tick, with its caller's promise. */
interface PendingRead {
  read: GenerationRead;
  resolve(result: GenerationReadResult): void;
  reject(error: unknown): void;
}

/** Hops without a new read after which the pending reads go (see GenerationLayer's flush). */
const QUIET_HOPS = 3;
/** The most hops a read waits, so that a steady stream of reads cannot hold the first one back. */
const MAX_HOPS = 24;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The tag-generation layer of the store path (DESIGN.md, "Coalescing, leases, tags and tiers").
 * Above it, every store offers {@link Store.readWithGenerations} and {@link Store.writeGenerations}:
 *
 * - on a store that has them (a script on Valkey and Upstash, a transaction on SQLite, one
 *   synchronous step in memory), the tagged reads issued before the next microtask checkpoint
 *   are merged into one read: fifty concurrent tagged gets read each key and each tag once.
 *   On a store that keeps the order of calls in flight (one connection), the merged read goes
 *   out as a plain getMany of the entries beside a script that reads only the tags, both in
 *   the same round trip: the server then runs its native MGET for the entries instead of one
 *   GET per entry inside the script (~1.2 µs each there), and the script reads two counters
 *   where it used to read fifty entries. Elsewhere (a pool of HTTP requests, where two calls
 *   cost two requests) it goes out as the one script. Either is safe: an entry is current only
 *   when every generation it recorded equals the one read, so an invalidation between the two
 *   reads can only make it a miss, and a fill records what was read before its factory ran.
 *   Entries read with a known prefix (an L1 copy to confirm) stay in the script, which compares
 *   them server-side;
 * - on a store without them (Workers KV, third-party stores), reads become one getMany of the
 *   entries and the counters (plus a set-if-absent for a counter that is missing), and writes
 *   become increments. Such a store has no write leases: {@link fences} is false and fenced
 *   writes there only bump generations (README, "Tags and fenced writes").
 */
export class GenerationLayer extends StoreLayer {
  /** True when the store below holds write leases itself, so that fills can be fenced. */
  readonly fences: boolean;
  readonly #native: boolean;
  /** Entries read apart from the tags (see above): the store keeps the order of calls in flight. */
  readonly #apart: boolean;
  #pending: PendingRead[] = [];
  /** Microtask hops the pending reads waited so far, and how many of the last ones added none. */
  #hops = 0;
  #quietHops = 0;
  /** Reads pending at the last hop. */
  #seen = 0;

  constructor(next: Store) {
    super(next);
    this.#native = typeof next.readWithGenerations === 'function' && typeof next.writeGenerations === 'function';
    this.fences = this.#native;
    this.#apart = next.ordered === true;
    // Offered whatever the store below has (StoreLayer hid them when it lacks them).
    this.readWithGenerations = GenerationLayer.prototype.readWithGenerations;
    this.writeGenerations = GenerationLayer.prototype.writeGenerations;
    this.forwardSyncReads();
    // A synchronous tagged read needs the store's own one; the fallback reads in several steps.
    if (!this.#native) this.readWithGenerationsSync = undefined;
  }

  override readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    return new Promise<GenerationReadResult>((resolve, reject) => {
      if (this.#pending.length === 0) {
        this.#hops = 0;
        this.#quietHops = 0;
        this.#seen = 0;
        queueMicrotask(this.#flush);
      }
      this.#pending.push({ read, resolve, reject });
    });
  }

  override writeGenerations(write: GenerationWrite): Promise<void> {
    if (this.#native) return this.next.writeGenerations!(write);
    return this.#bumpByIncrement(write);
  }

  /**
   * Sends the reads gathered so far once the microtask queue has gone quiet. Reads of one tick
   * arrive at different depths of their callers' promise chains (a handler that awaited twice
   * before reading arrives two hops after one that awaited once), so a flush on the first hop
   * would split one tick into several scripts. The flush waits, one microtask hop at a time,
   * until {@link QUIET_HOPS} hops pass with no new read, and never longer than {@link MAX_HOPS}:
   * a lone read costs a few hops (tens of nanoseconds), a tick's reads one store call.
   */
  readonly #flush = (): void => {
    const arrived = this.#pending.length > this.#seen;
    this.#seen = this.#pending.length;
    this.#quietHops = arrived ? 0 : this.#quietHops + 1;
    if (++this.#hops < MAX_HOPS && this.#quietHops < QUIET_HOPS) {
      queueMicrotask(this.#flush);
      return;
    }
    const pending = this.#pending;
    this.#pending = [];
    if (pending.length === 1) {
      const only = pending[0]!;
      this.#send(only.read).then(only.resolve, only.reject);
      return;
    }
    this.#sendMerged(pending);
  };

  /** One store call for every read of the tick: each key (with the same known prefix) and each tag once. */
  #sendMerged(pending: PendingRead[]): void {
    const keys: string[] = [];
    const prefixes: Array<Uint8Array | undefined> = [];
    const keySlots = new Map<string, number>();
    const tags: TagKeys[] = [];
    const tagSlots = new Map<string, number>();
    let anyPrefix = false;
    // Where each read's keys and tags sit in the merged read, all reads' slots in two flat lists.
    const keyAt: number[] = [];
    const tagAt: number[] = [];
    for (const { read } of pending) {
      for (let i = 0; i < read.keys.length; i++) {
        const key = read.keys[i]!;
        const prefix = read.knownPrefixes?.[i];
        // Keys read with different known prefixes keep their own slots: one may want the value back.
        const id = prefix === undefined ? key : `${key}\u0000${String.fromCharCode(...prefix)}`;
        let at = keySlots.get(id);
        if (at === undefined) {
          at = keys.push(key) - 1;
          prefixes.push(prefix);
          keySlots.set(id, at);
          if (prefix !== undefined) anyPrefix = true;
        }
        keyAt.push(at);
      }
      for (const tag of read.tags) {
        let at = tagSlots.get(tag.generation);
        if (at === undefined) {
          at = tags.push(tag) - 1;
          tagSlots.set(tag.generation, at);
        }
        tagAt.push(at);
      }
    }
    const merged: GenerationRead = { keys, knownPrefixes: anyPrefix ? prefixes : undefined, tags, epoch: pending[0]!.read.epoch };
    this.#send(merged).then(
      (result) => {
        let keyFrom = 0;
        let tagFrom = 0;
        for (const { read, resolve } of pending) {
          const values = new Array<Uint8Array | 'unchanged' | undefined>(read.keys.length);
          for (let i = 0; i < values.length; i++) values[i] = result.values[keyAt[keyFrom++]!];
          const states = new Array<TagState>(read.tags.length);
          for (let i = 0; i < states.length; i++) states[i] = result.tags[tagAt[tagFrom++]!]!;
          resolve({ values, tags: states });
        }
      },
      (error: unknown) => {
        for (const { reject } of pending) reject(error);
      },
    );
  }

  #send(read: GenerationRead): Promise<GenerationReadResult> {
    try {
      if (!this.#native) return this.#readByGetMany(read);
      return this.#apart && read.keys.length > 0 ? this.#readApart(read) : this.next.readWithGenerations!(read);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The entries without a known prefix by a plain getMany, everything else by the script, in one round trip. */
  #readApart(read: GenerationRead): Promise<GenerationReadResult> {
    const plain: string[] = [];
    const plainAt: number[] = [];
    const scripted: string[] = [];
    const scriptedPrefixes: Array<Uint8Array | undefined> = [];
    const scriptedAt: number[] = [];
    read.keys.forEach((key, i) => {
      const prefix = read.knownPrefixes?.[i];
      if (prefix === undefined) {
        plain.push(key);
        plainAt.push(i);
      } else {
        scripted.push(key);
        scriptedPrefixes.push(prefix);
        scriptedAt.push(i);
      }
    });
    if (plain.length === 0) return this.next.readWithGenerations!(read);
    const entries = this.next.getMany(plain);
    const states =
      scripted.length > 0 || read.tags.length > 0
        ? this.next.readWithGenerations!({ keys: scripted, knownPrefixes: scripted.length > 0 ? scriptedPrefixes : undefined, tags: read.tags, epoch: read.epoch })
        : undefined;
    return Promise.all([entries, states]).then(([values, result]) => {
      const merged = new Array<Uint8Array | 'unchanged' | undefined>(read.keys.length);
      for (let j = 0; j < plainAt.length; j++) merged[plainAt[j]!] = values[j];
      for (let j = 0; j < scriptedAt.length; j++) merged[scriptedAt[j]!] = result!.values[j];
      return { values: merged, tags: result?.tags ?? [] };
    });
  }

  /** Without the capability: one getMany of entries and counters; a missing counter is created at the epoch. */
  async #readByGetMany(read: GenerationRead): Promise<GenerationReadResult> {
    const counterKeys = read.tags.map((tag) => tag.generation);
    const got = await this.next.getMany([...read.keys, ...counterKeys]);
    const values = read.keys.map((_, i): Uint8Array | 'unchanged' | undefined => {
      const value = got[i];
      const known = read.knownPrefixes?.[i];
      return value && known && startsWith(value, known) ? 'unchanged' : value;
    });
    const counters = got.slice(read.keys.length);
    const missing = counters.flatMap((bytes, i) => (bytes === undefined ? [i] : []));
    if (missing.length > 0) {
      const epoch = encoder.encode(String(read.epoch));
      // Set-if-absent where the store can: two readers creating one counter agree on one epoch.
      const add = this.next.add?.bind(this.next);
      const created = await Promise.all(missing.map((i) => (add ? add(counterKeys[i]!, epoch) : this.next.set(counterKeys[i]!, epoch).then(() => true))));
      const lost = missing.filter((_, j) => !created[j]);
      const reread = lost.length > 0 ? await this.next.getMany(lost.map((i) => counterKeys[i]!)) : [];
      for (const i of missing) counters[i] = epoch;
      for (let j = 0; j < lost.length; j++) counters[lost[j]!] = reread[j];
    }
    const tags = counters.map((bytes, i): TagState => ({ generation: parseGeneration(bytes, counterKeys[i]!), fenced: false }));
    return { values, tags };
  }

  /**
   * Without the capability: an increment per tag. An increment that answers 1 created the
   * counter (generations never hold small numbers otherwise), so it is moved to the epoch.
   */
  async #bumpByIncrement(write: GenerationWrite): Promise<void> {
    if (write.action === 'release') return;
    await Promise.all(
      write.tags.map(async (tag) => {
        if ((await this.next.incr(tag.generation, 1)) === 1) await this.next.incr(tag.generation, write.epoch - 1);
      }),
    );
  }
}

function startsWith(value: Uint8Array, prefix: Uint8Array): boolean {
  if (value.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (value[i] !== prefix[i]) return false;
  return true;
}

/** A counter read back: anything but a safe integer is an error, never a guess. */
function parseGeneration(bytes: Uint8Array | undefined, key: string): number {
  const text = bytes === undefined ? '' : decoder.decode(bytes);
  const generation = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(generation)) throw new TypeError(`the generation counter "${key}" holds "${text.slice(0, 40)}", not an integer`);
  return generation;
}
