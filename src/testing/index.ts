/**
 * cachette/testing: what an application's own tests need to test code that uses a cache — a
 * clock moved by hand ({@link fakeClock}), a store wrapper that injects latency, errors and
 * partitions ({@link faultyStore}), and assertions on hits, misses and factory calls
 * ({@link cacheProbe}, {@link countCalls}). Runtime-neutral; documented in docs/testing-kit.md.
 */
export { type FakeClock, fakeClock } from './fake-clock.ts';
export { type Fault, type FaultyStore, type FaultyStoreOptions, faultyStore, type InjectedFault, STORE_OPERATIONS, type StoreOperation } from './faulty-store.ts';
export { type CacheProbe, type CacheProbeOptions, cacheProbe, type CountedFunction, countCalls, ProbeAssertionError, type ProbeCounts, type ProbeRecord } from './probe.ts';
