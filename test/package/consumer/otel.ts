// cachette/otel with @opentelemetry/api, as the README shows it.
import { metrics } from '@opentelemetry/api';
import { createCache } from 'cachette';
import { memoryStore } from 'cachette/adapters/memory';
import { withCache } from 'cachette/http';
import { instrument, type Instrumentation, type METRIC } from 'cachette/otel';
import type { Equal, Expect } from './type-checks.js';

const cache = createCache({ store: memoryStore(), ttl: '30s' });
export const telemetry: Instrumentation = instrument(cache, { meterProvider: metrics.getMeterProvider(), keys: 'namespace', attributes: { 'cachette.cache.name': 'users' } });
export const handlerTelemetry = instrument(
  withCache(async () => new Response('hi'), { ttl: '1m' }),
  { traces: false },
);
export type OtelChecks = Expect<Equal<typeof METRIC.lookups, 'cachette.lookups'>>;
