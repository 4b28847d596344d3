import { createIncrementalCacheHandler } from 'cachette/next';

export default createIncrementalCacheHandler();
