import { cacheLife, cacheTag } from 'next/cache';

/** Stands for a slow query: every call that is not served from the cache makes a new value. */
export async function greeting() {
  'use cache';
  cacheTag('greeting');
  cacheLife('hours');
  return { id: crypto.randomUUID(), at: new Date().toISOString() };
}
