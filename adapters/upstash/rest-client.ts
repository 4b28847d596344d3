/**
 * The Upstash REST protocol's `/pipeline` request, written out: POST a JSON list of commands
 * with the bearer token, read back one `{ result }` or `{ error }` per command. The store sends
 * every request through this when it opens the endpoint itself: @upstash/redis builds a
 * pipeline object of several hundred closures per request, garbage that a Worker serving
 * hundreds of requests a second pays for in collection time and memory. The SDK's behaviours
 * that matter here are kept: retries of a request that failed on the network, an abort
 * signal, and read-your-writes (each request carries the sync token of the last answer, so a
 * read never misses a write this process made, even on a replicated database).
 */

/** A command on the wire: its name, then its arguments. */
export type WireCommand = ReadonlyArray<string | number>;

/** One command's answer as the server sends it. */
export interface WireReply {
  result?: unknown;
  error?: string;
}

/** How to reach the endpoint. */
export interface RestClientOptions {
  url: string;
  token: string;
  /** Retries of a request that failed on the network (not of an answer the server gave). */
  retries: number;
  /** Pause before each retry, ms. */
  backoffMs: number;
  signal?: AbortSignal;
}

/** Sends lists of commands as `/pipeline` requests. */
export class RestClient {
  readonly #endpoint: string;
  readonly #headers: Record<string, string>;
  #syncToken = '';

  constructor(private readonly options: RestClientOptions) {
    this.#endpoint = `${options.url.replace(/\/$/, '')}/pipeline`;
    this.#headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
  }

  /** Sends `commands` in one request; resolves with one reply per command, in order. */
  async pipeline(commands: readonly WireCommand[]): Promise<WireReply[]> {
    const body = JSON.stringify(commands);
    let response: Response | undefined;
    for (let attempt = 0; response === undefined; attempt++) {
      try {
        response = await fetch(this.#endpoint, {
          method: 'POST',
          headers: this.#syncToken ? { ...this.#headers, 'upstash-sync-token': this.#syncToken } : this.#headers,
          body,
          signal: this.options.signal,
        });
      } catch (error) {
        if (attempt >= this.options.retries || this.options.signal?.aborted) throw error;
        await new Promise((resolve) => setTimeout(resolve, this.options.backoffMs));
      }
    }
    const text = await response.text();
    this.#syncToken = response.headers.get('upstash-sync-token') ?? this.#syncToken;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`upstash: HTTP ${response.status}, an answer that is not JSON: ${text.slice(0, 200)}`);
    }
    if (!response.ok) {
      const message = (parsed as WireReply | null)?.error;
      throw new Error(`upstash: HTTP ${response.status}${typeof message === 'string' ? `: ${message}` : ''}`);
    }
    if (!Array.isArray(parsed) || parsed.length !== commands.length || !parsed.every(isReply)) {
      throw new Error(`upstash: expected ${commands.length} replies, the server answered ${text.slice(0, 200)}`);
    }
    return parsed;
  }
}

function isReply(value: unknown): value is WireReply {
  return typeof value === 'object' && value !== null && ('result' in value || typeof (value as WireReply).error === 'string');
}
