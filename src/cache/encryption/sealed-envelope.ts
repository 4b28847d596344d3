/**
 * The sealed envelope: an entry envelope (src/store/layout/envelope.ts) whose payload is
 * encrypted with AES-256-GCM, defined once here. Its header and tags stay as they are, since
 * stores and the engine read them without decoding (expiry, `expireEntries` rewriting the times
 * on the server, the L1's version prefix, tag generations), except the flags byte, which
 * becomes {@link SEALED_FLAGS}: a cache without the key, or without encryption, reads it as
 * an unknown serializer and compression (a corrupt miss), never as a value. The payload becomes:
 *
 *   0        the envelope's own flags byte (serializer and compression ids)
 *   1        key id length n, uint8 (1–255)
 *   2…       key id, n bytes of UTF-8: the key it was sealed under, so keys can rotate
 *   …+12     IV, 96 random bits, fresh for every seal
 *   …        AES-GCM ciphertext of the payload as it was (compressed or not), 16-byte tag last
 *
 * The additional data authenticated with it binds the ciphertext to the store key it was
 * written under and to every stored byte before the ciphertext except the three times (which
 * `cache.expire` rewrites in place): a value copied under another key name, or with its tags,
 * size, stamp or key id changed, fails authentication.
 */
import { HEADER_BYTES, CREATED_AT_OFFSET, FIXED_BYTES, FLAGS_OFFSET, MAGIC, STALE_FOR_OFFSET, VERSION, VERSION_OFFSET } from '../../store/layout/envelope.ts';
import { readUint16 } from '../../util/big-endian.ts';
import type { Keyring } from './keyring.ts';

/** The flags byte of a sealed envelope: serializer 15 and compression 15, which no reader has. */
export const SEALED_FLAGS = 0xff;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The end of the three times (created at, fresh for, stale for), left out of the additional data. */
const TIMES_END = STALE_FOR_OFFSET + 8;
const DOMAIN = new TextEncoder().encode('cachette sealed envelope 1\0');
const utf8 = new TextEncoder();
const utf8Text = new TextDecoder('utf-8', { fatal: true });

/**
 * `bytes` as WebCrypto's types want them. Envelopes are never on a SharedArrayBuffer (the
 * engine and the stores allocate them), which is all the narrower type rules out.
 */
function buffered(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array<ArrayBuffer>;
}

/** Where the payload of a version 2 envelope starts (after its tags), or -1 when `bytes` is none or is truncated. */
export function payloadOffset(bytes: Uint8Array): number {
  if (bytes.length < FIXED_BYTES || bytes[0] !== MAGIC || bytes[VERSION_OFFSET] !== VERSION) return -1;
  let at = FIXED_BYTES;
  for (let count = readUint16(bytes, HEADER_BYTES); count > 0; count--) {
    if (at + 2 > bytes.length) return -1;
    at += 2 + readUint16(bytes, at) + 8;
  }
  return at <= bytes.length ? at : -1;
}

/** The additional data of a sealed envelope: the domain, the store key, and `sealed` up to `end` with its times zeroed. */
function additionalData(storeKey: string, sealed: Uint8Array, end: number): Uint8Array<ArrayBuffer> {
  const key = utf8.encode(storeKey);
  const out = new Uint8Array(DOMAIN.length + 4 + key.length + end);
  out.set(DOMAIN, 0);
  new DataView(out.buffer).setUint32(DOMAIN.length, key.length);
  out.set(key, DOMAIN.length + 4);
  const at = DOMAIN.length + 4 + key.length;
  out.set(sealed.subarray(0, end), at);
  out.fill(0, at + CREATED_AT_OFFSET, at + TIMES_END);
  return out;
}

/** Seals the version 2 envelope `envelope` (its payload at `payloadAt`, see {@link payloadOffset}) stored under `storeKey`. */
export async function sealEnvelope(ring: Keyring, storeKey: string, envelope: Uint8Array, payloadAt: number): Promise<Uint8Array> {
  const id = ring.currentId;
  const ivAt = payloadAt + 2 + id.length;
  const cipherAt = ivAt + IV_BYTES;
  const payload = envelope.subarray(payloadAt);
  const sealed = new Uint8Array(cipherAt + payload.length + TAG_BYTES);
  sealed.set(envelope.subarray(0, payloadAt), 0);
  sealed[FLAGS_OFFSET] = SEALED_FLAGS;
  sealed[payloadAt] = envelope[FLAGS_OFFSET]!;
  sealed[payloadAt + 1] = id.length;
  sealed.set(id, payloadAt + 2);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  sealed.set(iv, ivAt);
  const key = await ring.key(ring.current);
  const cipher = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: additionalData(storeKey, sealed, cipherAt) }, key, buffered(payload));
  sealed.set(new Uint8Array(cipher), cipherAt);
  return sealed;
}

/** What {@link openEnvelope} makes of stored bytes: the envelope as it was written, or why it cannot be read. */
export type Opened = { readonly envelope: Uint8Array } | { readonly refused: string };

/** Opens a sealed envelope stored under `storeKey`: any failure is a reason, never a throw. */
export async function openEnvelope(ring: Keyring, storeKey: string, sealed: Uint8Array): Promise<Opened> {
  const payloadAt = payloadOffset(sealed);
  if (payloadAt < 0 || sealed[FLAGS_OFFSET] !== SEALED_FLAGS)
    return { refused: 'cachette encryption: the entry is not encrypted (written without encryption, or by another writer); it is not trusted' };
  const idLength = sealed[payloadAt + 1] ?? 0;
  const ivAt = payloadAt + 2 + idLength;
  const cipherAt = ivAt + IV_BYTES;
  if (idLength === 0 || cipherAt + TAG_BYTES > sealed.length) return { refused: 'cachette encryption: the sealed payload is truncated' };
  let id: string;
  try {
    id = utf8Text.decode(sealed.subarray(payloadAt + 2, ivAt));
  } catch {
    return { refused: 'cachette encryption: the key id is not UTF-8' };
  }
  if (!ring.has(id)) return { refused: `cachette encryption: the entry was encrypted under key id ${JSON.stringify(id)}, which "encryption.keys" does not list` };
  let plain: ArrayBuffer;
  try {
    const key = await ring.key(id);
    plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: buffered(sealed.subarray(ivAt, cipherAt)), additionalData: additionalData(storeKey, sealed, cipherAt) },
      key,
      buffered(sealed.subarray(cipherAt)),
    );
  } catch {
    return { refused: `cachette encryption: authentication failed under key id ${JSON.stringify(id)} (a wrong key, bytes changed, or an entry copied from another key)` };
  }
  const envelope = new Uint8Array(payloadAt + plain.byteLength);
  envelope.set(sealed.subarray(0, payloadAt), 0);
  envelope[FLAGS_OFFSET] = sealed[payloadAt]!;
  envelope.set(new Uint8Array(plain), payloadAt);
  return { envelope };
}
