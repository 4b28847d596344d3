import { CacheEngine } from './engine.ts';
import { resolveOptions, type CacheOptions } from './options.ts';
import type { Cache } from './types.ts';

export type { BatchFactory, BatchFactoryContext, BatchResult, Cache, CacheHealth, CloseOptions, Factory, FactoryContext, GetOrSetOptions, SetManyEntry, SetOptions } from './types.ts';
export type { WaitUntil } from './background.ts';
export type { StandardSchema } from './fill/schema.ts';

/** Creates a cache over a store. See {@link CacheOptions}; every option is checked here, once. */
export function createCache(options: CacheOptions): Cache {
  return new CacheEngine(resolveOptions(options));
}
