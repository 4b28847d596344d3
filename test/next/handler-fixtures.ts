/**
 * What Next hands cachette/next's handlers, built without Next: `"use cache"` entries with their
 * streams, App Router pages as the incremental cache stores them, and the contexts of its calls.
 */
import type { CacheLogger } from '../../src/index.ts';
import type { UseCacheEntry } from '../../src/next/index.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A logger that keeps what it is told. */
export function recordingLogger(): CacheLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (line) => void lines.push(line), warn: (line) => void lines.push(line) };
}

/** A stream of `chunks`, noting whether it was cancelled. */
export function chunked(chunks: readonly string[], state: { cancelled?: boolean } = {}): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(encoder.encode(chunks[next++]));
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
}

/** A stream that delivers `first`, then errors (a render that failed halfway). */
export function brokenStream(first: string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(first));
      controller.error(new Error('connection reset'));
    },
  });
}

/** An entry as Next's "use cache" wrapper hands it to `set`. */
export function entry(body: string | readonly string[], overrides: Partial<UseCacheEntry> = {}): UseCacheEntry {
  return { value: chunked(typeof body === 'string' ? [body] : body), tags: [], stale: 300, timestamp: performance.timeOrigin + performance.now(), expire: 3600, revalidate: 900, ...overrides };
}

/** The text an entry's stream delivers, or undefined for a miss. */
export async function text(entry: UseCacheEntry | undefined): Promise<string | undefined> {
  return entry && decoder.decode(await new Response(entry.value).arrayBuffer());
}

/** A rendered App Router page as Next stores it: HTML, RSC bytes, segments, and its tags in a header. */
export function appPage(html: string, tags: string) {
  return {
    kind: 'APP_PAGE',
    html,
    rscData: Buffer.from(`rsc:${html}`),
    segmentData: new Map([['/_index', Buffer.from('segment')]]),
    postponed: undefined,
    status: 200,
    headers: { 'x-next-cache-tags': tags, 'x-nextjs-stale-time': '300' },
  };
}

/** The context of Next's `get` for an App Router page. */
export const pageContext = { kind: 'APP_PAGE', isRoutePPREnabled: true, isFallback: false };
/** The context of Next's `set` for an App Router page. */
export const pageSet = { cacheControl: { revalidate: 3600, expire: 86_400 }, isRoutePPREnabled: true, isFallback: false };
