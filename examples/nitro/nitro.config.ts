import { defineNitroConfig } from 'nitro/config';

// The `cache` mount (where defineCachedFunction keeps its entries) is cachette's driver,
// mounted at start-up by plugins/cachette.ts: a store object is no build-time option.
export default defineNitroConfig({});
