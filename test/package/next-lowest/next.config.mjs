import { fileURLToPath } from 'node:url';

// Next 15: the incremental cache through cachette ("use cache" is canary-only on 15).
export default {
  cacheHandler: fileURLToPath(new URL('./cache-handler.mjs', import.meta.url)),
  cacheMaxMemorySize: 0,
};
