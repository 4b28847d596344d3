/**
 * cachette/otel: OpenTelemetry metrics and spans for a cache, through `@opentelemetry/api`
 * (an optional peer dependency: install it, and an SDK, to use this entry).
 *
 * ```ts
 * import { instrument } from 'cachette/otel';
 * const telemetry = instrument(cache);   // global providers, key namespaces only
 * ```
 *
 * It lives in src/ because it is runtime-neutral (the API runs on Node, Bun, Deno and
 * Workers) and reads only the engine's public events; the core entry `cachette` never imports
 * it, so an application without OpenTelemetry never loads the API.
 */
export { instrument } from './instrument.ts';
export type { Instrumentable, Instrumentation, InstrumentOptions, KeyDetail } from './instrument.ts';
export { keyNamespace } from './key-namespace.ts';
export { ATTRIBUTE, METRIC, SPAN } from './names.ts';
