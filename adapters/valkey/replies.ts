/**
 * How a Valkey/Redis reply becomes a store result, for the single-server store and the cluster
 * store alike: which error replies count against the store's health, and the small conversions
 * every command's promise goes through.
 */
import { StoreRefusedError } from '../../src/store/errors.ts';

/**
 * Server replies that say something about the server's state rather than about the command:
 * out of memory, loading its data, a read-only replica, a cluster in trouble. They count
 * against the store's health; every other error reply (WRONGTYPE, ERR not an integer …) is the
 * command's own fault and leaves the store healthy.
 */
export const HEALTH_REPLIES = /^(OOM|LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF)\b/;

/**
 * An error reply about the command itself (not the server's state) becomes a
 * StoreRefusedError, which never counts against the store's health.
 */
export function toRefusal(error: unknown): Error {
  if (error instanceof Error && error.name === 'ReplyError' && !HEALTH_REPLIES.test(error.message)) return new StoreRefusedError(error.message, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

/** Rethrows `error` as {@link toRefusal} classifies it. */
export function refusal(error: unknown): never {
  throw toRefusal(error);
}

/** A nil reply as the store contract's hole. */
export function orUndefined(value: Buffer | null): Uint8Array | undefined {
  return value ?? undefined;
}

/** Drops a write's reply ("OK"): the contract resolves writes with nothing. */
export function nothing(): void {}

/** The bytes as a Buffer without copying them (iovalkey sends Buffers as they are). */
export function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
