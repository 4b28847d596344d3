/**
 * cachette/store: for people who write a store. A store moves opaque bytes and never sees a
 * value, a Response, a TTL policy or a tag: the contract types, the errors a store throws, and
 * the op grouping the engine and the repository's own stores use to send a tick's calls as few
 * commands. The contract suite is `cachette/store/testing`. Runtime-neutral. It also holds the
 * errors a cache call may reject with beyond those of the root entry (which is at its limit of
 * names): `CacheClosedError`, and `LockTimeoutError` from `cache.lock`.
 *
 * ```ts
 * import type { Store } from 'cachette/store';
 * class MyStore implements Store { … }
 * ```
 */
export type {
  Coherence,
  CoherenceListener,
  CoherenceOptions,
  GenerationRead,
  GenerationReadResult,
  ExpireRequest,
  GenerationWrite,
  InvalidationListener,
  KeyPage,
  SoftMoves,
  Store,
  StoreEntry,
  StoreOp,
  StoreOpResult,
  TagKeys,
  TagState,
  Tracking,
} from './types.ts';
export { CacheClosedError, CircuitOpenError, StoreBusyError, StoreClosedError, StoreError, StoreRefusedError, StoreTimeoutError, StoreUnavailableError } from './errors.ts';
export { LockTimeoutError } from '../cache/lock/lock-timeout-error.ts';
export { PubSubBus, type BusTransport } from './bus/pubsub-bus.ts';
export { readKeyCount, readKeys, runEnd, runKind, spreadReads, writeEntries } from './op-runs.ts';
export type { DeleteOp, IncrOp, RunEntries, RunKind } from './op-runs.ts';
