import { sha256Hex } from '../util/sha256.ts';

/** Keys up to this length are stored as Next gives them; longer ones by their digest. */
const MAX_PLAIN_KEY = 200;

/**
 * The cache key of a Next key in one of the handlers' spaces (`next/use-cache`, `next/isr`).
 * A `"use cache"` key is the serialized arguments of the call and can be kilobytes long: past
 * {@link MAX_PLAIN_KEY} characters it is stored as its SHA-256, as wrapped functions are.
 */
export function storeKey(space: string, key: string): string {
  return `${space}:${key.length <= MAX_PLAIN_KEY ? key : `#sha256=${sha256Hex(key)}`}`;
}
