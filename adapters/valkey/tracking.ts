/**
 * Server-assisted invalidation for the valkey store (Store.track): Redis/Valkey CLIENT TRACKING
 * in its default mode on the store's own connection, with REDIRECT to a second connection
 * subscribed to `__redis__:invalidate`. The store speaks RESP2, where invalidations can only
 * arrive as Pub/Sub messages on another connection; that second connection is the only one
 * tracking adds, so a process holds at most two.
 *
 * The server remembers every key the store's connection reads and sends its name once when it
 * changes (written, deleted, expired or evicted); a FLUSHALL sends null. Invalidations are
 * trusted only while both connections are up and tracking is on: any drop, of either one,
 * flushes the listeners and ends the session, and a new session starts only once the server
 * has confirmed CLIENT TRACKING again. A heartbeat on the invalidation connection catches a
 * peer that vanished without closing the socket.
 *
 * The two connections are reached through {@link TrackedConnection} and {@link Subscriber}, so
 * that the same logic runs on the store's own connections and on an iovalkey client passed in.
 */
import type { InvalidationListener, Tracking } from '../../src/store/types.ts';
import type { RespValue } from './resp/parser.ts';

/** The channel invalidations are published on. */
export const INVALIDATION_CHANNEL = '__redis__:invalidate';
/** How often the invalidation connection is pinged; a ping unanswered by the next one means it is gone. */
const HEARTBEAT_MS = 1000;

/** The store's connection, on which CLIENT TRACKING is turned on. */
export interface TrackedConnection {
  /** True while the connection is up. */
  readonly ready: boolean;
  /** Calls `listener` each time the connection is (again) up, or goes down. */
  on(event: 'ready' | 'close', listener: () => void): void;
  off(event: 'ready' | 'close', listener: () => void): void;
  /** One command on this connection, in order with the store's own. */
  command(args: readonly string[]): Promise<RespValue>;
  /** Opens the second connection (same server, same credentials), in subscriber mode. */
  openSubscriber(): Subscriber;
}

/** The connection invalidations arrive on. It reconnects by itself, and is not resubscribed: tracking does that. */
export interface Subscriber {
  on(event: 'ready' | 'close', listener: () => void): void;
  /** A Pub/Sub message: its channel, and its payload (a list of keys, or null for "everything"). */
  onMessage(listener: (channel: string, payload: RespValue) => void): void;
  command(args: readonly string[]): Promise<RespValue>;
  /** Drops the connection so that it reconnects (its peer stopped answering). */
  reconnect(): void;
  /** Closes it for good. */
  close(): void;
}

/** The tracking state of one valkey store, shared by every cache over it. */
export class ValkeyTracking {
  readonly #main: TrackedConnection;
  readonly #listeners = new Set<InvalidationListener>();
  #sub: Subscriber | undefined;
  /** The CLIENT ID of the invalidation connection while it is up and subscribed. */
  #subId: number | undefined;
  #live = false;
  #session = 0;
  /** Bumped by every drop, so an establishment started before it never declares the new session live. */
  #attempt = 0;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #pingOutstanding = false;
  readonly #onMainReady = () => void this.#establish();
  readonly #onMainClose = () => this.#drop();

  constructor(main: TrackedConnection) {
    this.#main = main;
  }

  /** True while invalidations are delivered. */
  get live(): boolean {
    return this.#live;
  }

  /** Changes on every loss of tracking. */
  get session(): number {
    return this.#session;
  }

  /** Registers a listener; the first one starts tracking. */
  add(listener: InvalidationListener): Tracking {
    this.#listeners.add(listener);
    if (this.#listeners.size === 1) this.#start();
    // A listener added while tracking is live starts empty, so there is nothing to flush.
    const tracking = this;
    return {
      get live() {
        return tracking.#live;
      },
      get session() {
        return tracking.#session;
      },
      close: async () => {
        if (!this.#listeners.delete(listener) || this.#listeners.size > 0) return;
        await this.stop();
      },
    };
  }

  /** Turns tracking off and closes the invalidation connection. */
  async stop(): Promise<void> {
    this.#listeners.clear();
    const sub = this.#sub;
    this.#sub = undefined;
    this.#subId = undefined;
    this.#drop();
    this.#main.off('ready', this.#onMainReady);
    this.#main.off('close', this.#onMainClose);
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    sub?.close();
    if (this.#main.ready) await this.#main.command(['CLIENT', 'TRACKING', 'OFF']).catch(() => undefined);
  }

  #start(): void {
    const sub = this.#main.openSubscriber();
    this.#sub = sub;
    sub.on('ready', () => void this.#subscribe(sub));
    sub.on('close', () => {
      if (this.#sub === sub) this.#subId = undefined;
      this.#drop();
    });
    sub.onMessage((channel, payload) => {
      if (channel !== INVALIDATION_CHANNEL || !this.#live) return;
      if (!Array.isArray(payload)) {
        // null: the server flushed a database (FLUSHALL, FLUSHDB) or its tracking table.
        for (const l of this.#listeners) l.flushed();
        return;
      }
      const keys = payload.map((key) => String(key));
      for (const l of this.#listeners) l.invalidated(keys);
    });
    this.#main.on('ready', this.#onMainReady);
    this.#main.on('close', this.#onMainClose);
    this.#heartbeat = setInterval(() => this.#beat(), HEARTBEAT_MS);
    (this.#heartbeat as { unref?: () => void }).unref?.();
  }

  /** The invalidation connection came up: learn its id and subscribe (before it is in subscriber mode). */
  async #subscribe(sub: Subscriber): Promise<void> {
    try {
      const id = await sub.command(['CLIENT', 'ID']);
      await sub.command(['SUBSCRIBE', INVALIDATION_CHANNEL]);
      if (this.#sub !== sub) return;
      this.#subId = Number(id);
    } catch {
      // It failed meanwhile; its close event and next ready start over.
      return;
    }
    await this.#establish();
  }

  /** Once both connections are up: point the store's connection's tracking at the subscriber, then go live. */
  async #establish(): Promise<void> {
    const sub = this.#sub;
    const id = this.#subId;
    if (!sub || id === undefined || !this.#main.ready || this.#live) return;
    const attempt = ++this.#attempt;
    try {
      await this.#main.command(['CLIENT', 'TRACKING', 'ON', 'REDIRECT', String(id)]);
    } catch {
      return;
    }
    if (attempt !== this.#attempt || this.#sub !== sub || this.#subId !== id || this.#live) return;
    this.#live = true;
    for (const l of this.#listeners) l.liveChanged(true);
  }

  /** Tracking is lost (or may be): end the session, flush, and wait for both connections again. */
  #drop(): void {
    this.#attempt++;
    if (!this.#live) return;
    this.#live = false;
    this.#session++;
    for (const l of this.#listeners) {
      l.flushed();
      l.liveChanged(false);
    }
  }

  #beat(): void {
    const sub = this.#sub;
    if (!sub || !this.#live) return;
    if (this.#pingOutstanding) {
      // The last ping never came back: the peer may be gone without a FIN. Start over.
      this.#pingOutstanding = false;
      this.#drop();
      sub.reconnect();
      return;
    }
    this.#pingOutstanding = true;
    sub.command(['PING']).then(
      () => void (this.#pingOutstanding = false),
      () => void (this.#pingOutstanding = false),
    );
  }
}
