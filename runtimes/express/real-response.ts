import type { OutgoingHttpHeader, ServerResponse } from 'node:http';

/** The methods of a response that a capture replaces and the client's answer is written through. */
export const CAPTURED_METHODS = [
  'setHeader', 'setHeaders', 'appendHeader', 'getHeader', 'getHeaders', 'getHeaderNames', 'hasHeader', 'removeHeader',
  'writeHead', 'write', 'end', 'flushHeaders', 'writeContinue', 'writeProcessing', 'writeEarlyHints',
  'on', 'addListener', 'once', 'prependListener', 'prependOnceListener', 'removeListener', 'off',
] as const;

/** One of {@link CAPTURED_METHODS}. */
export type CapturedMethod = (typeof CAPTURED_METHODS)[number];

type AnyMethod = (...args: unknown[]) => unknown;

/**
 * The client's side of a response: its methods as they were when the middleware ran. Those may
 * be upstream middleware's wrappers (compression, express-session, on-headers), and must stay
 * in the path of everything the client receives. While a call made through {@link call} runs,
 * {@link inside} is true, so the capture's replacements pass Node's own re-entrant calls
 * (`writeHead` calling `this.setHeader`) straight through to the real response.
 */
export class RealResponse {
  #depth = 0;
  readonly #methods = new Map<CapturedMethod, AnyMethod | undefined>();

  constructor(readonly res: ServerResponse) {
    const methods = res as unknown as Record<CapturedMethod, AnyMethod | undefined>;
    for (const name of CAPTURED_METHODS) this.#methods.set(name, methods[name]);
  }

  /** True while a call to the real response is on the stack. */
  get inside(): boolean {
    return this.#depth > 0;
  }

  /** True when the response has this method (appendHeader and writeEarlyHints are recent in Node). */
  has(name: CapturedMethod): boolean {
    return typeof this.#methods.get(name) === 'function';
  }

  /** Calls the real method on the response. */
  call(name: CapturedMethod, ...args: unknown[]): unknown {
    const method = this.#methods.get(name);
    if (typeof method !== 'function') throw new TypeError(`cachette/express: the response has no ${name}()`);
    this.#depth++;
    try {
      return method.apply(this.res, args);
    } finally {
      this.#depth--;
    }
  }
}

/** A header value as Node holds it (a number, a string or a list) as a list of strings. */
export function headerList(value: OutgoingHttpHeader | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}
