// Loaded by Next for the incremental cache (ISR pages, App Router pages, route handlers, fetch).
import { createIncrementalCacheHandler } from 'cachette/next';

export default createIncrementalCacheHandler({ prefix: 'next-example', timeout: '500ms' });
