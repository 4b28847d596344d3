import { defineHandler } from 'nitro/h3';
import { cache } from '../cache.ts';

/** Invalidates every cached greeting, on every instance that shares the store. */
export default defineHandler(async () => ({ invalidated: await cache.invalidateTags(['greetings']) }));
