/**
 * The instrument and attribute names cachette/otel records, in the OpenTelemetry
 * semantic-convention style: a `cachette.` namespace, dotted lower-case names, durations in
 * seconds, counts with a `{unit}` annotation. Exported so dashboards and tests name them once.
 */

/** Metric names. */
export const METRIC = {
  /** Counter of reads, by `cachette.lookup.result` (hit, miss, stale). */
  lookups: 'cachette.lookups',
  /** Histogram (s) of hit and miss reads: the store round trip and the decode, by result. */
  lookupDuration: 'cachette.lookup.duration',
  /** Counter of factory runs, by `cachette.fill.background` and `error.type` when they failed. */
  fills: 'cachette.fills',
  /** Histogram (s) of factory time, with the same attributes as `cachette.fills`. */
  fillDuration: 'cachette.fill.duration',
  /** Counter of errors, by `cachette.error.source` (store, factory, encode), `cachette.operation` and `error.type`. */
  errors: 'cachette.errors',
  /** Counter of `getOrSet` calls that joined a fill already running. */
  coalesced: 'cachette.coalesced',
  /** Counter of background refreshes started. */
  refreshes: 'cachette.refreshes',
  /** Counter of stored entries the engine could not read. */
  corrupt: 'cachette.corrupt',
  /** Gauge: 1 while reads (or writes, by `cachette.store.direction`) reach the store, 0 while the breaker skips them. */
  storeUp: 'cachette.store.up',
} as const;

/** Span names. */
export const SPAN = {
  /** One factory run: foreground fill or background refresh. */
  fill: 'cachette.fill',
} as const;

/** Attribute names. */
export const ATTRIBUTE = {
  /** hit, miss or stale. */
  lookupResult: 'cachette.lookup.result',
  /** The key's namespace (see `keyNamespace`); the default key attribute. */
  keyNamespace: 'cachette.key.namespace',
  /** The whole key: only with `keys: 'full'`. */
  key: 'cachette.key',
  /** True for a background refresh, false for a fill a caller waits for. */
  fillBackground: 'cachette.fill.background',
  /** store, factory or encode. */
  errorSource: 'cachette.error.source',
  /** The engine operation that failed (get, set, getMany, refresh, …). */
  operation: 'cachette.operation',
  /** read or write: the store half a health gauge describes. */
  storeDirection: 'cachette.store.direction',
  /** The OpenTelemetry general attribute for an error's class. */
  errorType: 'error.type',
} as const;
