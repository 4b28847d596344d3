/**
 * The bytes of response bodies the proxy holds for clients that have not taken them yet, bounded
 * for the whole proxy (issue 23, item 9).
 *
 * A body handed to a socket stays in memory until the client reads it, and on a store outside
 * the process every hit decodes its own copy: 40 clients that asked for a cached 7 MiB response
 * and never read held 40 copies (+257 MiB of RSS), and nothing ever let go of them. Three things
 * bound that here:
 *
 * - Sharing. A body equal to one already held for another client is written from that one, so
 *   any number of stalled clients of one entry hold one copy. Equal means equal bytes, compared
 *   (one pass over the body, as decoding it was), never guessed from a key or a length.
 * - A bound on the total, `maxBytes`. Past it, the connections that have taken nothing for the
 *   longest are closed until the rest fits: a client that reads, however slowly, shows progress
 *   at every slice it takes (pump.ts writes large bodies in slices), one that never reads does not.
 * - A write timeout. A connection whose client takes nothing for `writeTimeoutMs` while the
 *   proxy holds bytes for it is closed (nginx's `send_timeout`, 60 s by default, too).
 *
 * Bodies a client takes at once (the kernel accepts them whole, the common case) are never
 * counted: the writer asks only when bytes are left over after a write.
 */
import type { Socket } from 'node:net';

/** Options of {@link HeldBytes}. */
export interface HeldBytesOptions {
  /** The bound on distinct bytes held for all clients together. */
  maxBytes: number;
  /** How long a client may take nothing while bytes are held for it. */
  writeTimeoutMs: number;
}

/** What is held for clients now, and how many connections were closed for taking nothing. */
export interface HeldStats {
  /** Distinct bytes held for all clients now. */
  bytes: number;
  /** Connections closed so far because their client took nothing: past the bound, or for the write timeout. */
  closedConnections: number;
}

/** Bytes counted as held for one client, until {@link Holding.release}. */
export interface Holding {
  /** The client took bytes: it is not stalled. */
  progress(): void;
  /** The bytes are no longer held for this client (written, or the connection closed). Idempotent. */
  release(): void;
}

/** One distinct body held for one or more clients. */
interface HeldBody {
  bytes: Uint8Array;
  holdings: number;
}

/** The clients of one connection, and what is held for them. */
interface Holder {
  socket: Socket;
  holdings: Set<HoldingRecord>;
  timer: ReturnType<typeof setTimeout>;
  onClose: () => void;
}

interface HoldingRecord extends Holding {
  body: HeldBody;
}

/** At most this many held bodies of a length are compared with a new one: a bound on the work one hit can cause. */
const MAX_COMPARISONS = 4;

const NOTHING_HELD: Holding = { progress() {}, release() {} };

/** The proxy-wide account of bytes held for clients (see the module comment). */
export class HeldBytes {
  readonly #bodiesByLength = new Map<number, HeldBody[]>();
  /** In order of last progress: the first has taken nothing for the longest. */
  readonly #holders = new Map<Socket, Holder>();
  #bytes = 0;
  #closed = 0;

  constructor(private readonly options: HeldBytesOptions) {}

  /** What is held now, and how many connections were closed for it. */
  stats(): HeldStats {
    return { bytes: this.#bytes, closedConnections: this.#closed };
  }

  /** A body equal to `bytes` already held for another client, if there is one; otherwise `bytes`. */
  share(bytes: Uint8Array): Uint8Array {
    const sameLength = this.#bodiesByLength.get(bytes.byteLength);
    if (sameLength === undefined) return bytes;
    for (let i = sameLength.length - 1; i >= 0 && i >= sameLength.length - MAX_COMPARISONS; i--) {
      const held = sameLength[i]!.bytes;
      if (held === bytes || Buffer.compare(held, bytes) === 0) return held;
    }
    return bytes;
  }

  /**
   * Counts `bytes` as held for the client on `socket` until the holding is released (or the
   * socket closes); when the total then exceeds the bound, closes the connections that have
   * taken nothing for the longest until it fits.
   */
  hold(socket: Socket, bytes: Uint8Array): Holding {
    if (socket.destroyed) return NOTHING_HELD;
    const holder = this.#holders.get(socket) ?? this.#newHolder(socket);
    const body = this.#bodyFor(bytes);
    const record: HoldingRecord = {
      body,
      progress: () => this.#progress(holder),
      release: () => {
        if (!holder.holdings.delete(record)) return;
        this.#unhold(body);
        this.#progress(holder);
        if (holder.holdings.size === 0) this.#forget(holder);
      },
    };
    holder.holdings.add(record);
    // In order of last progress, this connection included when it holds more than this body
    // (pipelined requests that pile up), since the response being written now may always hold
    // its own body once. Deleting from a Map while iterating it is safe.
    for (const candidate of this.#holders.values()) {
      if (this.#bytes <= this.options.maxBytes) break;
      if (candidate !== holder || holder.holdings.size > 1) this.#close(candidate, true);
    }
    return record;
  }

  #newHolder(socket: Socket): Holder {
    const holder: Holder = {
      socket,
      holdings: new Set(),
      timer: setTimeout(() => this.#close(holder, true), this.options.writeTimeoutMs),
      onClose: () => this.#close(holder, false),
    };
    // The timer must not keep the process alive; the socket it guards does that.
    holder.timer.unref();
    socket.once('close', holder.onClose);
    this.#holders.set(socket, holder);
    return holder;
  }

  #bodyFor(bytes: Uint8Array): HeldBody {
    const sameLength = this.#bodiesByLength.get(bytes.byteLength);
    const existing = sameLength?.find((body) => body.bytes === bytes);
    if (existing !== undefined) {
      existing.holdings++;
      return existing;
    }
    const body = { bytes, holdings: 1 };
    if (sameLength === undefined) this.#bodiesByLength.set(bytes.byteLength, [body]);
    else sameLength.push(body);
    this.#bytes += bytes.byteLength;
    return body;
  }

  #unhold(body: HeldBody): void {
    if (--body.holdings > 0) return;
    const sameLength = this.#bodiesByLength.get(body.bytes.byteLength)!;
    sameLength.splice(sameLength.indexOf(body), 1);
    if (sameLength.length === 0) this.#bodiesByLength.delete(body.bytes.byteLength);
    this.#bytes -= body.bytes.byteLength;
  }

  #progress(holder: Holder): void {
    if (this.#holders.get(holder.socket) !== holder) return;
    holder.timer.refresh();
    // Moved to the end: the least recently progressing connection stays first.
    this.#holders.delete(holder.socket);
    this.#holders.set(holder.socket, holder);
  }

  /** Lets go of everything held for the connection and closes it, `stalled` when for taking nothing (a no-op once it was forgotten). */
  #close(holder: Holder, stalled: boolean): void {
    if (this.#holders.get(holder.socket) !== holder) return;
    for (const record of holder.holdings) this.#unhold(record.body);
    holder.holdings.clear();
    this.#forget(holder);
    if (stalled) this.#closed++;
    holder.socket.destroy();
  }

  #forget(holder: Holder): void {
    clearTimeout(holder.timer);
    holder.socket.off('close', holder.onClose);
    this.#holders.delete(holder.socket);
  }
}
