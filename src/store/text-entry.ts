/**
 * A {@link StoreEntry} whose bytes are not made until a store asks for them: a value whose
 * bytes are a head (a few bytes written in place) followed by text as UTF-8. A store that
 * writes into a buffer of its own (the valkey store's command encoder) writes the text there
 * and the head before it, so the value becomes bytes once, where it is sent; any other store
 * reads `value` and gets the same bytes in a buffer of their own, made once.
 */
import type { StoreEntry } from './types.ts';

/** Bytes given as a head and text (the engine's text envelopes, src/codec/envelope.ts). */
export interface HeadedText {
  /** Bytes in the head. */
  readonly headLength: number;
  /** The rest, as UTF-8. */
  readonly text: string;
  /** Bytes in all: exact once written ({@link writeHead}) or made ({@link bytes}), or when the text is ASCII. */
  readonly size: number;
  /**
   * Writes into `out` from `at` on (room for {@link headLength} bytes is there) the head of
   * the text whose UTF-8 form is `textBytes` long.
   */
  writeHead(out: Uint8Array, at: number, textBytes: number): void;
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

  /** The value's byte length (see {@link HeadedText.size}), without making its bytes. */
  get size(): number {
    return this.parts.size;
  }
}
