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
