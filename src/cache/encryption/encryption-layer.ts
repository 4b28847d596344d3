/**
 * The encryption step of the store path (docs/cache.md#encryption-at-rest): every entry
 * envelope written is sealed (sealed-envelope.ts) and every one read is opened, here at the
 * store boundary, which is asynchronous already, so that the codec and the default path stay
 * synchronous and untouched: the layer exists only in caches built with `encryption`.
 * Counters, leases and tag records are no envelopes and pass as they are. An entry that cannot
 * be opened reads as a {@link refusal}, which the cache's codec (sealed-codec.ts) counts as a
 * corrupt miss with the reason.
 */
import type { GenerationRead, GenerationReadResult, StoreEntry, StoreOp, StoreOpResult } from '../../store/types.ts';
import { FIXED_BYTES, FLAGS_OFFSET, isEnvelope, MAGIC, VERSION, VERSION_OFFSET } from '../../store/layout/envelope.ts';
import { StoreLayer } from '../path/layer.ts';
import type { Keyring } from './keyring.ts';
import { openEnvelope, payloadOffset, SEALED_FLAGS, sealEnvelope } from './sealed-envelope.ts';
import type { Store } from '../../store/types.ts';

/** Why each refusal handed to the engine was refused (see {@link refusalReason}). */
const reasons = new WeakMap<Uint8Array, string>();

/** Bytes that read as a sealed envelope nobody can open, carrying `reason` for the codec. */
function refusal(reason: string): Uint8Array {
  const bytes = new Uint8Array(FIXED_BYTES);
  bytes[0] = MAGIC;
  bytes[VERSION_OFFSET] = VERSION;
  bytes[FLAGS_OFFSET] = SEALED_FLAGS;
  reasons.set(bytes, reason);
  return bytes;
}

/** Why `bytes` cannot be read, when they are a sealed envelope the path could not open; else undefined. */
export function refusalReason(bytes: Uint8Array): string | undefined {
  if (bytes[FLAGS_OFFSET] !== SEALED_FLAGS || !isEnvelope(bytes)) return undefined;
  return reasons.get(bytes) ?? 'cachette encryption: an encrypted entry that was not decrypted';
}

/** Seals envelopes on their way to the store and opens them on their way back. */
export class EncryptionLayer extends StoreLayer {
  /**
   * Calls do not reach the store in the order they were issued: a write waits for its
   * encryption, a delete issued after it does not. The engine then orders what it needs itself.
   */
  override readonly ordered = false;
  readonly #ring: Keyring;

  constructor(next: Store, ring: Keyring) {
    super(next);
    this.#ring = ring;
  }

  override async get(key: string): Promise<Uint8Array | undefined> {
    return this.#open(key, await this.next.get(key));
  }

  override async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    const found = await this.next.getMany(keys);
    return Promise.all(found.map((bytes, i) => this.#open(keys[i]!, bytes)));
  }

  override async set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    return this.next.set(key, await this.#seal(key, value), ttlMs);
  }

  override async setMany(entries: readonly StoreEntry[]): Promise<void> {
    return this.next.setMany(await this.#sealEntries(entries));
  }

  override async pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    const sealed = await Promise.all(ops.map((op) => this.#sealOp(op)));
    const results = await this.next.pipeline!(sealed);
    return Promise.all(results.map((result, i) => this.#openResult(ops[i]!, result)));
  }

  override async readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    // A copy's prefix was taken from the opened envelope; the stored one differs in its flags byte only.
    const knownPrefixes = read.knownPrefixes?.map((prefix) => {
      if (prefix === undefined || prefix.length <= FLAGS_OFFSET) return prefix;
      const stored = new Uint8Array(prefix);
      stored[FLAGS_OFFSET] = SEALED_FLAGS;
      return stored;
    });
    const result = await this.next.readWithGenerations!(knownPrefixes ? { ...read, knownPrefixes } : read);
    const values = await Promise.all(result.values.map((bytes, i) => (bytes === 'unchanged' ? bytes : this.#open(read.keys[i]!, bytes))));
    return { values, tags: result.tags };
  }

  /** `value` sealed when it is an envelope the engine wrote; anything else (counters, tokens) as it is. */
  #seal(key: string, value: Uint8Array): Promise<Uint8Array> | Uint8Array {
    const payloadAt = payloadOffset(value);
    return payloadAt < 0 || value[FLAGS_OFFSET] === SEALED_FLAGS ? value : sealEnvelope(this.#ring, key, value, payloadAt);
  }

  #sealEntries(entries: readonly StoreEntry[]): Promise<StoreEntry[]> {
    return Promise.all(entries.map(async (entry) => ({ key: entry.key, value: await this.#seal(entry.key, entry.value), ...(entry.ttlMs === undefined ? {} : { ttlMs: entry.ttlMs }) })));
  }

  async #sealOp(op: StoreOp): Promise<StoreOp> {
    if (op.kind === 'set') return { ...op, value: await this.#seal(op.key, op.value) };
    if (op.kind === 'setMany') return { kind: 'setMany', entries: await this.#sealEntries(op.entries) };
    return op;
  }

  async #openResult(op: StoreOp, result: StoreOpResult): Promise<StoreOpResult> {
    if (op.kind === 'get' && (result === undefined || result instanceof Uint8Array)) return this.#open(op.key, result);
    if (op.kind === 'getMany' && Array.isArray(result)) return Promise.all(result.map((bytes, i) => this.#open(op.keys[i]!, bytes)));
    return result;
  }

  /** The envelope stored under `key` opened, or a {@link refusal}; bytes that are no envelope (a counter) as they are. */
  async #open(key: string, bytes: Uint8Array | undefined): Promise<Uint8Array | undefined> {
    if (bytes === undefined || !isEnvelope(bytes)) return bytes;
    const opened = await openEnvelope(this.#ring, key, bytes);
    return 'envelope' in opened ? opened.envelope : refusal(opened.refused);
  }
}
