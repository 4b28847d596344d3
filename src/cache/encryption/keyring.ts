/**
 * The `encryption` option checked, and its keys imported into WebCrypto (`crypto.subtle`, the
 * same API on Node, Bun, Deno and workerd) on first use: createCache is synchronous, importing
 * a key is not.
 */

/** The `encryption` option of createCache. */
export interface EncryptionOptions {
  /**
   * AES-256 keys by id: 32 random bytes each. Values written under any listed key are read;
   * remove a key once nothing written under it is still wanted (those entries then read as
   * misses and are computed again under `current`).
   */
  keys: Readonly<Record<string, Uint8Array>>;
  /** The id (in `keys`) new writes are encrypted under. */
  current: string;
}

/** The longest key id in bytes: its length is one byte of the sealed payload (sealed-envelope.ts). */
export const MAX_KEY_ID_BYTES = 255;
const KEY_BYTES = 32;
const utf8 = new TextEncoder();

/** The checked keys of one cache, imported once each. */
export class Keyring {
  /** The id new writes use, and its UTF-8 bytes (written into every sealed payload). */
  readonly current: string;
  readonly currentId: Uint8Array;
  readonly #raw = new Map<string, Uint8Array<ArrayBuffer>>();
  readonly #imported = new Map<string, Promise<CryptoKey>>();

  constructor(raw: ReadonlyMap<string, Uint8Array<ArrayBuffer>>, current: string) {
    for (const [id, bytes] of raw) this.#raw.set(id, bytes);
    this.current = current;
    this.currentId = utf8.encode(current);
  }

  /** True when `id` is one of the listed keys. */
  has(id: string): boolean {
    return this.#raw.has(id);
  }

  /** The AES-GCM key of `id` (which {@link has}), imported on first use. */
  key(id: string): Promise<CryptoKey> {
    let key = this.#imported.get(id);
    if (key === undefined) {
      key = crypto.subtle.importKey('raw', this.#raw.get(id)!, 'AES-GCM', false, ['encrypt', 'decrypt']);
      this.#imported.set(id, key);
    }
    return key;
  }
}

/** Checks the `encryption` option; a TypeError or RangeError names what is wrong. */
export function resolveEncryption(option: unknown): Keyring | undefined {
  if (option === undefined) return undefined;
  if (option === null || typeof option !== 'object') throw new TypeError('createCache: "encryption" must be an object { keys: { [id]: Uint8Array(32) }, current: id }');
  const { keys, current } = option as Partial<EncryptionOptions>;
  if (keys === null || typeof keys !== 'object' || Array.isArray(keys)) throw new TypeError('createCache: "encryption.keys" must be an object of key ids to 32-byte Uint8Arrays');
  const raw = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const [id, bytes] of Object.entries(keys)) {
    const idBytes = utf8.encode(id).length;
    if (idBytes === 0 || idBytes > MAX_KEY_ID_BYTES) throw new RangeError(`createCache: an "encryption.keys" id must be 1 to ${MAX_KEY_ID_BYTES} bytes of UTF-8, got ${JSON.stringify(id)}`);
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`createCache: "encryption.keys.${id}" must be a Uint8Array of 32 bytes, got ${bytes === null ? 'null' : typeof bytes}`);
    if (bytes.length !== KEY_BYTES) throw new RangeError(`createCache: "encryption.keys.${id}" must be 32 bytes (AES-256), got ${bytes.length}`);
    // A copy: a caller's later change to its buffer must not change what the cache reads with.
    raw.set(id, new Uint8Array(bytes));
  }
  if (typeof current !== 'string') throw new TypeError('createCache: "encryption.current" must be the id of one of "encryption.keys"');
  if (!raw.has(current))
    throw new RangeError(`createCache: "encryption.current" ${JSON.stringify(current)} is not among "encryption.keys" (${[...raw.keys()].map((id) => JSON.stringify(id)).join(', ') || 'none'})`);
  if (typeof globalThis.crypto?.subtle?.encrypt !== 'function') throw new TypeError('createCache: "encryption" needs WebCrypto (globalThis.crypto.subtle), which this runtime lacks');
  return new Keyring(raw, current);
}
