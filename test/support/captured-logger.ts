/**
 * A cache `logger` that keeps what the cache says instead of printing it: for tests that make a
 * store fail on purpose, so that `npm test` shows no stack of expected warnings between passing
 * tests, and the test can look at the lines when they matter to it.
 */
import type { CacheLogger } from '../../src/cache/options.ts';

/** A logger recording `info` and `warn` lines, prefixed with their level. */
export function capturedLogger(): CacheLogger & { readonly lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (message) => void lines.push(`info ${message}`), warn: (message) => void lines.push(`warn ${message}`) };
}

/**
 * Keeps what `console.error` is given until `restore()`: for a test whose failure a library
 * reports on the console by itself (@hono/node-server prints a response body that errors), so
 * the test can check that it was that failure and nothing else, instead of printing it.
 */
export function capturedConsoleErrors(): { readonly reported: unknown[]; restore(): void } {
  const reported: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void reported.push(...args);
  return { reported, restore: () => void (console.error = original) };
}
