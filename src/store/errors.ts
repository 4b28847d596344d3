/**
 * Errors of the store path, each with a stable `code` so that callers and logs can tell them
 * apart without parsing messages, and with the cause they wrap.
 */

/** Base class of every store-path error. */
export class StoreError extends Error {
  /** A stable, machine-readable code. */
  readonly code: string = 'E_STORE';
  override name = 'StoreError';
}

/**
 * The store refused this one call while staying healthy: a value too large for it, an
 * increment on something that is not a counter. It never counts against the store's health.
 */
export class StoreRefusedError extends StoreError {
  override readonly code = 'E_STORE_REFUSED';
  override name = 'StoreRefusedError';
}

/**
 * The store is known to be unreachable (its connection is down), so the call failed at once
 * instead of waiting for a timeout. Adapters throw it; the message names the address and cause.
 */
export class StoreUnavailableError extends StoreError {
  override readonly code = 'E_STORE_UNAVAILABLE';
  override name = 'StoreUnavailableError';
}

/**
 * A synchronous read ({@link Store.getSync} and its siblings) that could answer only by
 * waiting (another process holds a lock on the store's file). It is no failure: the engine
 * makes the asynchronous call instead, which may wait, and reports nothing.
 */
export class StoreBusyError extends StoreError {
  override readonly code = 'E_STORE_BUSY';
  override name = 'StoreBusyError';
}

/**
 * A call on a store after its `close()`: the caller's mistake, not the store's state. Every
 * adapter rejects every call it gets once closed with this error (the contract suite checks
 * it), and the cache passes it to its caller as it is: it is no sign that the store is
 * unreachable (no breaker counts it, no "unreachable" line is logged) and no miss.
 */
export class StoreClosedError extends StoreError {
  override readonly code: string = 'E_STORE_CLOSED';
  override name = 'StoreClosedError';

  /** `store` names the store as its other errors do ("memory", "valkey 127.0.0.1:6379"). */
  constructor(store: string, message = `${store}: the store is closed (its close() was called); open a new one to make more calls`) {
    super(message);
  }
}

/**
 * A call on a cache after its `close()` (or while it closes): every method that reads, writes
 * or invalidates rejects with it, whether or not the cache closed its store. A
 * {@link StoreClosedError}, so that one check covers a closed cache and a closed store.
 */
export class CacheClosedError extends StoreClosedError {
  override readonly code = 'E_CACHE_CLOSED';
  override name = 'CacheClosedError';

  /** `method` names the call, as the cache's other errors do (`get("user:42")`). */
  constructor(method: string) {
    super('cachette', `cachette: ${method}: the cache is closed (its close() was called); create a new cache to make more calls`);
  }
}

/** A store call that did not answer within the cache's `timeout`. */
export class StoreTimeoutError extends StoreError {
  override readonly code = 'E_STORE_TIMEOUT';
  override name = 'StoreTimeoutError';
}

/** A call skipped because the circuit breaker holds the store as down. */
export class CircuitOpenError extends StoreError {
  override readonly code = 'E_CIRCUIT_OPEN';
  override name = 'CircuitOpenError';
}

/** The message of any thrown value, for events and logs. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
