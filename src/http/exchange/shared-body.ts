/**
 * One origin body, read once, given to any number of clients while a copy is collected for
 * the store. Every client reads the same chunks at its own pace; nothing is copied per client.
 *
 * Memory is bounded per body, whatever the clients do:
 * - while the copy for the store is collected, the source is read as fast as it arrives, up
 *   to `limit` bytes (the copy itself);
 * - past the limit the copy is dropped and nobody new may join; the chunks kept are only those
 *   some client has yet to read, at most `window` bytes between the slowest and the fastest.
 *   The source is read only when a client asks for more within that window, so clients slow
 *   the origin instead of filling memory;
 * - a client that falls a whole window behind the others is moved onto its own path (`resume`:
 *   a request for the rest of the body from its offset), so that it neither holds memory nor
 *   holds the others back. When no such path exists, the others wait for it, but not for
 *   ever: once they have been held back for `stallTimeoutMs` in a row, the clients still a
 *   whole window behind are cut off (their streams error with {@link SlowClientError}) and
 *   the others go on;
 * - a source that sends nothing for `idleTimeoutMs` fails the body: every client's stream
 *   errors, and nothing is stored.
 * - when no client is left and nothing will be stored, the source is cancelled.
 */
import { readWithin } from './idle-read.ts';

/** Raised into the stream of a client that held the others sharing its body back for too long. */
export class SlowClientError extends Error {
  override readonly name = 'SlowClientError';
}

/** How a shared body is bounded. */
export interface SharedBodyOptions {
  /** Largest copy collected for the store, bytes; past it the copy is dropped. */
  limit: number;
  /** Once nothing is collected: most bytes kept between the slowest and the fastest client. */
  window: number;
  /** A source read that delivers nothing for this long fails the body, ms; Infinity for none. */
  idleTimeoutMs: number;
  /**
   * How long the clients may be held back in a row by one a whole window behind that has no
   * own path to move to, ms; past it, that client is cut off. Infinity waits for ever.
   */
  stallTimeoutMs: number;
  /**
   * Opens the rest of the body from byte `offset`, for a client that fell behind; it must
   * resolve with a stream of exactly those bytes or reject. Without it, a slow client holds the
   * others back instead.
   */
  resume?: (offset: number) => Promise<ReadableStream<Uint8Array>>;
}

/** One client's position in the shared chunks, or its own path once it fell behind. */
interface Reader {
  /** Absolute index of the next chunk to deliver. */
  next: number;
  /** Bytes delivered so far. */
  offset: number;
  /** Set while the client waits for a chunk not read yet. */
  waiting: (() => void) | undefined;
  /** Set once it fell behind: it then reads from its own path, opened on its next read. */
  moved: boolean;
  own: Promise<ReadableStreamDefaultReader<Uint8Array>> | undefined;
  /** Its stream's controller, to cut it off while it reads nothing. */
  controller: ReadableStreamDefaultController<Uint8Array> | undefined;
}

export class SharedBody {
  /** Chunks kept; `#chunks[i]` has the absolute index `#dropped + i`. */
  #chunks: Uint8Array[] = [];
  #dropped = 0;
  /** Bytes in `#chunks`. */
  #held = 0;
  #size = 0;
  #collecting = true;
  #done = false;
  #failed = false;
  #error: unknown = undefined;
  #settled = false;
  /** Clients reading from the shared chunks (not those moved onto their own path). */
  readonly #readers = new Set<Reader>();
  #wake: (() => void) | undefined;
  /** Runs while the clients are held back by one a window behind (see {@link SharedBodyOptions.stallTimeoutMs}). */
  #stall: ReturnType<typeof setTimeout> | undefined;
  #resolve!: (body: Uint8Array | undefined) => void;
  readonly #options: SharedBodyOptions;
  /** The complete body once read within the limit; undefined when it was too large, failed or was abandoned. */
  readonly complete: Promise<Uint8Array | undefined>;

  /** Reads `source` (a body already in memory when it is bytes, e.g. a freshened stored response). */
  constructor(source: ReadableStream<Uint8Array> | Uint8Array | null, options: SharedBodyOptions) {
    this.#options = options;
    this.complete = new Promise((resolve) => (this.#resolve = resolve));
    void this.complete.then(() => (this.#settled = true));
    if (source instanceof Uint8Array) {
      this.#chunks = [source];
      this.#size = source.byteLength;
      this.#held = source.byteLength;
      this.#finish();
    } else if (source === null) {
      this.#finish();
    } else {
      void this.#pump(source.getReader());
    }
  }

  /** True while a new client can still receive the whole body. */
  get joinable(): boolean {
    return this.#collecting && !this.#failed;
  }

  /** True once it is known whether the whole body was collected (see {@link complete}). */
  get settled(): boolean {
    return this.#settled;
  }

  /** Bytes read from the origin so far. */
  get size(): number {
    return this.#size;
  }

  /** Bytes held in memory for the clients and the store copy. */
  get buffered(): number {
    return this.#held;
  }

  /** How many clients read from the shared chunks now (not counting those on their own path). */
  get readers(): number {
    return this.#readers.size;
  }

  /** A new stream of the whole body; call only while {@link joinable}. */
  stream(): ReadableStream<Uint8Array> {
    const reader: Reader = { next: this.#dropped, offset: 0, waiting: undefined, moved: false, own: undefined, controller: undefined };
    this.#readers.add(reader);
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => void (reader.controller = controller),
        pull: (controller) => this.#pull(reader, controller),
        cancel: (reason) => {
          this.#leave(reader);
          void reader.own?.then((own) => own.cancel(reason)).catch(() => {});
        },
      },
      { highWaterMark: 0 },
    );
  }

  async #pull(reader: Reader, controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    for (;;) {
      if (reader.moved) return this.#pullOwn(reader, controller);
      const index = reader.next - this.#dropped;
      if (index < this.#chunks.length) {
        const chunk = this.#chunks[index]!;
        reader.next++;
        reader.offset += chunk.byteLength;
        controller.enqueue(chunk);
        this.#trim();
        this.#poke();
        return;
      }
      if (this.#failed) {
        this.#leave(reader);
        return controller.error(this.#error);
      }
      if (this.#done) {
        this.#leave(reader);
        return controller.close();
      }
      await new Promise<void>((resolve) => {
        reader.waiting = resolve;
        this.#poke();
      });
      reader.waiting = undefined;
    }
  }

  async #pullOwn(reader: Reader, controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    try {
      reader.own ??= this.#options.resume!(reader.offset).then((stream) => stream.getReader());
      const { done, value } = await (await reader.own).read();
      if (done) controller.close();
      else controller.enqueue(value);
    } catch (error) {
      controller.error(error);
    }
  }

  async #pump(source: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      for (;;) {
        if (!this.#collecting && !(await this.#demand())) {
          // No client is left and nothing will be stored: stop the origin's transfer.
          await source.cancel().catch(() => {});
          this.#done = true;
          return;
        }
        const { done, value } = await readWithin(source, this.#options.idleTimeoutMs);
        if (done) break;
        this.#append(value);
      }
      this.#finish();
    } catch (error) {
      this.#fail(error);
      await source.cancel(error).catch(() => {});
    }
  }

  /**
   * Waits until a client wants a chunk not read yet and the window allows reading it; moves
   * clients that fell a window behind onto their own path. False when no client is left.
   */
  async #demand(): Promise<boolean> {
    try {
      for (;;) {
        if (this.#readers.size === 0) return false;
        let wanted = false;
        let slowest = Infinity;
        for (const reader of this.#readers) {
          if (reader.waiting) wanted = true;
          slowest = Math.min(slowest, reader.offset);
        }
        if (wanted) {
          if (this.#size - slowest < this.#options.window) return true;
          if (this.#moveLaggards()) continue;
          this.#stall ??= this.#stallTimer();
        }
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      this.#clearStall();
    }
  }

  /** Cuts off the clients still a window behind once the others have waited for them `stallTimeoutMs`. */
  #stallTimer(): ReturnType<typeof setTimeout> | undefined {
    const ms = this.#options.stallTimeoutMs;
    if (!Number.isFinite(ms)) return undefined;
    return setTimeout(() => {
      this.#stall = undefined;
      for (const reader of this.#readers) {
        if (reader.waiting || this.#size - reader.offset < this.#options.window) continue;
        this.#readers.delete(reader);
        reader.controller?.error(new SlowClientError(`cachette: this client read nothing for ${ms} ms while others sharing its response waited for it`));
      }
      this.#trim();
      this.#poke();
    }, ms);
  }

  #clearStall(): void {
    clearTimeout(this.#stall);
    this.#stall = undefined;
  }

  /**
   * Moves the clients a whole window behind onto their own path, which opens when such a client
   * next reads (one that never reads again costs the origin nothing); false when there is no
   * path to move them to.
   */
  #moveLaggards(): boolean {
    if (!this.#options.resume) return false;
    let moved = false;
    for (const reader of this.#readers) {
      if (reader.waiting || this.#size - reader.offset < this.#options.window) continue;
      reader.moved = true;
      this.#readers.delete(reader);
      moved = true;
    }
    if (moved) this.#trim();
    return moved;
  }

  #append(chunk: Uint8Array): void {
    this.#size += chunk.byteLength;
    this.#held += chunk.byteLength;
    this.#chunks.push(chunk);
    if (this.#collecting && this.#size > this.#options.limit) {
      this.#collecting = false;
      this.#resolve(undefined);
    }
    for (const reader of this.#readers) reader.waiting?.();
    this.#trim();
  }

  /** Once nothing is collected, drops the chunks every client has read. */
  #trim(): void {
    if (this.#collecting) return;
    let first = this.#dropped + this.#chunks.length;
    for (const reader of this.#readers) first = Math.min(first, reader.next);
    const drop = first - this.#dropped;
    if (drop <= 0) return;
    for (const chunk of this.#chunks.splice(0, drop)) this.#held -= chunk.byteLength;
    this.#dropped = first;
  }

  #leave(reader: Reader): void {
    this.#readers.delete(reader);
    this.#trim();
    this.#poke();
  }

  #finish(): void {
    this.#done = true;
    for (const reader of this.#readers) reader.waiting?.();
    if (!this.#collecting) return;
    const chunks = this.#chunks;
    if (chunks.length === 1) {
      this.#resolve(chunks[0]!);
      return;
    }
    // The clients keep reading the chunks; the store gets one contiguous copy.
    const out = new Uint8Array(this.#size);
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.byteLength;
    }
    this.#resolve(out);
  }

  #fail(error: unknown): void {
    this.#failed = true;
    this.#error = error;
    this.#collecting = false;
    this.#resolve(undefined);
    for (const reader of this.#readers) reader.waiting?.();
    this.#chunks = [];
    this.#held = 0;
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
