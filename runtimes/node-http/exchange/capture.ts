import { Buffer } from 'node:buffer';
import { EventEmitter } from 'node:events';
import { OutgoingMessage, type IncomingMessage, type OutgoingHttpHeader } from 'node:http';
import type { Readable } from 'node:stream';
import { CAPTURED_METHODS, headerList, type CapturedMethod, type HeaderFields, type RealResponse } from './real-response.ts';

/** Statuses whose responses carry no body (RFC 9110 §6.4.1, §15.3.5, §15.3.6, §15.4.5). */
const NULL_BODY_STATUS = new Set([204, 205, 304]);
const HEADER_READS = new Set<CapturedMethod>(['getHeader', 'getHeaders', 'getHeaderNames', 'hasHeader']);
const HEADER_WRITES = new Set<CapturedMethod>(['setHeader', 'setHeaders', 'appendHeader', 'removeHeader']);
const INTERIM = new Set<CapturedMethod>(['writeContinue', 'writeProcessing', 'writeEarlyHints']);
const LISTENERS = new Set<CapturedMethod>(['on', 'addListener', 'once', 'prependListener', 'prependOnceListener', 'removeListener', 'off']);
/**
 * Events of the handlers' own response. The client's response may finish first (a 304 or a
 * HEAD answered from the handlers' 200, a stale copy served while they revalidate), and a
 * `pipe` or on-finished that heard it would stop the handlers' body half way.
 */
const OWN_EVENTS = new Set(['drain', 'finish', 'close']);
/** A valid reason phrase (RFC 9112 §4); a fetch Response refuses anything else as statusText. */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

type Callback = (error?: Error | null) => void;
type State = 'open' | 'streaming' | 'ended' | 'abandoned';

/** Options of a {@link ResponseCapture}. */
export interface CaptureOptions {
  /** The method the handlers run for: a HEAD response has no body. */
  method: string;
  /**
   * Abandon the capture when the client's connection closes. True for a forward made while
   * the client waits (it is gone, and a handler that stops on a closed connection would
   * never end the response); false for a background revalidation, whose client was answered
   * already and may close its connection at once.
   */
  abandonOnDisconnect: boolean;
}

/**
 * The response the downstream handlers write, kept off the wire: the cache decides what the
 * client gets. Installing it replaces the response's header, write and `drain` methods on the
 * instance, so everything a framework writes (Express's `res.json`, `res.send`, `res.sendFile`;
 * Fastify's `reply.send` of strings, Buffers, serialised objects and streams; `res.write`
 * streaming, `pipe`) lands here: status and headers become a fetch Response, written bytes its
 * body stream, with back-pressure (`write` returns false while the cache has not read what came
 * before, and `drain` follows). `res.headersSent` and `res.writableEnded` tell the handlers
 * about their own response. The client's answer goes around it, through {@link RealResponse}.
 *
 * Headers that upstream middleware or hooks set before the cache ran (CORS, security headers,
 * a session cookie) belong to this request, not to the cached response: the handlers see them,
 * but only the fields they set or changed are part of the response the cache gets. Those set
 * on the response itself are taken when the capture is installed; a framework that keeps its
 * own (Fastify's reply headers, written with the head) names them with
 * {@link ResponseCapture.requestHeaders}.
 */
export class ResponseCapture {
  /** The handlers' response once its head is known; rejects when the capture is abandoned first. */
  readonly response: Promise<Response>;
  /** Resolves when the handlers have ended their response, or the capture was abandoned. */
  readonly settled: Promise<void>;
  readonly #req: IncomingMessage;
  readonly #real: RealResponse;
  readonly #options: CaptureOptions;
  /** The handlers' view of the header fields; a bare OutgoingMessage validates exactly as Node does. */
  readonly #headers = new OutgoingMessage();
  readonly #entry = new Map<string, string[]>();
  /** The handlers' `drain`, `finish` and `close` listeners: they hear their own response, not the client's. */
  readonly #events = new EventEmitter();
  readonly #sources = new Set<Readable>();
  /** The capture's own state: waiting for a head, passing a body on, done, or given up. */
  #state: State = 'open';
  /** What the handlers did, which they may keep doing after the capture was abandoned. */
  #committed = false;
  #finished = false;
  #status: number | undefined;
  #statusMessage: string | undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #discard = false;
  #needDrain = false;
  #resolve!: (response: Response) => void;
  #reject!: (error: Error) => void;
  #settle!: () => void;
  readonly #onDisconnect = () => this.abandon(new Error('cachette: the client closed the connection before the response ended'));
  readonly #onPipe = (source: Readable) => this.#watch(source);

  constructor(req: IncomingMessage, real: RealResponse, options: CaptureOptions) {
    this.#req = req;
    this.#real = real;
    this.#options = options;
    this.response = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Nobody may be waiting when a capture is abandoned before its head: the policy then
    // receives the rejection through the promise it awaits, never an unhandled one.
    this.response.catch(() => {});
    this.settled = new Promise((resolve) => (this.#settle = resolve));
  }

  /** Routes the handlers' calls on `res` here from now on. */
  install(): void {
    this.#real.freeze();
    const res = this.#real.res;
    for (const name of this.#real.call('getHeaderNames') as string[]) {
      const value = this.#real.call('getHeader', name) as OutgoingHttpHeader;
      this.#headers.setHeader(name, value);
      this.#entry.set(name, headerList(value));
    }
    const capture = this;
    const routed = res as unknown as Record<CapturedMethod, (...args: unknown[]) => unknown>;
    for (const name of CAPTURED_METHODS) {
      if (!this.#real.has(name)) continue;
      routed[name] = function (this: unknown, ...args: unknown[]): unknown {
        return capture.#real.inside ? capture.#real.call(name, ...args) : capture.#handle(name, args);
      };
    }
    Object.defineProperty(res, 'headersSent', { configurable: true, get: () => this.#committed });
    // Fastify's `reply.sent` and Node's stream.finished read it: the handlers' response has
    // ended when they ended it, whatever the client's answer is doing.
    Object.defineProperty(res, 'writableEnded', { configurable: true, get: () => this.#finished });
    this.#real.call('on', 'pipe', this.#onPipe);
    if (this.#options.abandonOnDisconnect) this.#req.socket?.once('close', this.#onDisconnect);
  }

  /**
   * Names header fields that belong to this request, not to the response the handlers write:
   * written with the head unchanged, they are left out of the Response the cache gets (a
   * Set-Cookie value among them is left out once). Call it before the handlers commit their
   * head: for fields a framework keeps apart from the response until then (Fastify's reply
   * headers set by earlier hooks), and for a request dispatched again whose upstream
   * middleware wrote into the capture already.
   */
  requestHeaders(fields: HeaderFields): void {
    for (const [name, value] of Object.entries(fields)) if (value !== undefined) this.#entry.set(name.toLowerCase(), headerList(value));
  }

  /**
   * Gives up on the handlers' response: before its head, the response promise rejects; after
   * it, the body stream errors, so nothing is stored. Whatever the handlers write afterwards is
   * dropped, and a stream piped into the response is destroyed.
   */
  abandon(error: Error): void {
    if (this.#state === 'ended' || this.#state === 'abandoned') return;
    const before = this.#state;
    this.#state = 'abandoned';
    this.#discard = true;
    if (before === 'open') this.#reject(error);
    else this.#controller?.error(error);
    for (const source of this.#sources) source.destroy();
    this.#release();
  }

  #handle(name: CapturedMethod, args: unknown[]): unknown {
    const res = this.#real.res;
    if (HEADER_READS.has(name)) return (this.#headers[name as 'getHeader'] as (...a: unknown[]) => unknown)(...args);
    if (HEADER_WRITES.has(name)) {
      if (this.#committed) throw headersSent(name);
      (this.#headers[name as 'setHeader'] as (...a: unknown[]) => unknown)(...args);
      return res;
    }
    if (INTERIM.has(name)) return undefined; // interim responses are not relayed from behind a cache
    if (LISTENERS.has(name)) {
      if (!OWN_EVENTS.has(args[0] as string)) return this.#real.call(name, ...args);
      (this.#events[name as 'on'] as (...a: unknown[]) => unknown)(...args);
      return res;
    }
    switch (name) {
      case 'writeHead':
        return this.#writeHead(args[0], args[1], args[2]);
      case 'flushHeaders':
        if (!this.#committed) this.#commit();
        return undefined;
      case 'write':
        return this.#write(args[0], args[1], args[2]);
      case 'end':
        return this.#end(args[0], args[1], args[2]);
      default:
        return this.#real.call(name, ...args);
    }
  }

  #writeHead(status: unknown, reason: unknown, fields: unknown): unknown {
    if (this.#committed) throw headersSent('writeHead');
    if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 999) {
      throw Object.assign(new RangeError(`Invalid status code: ${String(status)}`), { code: 'ERR_HTTP_INVALID_STATUS_CODE' });
    }
    if (typeof reason === 'string') this.#statusMessage = reason;
    else fields ??= reason;
    if (Array.isArray(fields)) {
      // [name, value, name, value, …] or [[name, value], …], as Node accepts them.
      const pairs = fields.every(Array.isArray) ? (fields as unknown[][]) : chunkPairs(fields);
      for (const [field, value] of pairs) if (field) this.#headers.setHeader(String(field), value as OutgoingHttpHeader);
    } else if (fields && typeof fields === 'object') {
      for (const [field, value] of Object.entries(fields)) if (value !== undefined) this.#headers.setHeader(field, value as OutgoingHttpHeader);
    }
    this.#status = status as number;
    this.#commit();
    return this.#real.res;
  }

  #write(chunk: unknown, encoding: unknown, callback: unknown): boolean {
    const done = (typeof encoding === 'function' ? encoding : callback) as Callback | undefined;
    if (this.#finished) {
      const error = Object.assign(new Error('write after end'), { code: 'ERR_STREAM_WRITE_AFTER_END' });
      if (done) queueMicrotask(() => done(error));
      return false;
    }
    const bytes = toBytes(chunk, typeof encoding === 'string' ? encoding : undefined);
    if (!this.#committed) this.#commit();
    this.#push(bytes);
    if (done) queueMicrotask(() => done(null));
    return !this.#needDrain;
  }

  #end(chunk: unknown, encoding: unknown, callback: unknown): unknown {
    const done = [chunk, encoding, callback].find((arg) => typeof arg === 'function') as Callback | undefined;
    if (this.#finished) {
      if (done) queueMicrotask(() => done(null));
      return this.#real.res;
    }
    const data = typeof chunk === 'function' ? undefined : chunk;
    const bytes = data === undefined || data === null || data === '' ? undefined : toBytes(data, typeof encoding === 'string' ? encoding : undefined);
    if (!this.#committed) this.#commit();
    if (bytes) this.#push(bytes);
    this.#finished = true;
    // An abandoned capture was released already; the handlers just finish on their own.
    if (this.#state === 'streaming') {
      this.#state = 'ended';
      this.#controller?.close();
      this.#release();
    }
    if (done) queueMicrotask(() => done(null));
    return this.#real.res;
  }

  /** The handlers' head is final: hands the cache a Response whose body follows their writes. */
  #commit(): void {
    this.#committed = true;
    if (this.#state === 'abandoned') return;
    this.#state = 'streaming';
    const res = this.#real.res;
    const status = this.#status ?? res.statusCode;
    const statusText = this.#statusMessage ?? res.statusMessage ?? '';
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      // A fetch Response cannot carry it, and a cache must not pass it on as if it were final.
      this.#discard = true;
      this.#resolve(badGateway(`the handler answered with status ${status}, which a cache cannot pass on`));
      return;
    }
    let headers: Headers;
    try {
      headers = this.#capturedHeaders();
    } catch (error) {
      this.#discard = true;
      this.#resolve(badGateway(`the handler sent a header field a fetch Response refuses (${(error as Error).message})`));
      return;
    }
    let body: ReadableStream<Uint8Array> | null = null;
    if (this.#options.method === 'HEAD' || NULL_BODY_STATUS.has(status)) {
      this.#discard = true;
    } else {
      body = new ReadableStream<Uint8Array>(
        {
          start: (controller) => void (this.#controller = controller),
          pull: () => this.#drained(),
          cancel: () => {
            // The cache wants no more (it serves a stale copy instead): the rest is dropped.
            this.#discard = true;
            this.#controller = undefined;
            this.#drained();
          },
        },
        { highWaterMark: res.writableHighWaterMark || 16_384, size: (chunk) => chunk.byteLength },
      );
    }
    this.#resolve(new Response(body, { status, statusText: REASON_PHRASE.test(statusText) ? statusText : '', headers }));
  }

  /** The fields the handlers set or changed; fields upstream middleware set stay this request's own. */
  #capturedHeaders(): Headers {
    const headers = new Headers();
    for (const name of this.#headers.getHeaderNames()) {
      let values = headerList(this.#headers.getHeader(name));
      const before = this.#entry.get(name);
      if (before) {
        if (name === 'set-cookie') values = withoutEach(values, before);
        else if (values.length === before.length && values.every((value, i) => value === before[i])) continue;
      }
      for (const value of values) headers.append(name, value);
    }
    return headers;
  }

  #push(bytes: Uint8Array): void {
    if (this.#discard || bytes.byteLength === 0 || !this.#controller) return;
    this.#controller.enqueue(bytes);
    if ((this.#controller.desiredSize ?? 1) <= 0) this.#needDrain = true;
  }

  /** The cache read some of the body (or stopped wanting it): wakes a handler waiting for `drain`. */
  #drained(): void {
    if (!this.#needDrain) return;
    if (!this.#discard && (this.#controller?.desiredSize ?? 1) <= 0) return;
    this.#needDrain = false;
    this.#events.emit('drain');
  }

  /** Stops watching the connection and piped streams; wakes anyone waiting for `drain`. */
  #release(): void {
    this.#req.socket?.removeListener('close', this.#onDisconnect);
    this.#real.call('removeListener', 'pipe', this.#onPipe);
    this.#sources.clear();
    if (this.#needDrain) {
      this.#needDrain = false;
      this.#events.emit('drain');
    }
    // As a stream tells its pipes: 'finish' once everything was written, 'close' either way.
    const ended = this.#state === 'ended';
    queueMicrotask(() => {
      if (ended) this.#events.emit('finish');
      this.#events.emit('close');
    });
    this.#settle();
  }

  /**
   * A stream piped into the response (res.sendFile, express.static, a proxied body) that closes
   * before it ended was stopped (its client went away, or it saw the response finish): the
   * response it was writing will never end, so nothing of it may be stored.
   */
  #watch(source: Readable): void {
    this.#sources.add(source);
    let ended = false;
    source.once('end', () => void (ended = true));
    source.once('close', () => {
      this.#sources.delete(source);
      if (!ended) this.abandon(new Error('cachette: the stream piped into the response closed before it ended'));
    });
  }
}

/** `values` with one occurrence of each of `remove` taken out. */
function withoutEach(values: string[], remove: readonly string[]): string[] {
  const left = values.slice();
  for (const value of remove) {
    const at = left.indexOf(value);
    if (at >= 0) left.splice(at, 1);
  }
  return left;
}

function chunkPairs(flat: unknown[]): unknown[][] {
  if (flat.length % 2 !== 0) throw Object.assign(new TypeError('writeHead(): a flat header array needs name, value pairs'), { code: 'ERR_INVALID_ARG_VALUE' });
  const pairs: unknown[][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]]);
  return pairs;
}

/** A chunk as bytes, with Node's rules: a string in an encoding, or a Buffer/Uint8Array. */
function toBytes(chunk: unknown, encoding: string | undefined): Uint8Array {
  if (typeof chunk === 'string') return Buffer.from(chunk, (encoding ?? 'utf8') as BufferEncoding);
  if (chunk instanceof Uint8Array) return chunk;
  throw Object.assign(new TypeError(`The "chunk" argument must be of type string or an instance of Buffer or Uint8Array. Received ${chunk === null ? 'null' : typeof chunk}`), {
    code: 'ERR_INVALID_ARG_TYPE',
  });
}

function headersSent(operation: string): Error {
  return Object.assign(new Error(`Cannot ${operation === 'writeHead' ? 'write headers' : 'set headers'} after they are sent to the client`), { code: 'ERR_HTTP_HEADERS_SENT' });
}

function badGateway(reason: string): Response {
  return new Response(`Bad Gateway: ${reason}\n`, { status: 502, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}
