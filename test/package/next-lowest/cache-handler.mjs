import { createIncrementalCacheHandler } from 'cachette/next';

export default createIncrementalCacheHandler({ prefix: 'next-lowest', timeout: '500ms' });
