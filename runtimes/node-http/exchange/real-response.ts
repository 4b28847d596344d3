import type { OutgoingHttpHeader, ServerResponse } from 'node:http';

/** The methods of a response that a capture replaces and the client's answer is written through. */
export const CAPTURED_METHODS = [
  'setHeader',
  'setHeaders',
  'appendHeader',
  'getHeader',
  'getHeaders',
  'getHeaderNames',
  'hasHeader',
  'removeHeader',
  'writeHead',
  'write',
  'end',
  'flushHeaders',
  'writeContinue',
  'writeProcessing',
  'writeEarlyHints',
  'on',
  'addListener',
  'once',
  'prependListener',
  'prependOnceListener',
  'removeListener',
  'off',
] as const;

/** One of {@link CAPTURED_METHODS}. */
export type CapturedMethod = (typeof CAPTURED_METHODS)[number];

type AnyMethod = (...args: unknown[]) => unknown;

/**
 * The client's side of a response: its methods as upstream middleware left them. Those may be
 * upstream middleware's wrappers (compression, express-session, on-headers), and must stay
 * in the path of everything the client receives. While a call made through {@link call} runs,
 * {@link inside} is true, so the capture's replacements pass Node's own re-entrant calls
 * (`writeHead` calling `this.setHeader`) straight through to the real response.
 */
export class RealResponse {
  #depth = 0;
  /** The methods as they were before a capture replaced them; until then, the response's own. */
  #methods: Map<CapturedMethod, AnyMethod | undefined> | undefined;

  constructor(readonly res: ServerResponse) {}

  /**
   * Keeps the response's methods as they are now, before a capture replaces them on the
   * instance. A hit never captures, so it never pays for this.
   */
  freeze(): void {
    if (this.#methods) return;
    const methods = this.res as unknown as Record<CapturedMethod, AnyMethod | undefined>;
    this.#methods = new Map(CAPTURED_METHODS.map((name) => [name, methods[name]]));
  }

  /** True while a call to the real response is on the stack. */
  get inside(): boolean {
    return this.#depth > 0;
  }

  /** True when the response has this method (appendHeader and writeEarlyHints are recent in Node). */
  has(name: CapturedMethod): boolean {
    return typeof this.#method(name) === 'function';
  }

  /** Calls the real method on the response. */
  call(name: CapturedMethod, ...args: unknown[]): unknown {
    const method = this.#method(name);
    if (typeof method !== 'function') throw new TypeError(`cachette: the response has no ${name}()`);
    this.#depth++;
    try {
      return method.apply(this.res, args);
    } finally {
      this.#depth--;
    }
  }

  #method(name: CapturedMethod): AnyMethod | undefined {
    return this.#methods ? this.#methods.get(name) : (this.res as unknown as Record<CapturedMethod, AnyMethod | undefined>)[name];
  }
}

/** Header fields by name, with values as Node holds them (Fastify's reply headers have this shape). */
export type HeaderFields = Record<string, OutgoingHttpHeader | undefined>;

/** A header value as Node holds it (a number, a string or a list) as a list of strings. */
export function headerList(value: OutgoingHttpHeader | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}
