import { errorMessage, StoreError } from '../store/errors.ts';
import type { Store } from '../store/types.ts';

/**
 * A store failure as a `strict` cache throws it: naming the store, its address and the call
 * (docs/architecture.md#failure-trust-and-reporting: errors name the store, its address and the cause). cachette's own store errors
 * (timeouts, an open circuit, an unavailable connection, a refusal) are thrown as they are; a
 * client library's raw error, which may name neither the server nor the store (iovalkey's
 * MaxRetriesPerRequestError, a fetch TypeError), is wrapped in a StoreError that keeps it as
 * its `cause`.
 */
export function strictStoreError(error: unknown, store: Store, operation: string): unknown {
  if (error instanceof StoreError) return error;
  const label = store.address ? `${store.name} ${store.address}` : store.name;
  return new StoreError(`${label}: ${operation} failed: ${errorMessage(error)}`, { cause: error });
}
