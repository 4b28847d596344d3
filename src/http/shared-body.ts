/**
 * One origin body, read once, given to any number of clients while a copy is collected for
 * the store. A client that joins late first receives what was already read, then follows live.
 *
 * While the copy is being collected the source is read as fast as it arrives (the copy is
 * bounded by `limit`). Past the limit the copy is dropped, nobody new may join, and reading
 * follows the clients' demand, so a slow client slows the origin instead of filling memory.
 */
export class SharedBody {
  #chunks: Uint8Array[] = [];
  #size = 0;
  #collecting = true;
  #done = false;
  #error: unknown = undefined;
  #failed = false;
  #consumers = new Set<ReadableStreamDefaultController<Uint8Array>>();
  #wake: (() => void) | undefined;
  #resolve!: (body: Uint8Array | undefined) => void;
  /** The complete body once read within the limit; undefined when it was too large, failed or was abandoned. */
  readonly complete: Promise<Uint8Array | undefined>;

  constructor(source: ReadableStream<Uint8Array> | null, readonly limit: number) {
    this.complete = new Promise((resolve) => (this.#resolve = resolve));
    if (source === null) this.#finish();
    else void this.#pump(source.getReader());
  }

  /** A body already complete in memory (a stored or freshened response). */
  static of(bytes: Uint8Array): SharedBody {
    const body = new SharedBody(null, Infinity);
    body.#chunks = [bytes];
    body.#size = bytes.length;
    body.#resolve(bytes);
    return body;
  }

  /** True while a new client can still receive the whole body. */
  get joinable(): boolean {
    return this.#collecting && !this.#failed;
  }

  /** A new stream of the whole body; call only while {@link joinable}. */
  stream(): ReadableStream<Uint8Array> {
    let self: ReadableStreamDefaultController<Uint8Array>;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        self = controller;
        for (const chunk of this.#chunks) controller.enqueue(chunk);
        if (this.#failed) controller.error(this.#error);
        else if (this.#done) controller.close();
        else this.#consumers.add(controller);
      },
      pull: () => this.#notify(),
      cancel: () => {
        this.#consumers.delete(self);
        this.#notify();
      },
    });
  }

  async #pump(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      for (;;) {
        if (!this.#collecting) {
          await this.#demand();
          if (this.#consumers.size === 0) {
            await reader.cancel();
            return;
          }
        }
        const { done, value } = await reader.read();
        if (done) break;
        this.#size += value.byteLength;
        if (this.#collecting) {
          if (this.#size > this.limit) this.#abandon();
          else this.#chunks.push(value);
        }
        for (const c of this.#consumers) c.enqueue(value);
      }
      this.#finish();
    } catch (error) {
      this.#failed = true;
      this.#error = error;
      for (const c of this.#consumers) c.error(error);
      this.#consumers.clear();
      this.#abandon();
    }
  }

  #finish(): void {
    this.#done = true;
    for (const c of this.#consumers) c.close();
    this.#consumers.clear();
    if (!this.#collecting) return;
    const chunks = this.#chunks;
    if (chunks.length === 1) return this.#resolve(chunks[0]!);
    const out = new Uint8Array(this.#size);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    this.#chunks = [out];
    this.#resolve(out);
  }

  #abandon(): void {
    if (!this.#collecting) return;
    this.#collecting = false;
    this.#chunks = [];
    this.#resolve(undefined);
  }

  /** Resolves when some client wants more, or when none is left. */
  #demand(): Promise<void> {
    if (this.#consumers.size === 0) return Promise.resolve();
    for (const c of this.#consumers) if ((c.desiredSize ?? 0) > 0) return Promise.resolve();
    return new Promise((resolve) => (this.#wake = resolve));
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
