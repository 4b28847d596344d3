/**
 * A {@link StoreEntry} whose bytes are not made until a store asks for them: a value whose
 * bytes are a head (a few bytes written in place) followed by ASCII text. A store that writes
 * into a buffer of its own (the valkey store's command encoder) writes the head there and the
 * text after it, so the value becomes bytes once, where it is sent; any other store reads
 * `value` and gets the same bytes in a buffer of their own, made once.
 */
import type { StoreEntry } from './types.ts';

/** Bytes given as a head and ASCII text (the engine's text envelopes, src/codec/envelope.ts). */
export interface HeadedText {
  /** Bytes in the head. */
  readonly headLength: number;
  /** The rest, all ASCII: its byte length is its length. */
  readonly text: string;
  /** Writes the head into `out` from `at` on (room for {@link headLength} bytes is there). */
  writeHead(out: Uint8Array, at: number): void;
  /** The head and the text in a buffer of their own; the same buffer every call. */
  bytes(): Uint8Array;
}

/** A store entry holding a {@link HeadedText}; see the module comment. */
export class TextEntry implements StoreEntry {
  readonly key: string;
  readonly parts: HeadedText;
  readonly ttlMs: number | undefined;

  constructor(key: string, parts: HeadedText, ttlMs: number | undefined) {
    this.key = key;
    this.parts = parts;
    this.ttlMs = ttlMs;
  }

  /** The bytes, made on first read. */
  get value(): Uint8Array {
    return this.parts.bytes();
  }

  /** The value's byte length, without making its bytes. */
  get size(): number {
    return this.parts.headLength + this.parts.text.length;
  }
}
