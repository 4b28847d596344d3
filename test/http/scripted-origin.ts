/**
 * A scripted origin as a plain fetch handler, so the same script runs in-process (Workers,
 * Bun, Deno) or behind a socket (see node-serve.ts). It counts what reaches it and answers
 * each path with the reply a test chose; its Date header follows the suite's clock.
 */
import { formatHttpDate } from '../../src/http/rules/http-date.ts';

/** A test's answer for one path: the request and how many requests the path has seen (1-based). */
export type Script = (request: Request, n: number) => Response | Promise<Response>;

/** A clock the cache and the origin share; time moves only when a test says so. */
export class FakeClock {
  // Whole seconds, so HTTP-dates (second resolution) and Age arithmetic stay exact.
  #t = Math.floor(Date.now() / 1000) * 1000;
  /** The clock function to pass as the cache's `now`. */
  readonly now = (): number => this.#t;
  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.#t += ms;
  }
}

/** A recorded request: what the origin saw. */
export interface Seen {
  method: string;
  path: string;
  headers: Headers;
}

/** The scripted origin. */
export class ScriptedOrigin {
  readonly #routes = new Map<string, Script>();
  /** Every request that reached the origin, in order. */
  readonly seen: Seen[] = [];

  constructor(readonly clock: FakeClock) {}

  /** Answers `path` (pathname, without query) with `script`. */
  on(path: string, script: Script): this {
    this.#routes.set(path, script);
    return this;
  }

  /** How many requests reached the origin, for one path or in all. */
  count(path?: string): number {
    return path === undefined ? this.seen.length : this.seen.filter((s) => s.path === path).length;
  }

  /** The fetch handler. Adds a Date from the clock unless the script set one (or set it to ""). */
  readonly fetch = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    this.seen.push({ method: request.method, path, headers: new Headers(request.headers) });
    const script = this.#routes.get(path);
    if (!script) return new Response('no script for this path', { status: 599 });
    const res = await script(request, this.count(path));
    // A status no standard Response may carry cannot be copied: such a script's response goes out as it is.
    if (res.status < 200 || res.status > 599) return res;
    const headers = new Headers(res.headers);
    if (!headers.has('date')) headers.set('date', formatHttpDate(this.clock.now()));
    else if (headers.get('date') === '') headers.delete('date');
    return new Response(res.body, { status: res.status, headers });
  };
}

/** A reply with a text body and the given headers. */
export function reply(body: string | null, headers: Record<string, string> = {}, status = 200): Response {
  return new Response(body, { status, headers });
}
