// Loaded by Next for the incremental cache (next.config's cacheHandler: ISR, App Router pages,
// route handlers, fetch), from the same store as the "use cache" handler, over one connection.
import { createIncrementalCacheHandler } from 'cachette/next';

export default createIncrementalCacheHandler();
