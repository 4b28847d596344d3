/**
 * The coherence bus over a pub/sub transport (Valkey/Redis PUBLISH/SUBSCRIBE), shared by every
 * cache over one store: leases with acknowledged invalidation (Gray and Cheriton's leases).
 *
 * A holder (a process keeping L1 copies) listens to the bucket channel of every key a copy
 * depends on (format.ts), subscribed and confirmed before the read the copy comes from was
 * issued, so the server's own list of subscribers is the list of holders: nothing is stored
 * that an eviction could take away, and a process that disconnects leaves it by itself.
 *
 * A writer publishes each invalidation after its write (on one ordered connection, in the same
 * round trip; elsewhere once the write answered), learns from PUBLISH how many subscribers
 * received it, and waits for as many acknowledgements, which holders send once they dropped
 * what the message names. A holder that does not answer is waited for one lease at most,
 * counted from the PUBLISH reply, and that is safe without any shared clock: a holder serves
 * copies only while its lease holds, and it renews the lease by a beat, a message to itself
 * whose arrival proves that everything published before the beat reached the server was
 * delivered (one connection delivers in order). Its lease lasts from when it sent the beat
 * that came back, minus a margin; a beat sent after the writer's PUBLISH executed comes back
 * after the invalidation, so a holder that never processed it can only hold a lease from a
 * beat sent before the PUBLISH reply, and that lease ends before the writer stops waiting.
 *
 * A transport whose server cannot count the receivers of a message (PostgreSQL's NOTIFY) names
 * the holders to wait for instead (BusTransport.publish, BusTransport.identify): the bus then
 * waits for the acknowledgements of exactly those, and one from any other process counts for
 * nothing. A transport with bounded payloads (BusTransport.maxMessageBytes) gets its messages
 * split to fit (format.ts).
 *
 * Anything that may lose a message (either connection dropping, a beat not coming back in
 * time) ends the session: copies are flushed, and bypassed until the next beat returns.
 *
 * The own echo (this process's invalidation, delivered back to it because it holds the keys'
 * bucket) is only counted as its acknowledgement on an ordered transport: the caches of this
 * process heard of the write already, when it was issued (the writing cache drops its copies
 * before the write is sent, the others are told at once by {@link PubSubBus.register}'s
 * invalidate, behind the write), and every read they issue afterwards goes down the same
 * connection behind the write, so it cannot find what the write replaced; a read issued before
 * was either done by then (its copy dropped) or is in flight (it is not kept). Applying the echo
 * as well would only drop the copies those later reads made of the new value. Where the store's
 * calls and the publish do not share one ordered connection (the cluster), a read issued after
 * the write may still execute before it, and the echo is applied like any invalidation. The
 * writer still waits for its own echo, as for any receiver: PUBLISH counted it.
 *
 * A watcher (CoherenceOptions.watcher: the unstorage driver's `watch`) is a holder that keeps
 * no copies: it listens to every bucket, so PUBLISH counts it, and it acknowledges what it
 * receives at once like any holder (a writer never waits a lease for it while its process
 * runs). It hears of writes only from the bus, never from the in-process shortcut that tells
 * this process's caches before the write executed: its own process's writes reach it as
 * they reach every other process, once executed. When the last watcher leaves, the buckets no
 * holder asked for are unsubscribed again (where the transport can), so that writers stop
 * counting this process for keys it does not hold.
 */
import type { Coherence, CoherenceListener, CoherenceOptions } from '../types.ts';
import {
  ackMessages,
  ALL_CHANNEL,
  BEAT_MS,
  BUCKETS,
  beatMessage,
  bucketChannels,
  decodeMessage,
  invalidationMessage,
  keyChannel,
  LEASE_MARGIN_MS,
  LEASE_MS,
  messagesFor,
  ownChannel,
} from './format.ts';

/** What the bus needs from a store's pub/sub: its connection, and a subscriber connection beside it. */
export interface BusTransport {
  /** True while both connections are up. */
  readonly up: boolean;
  /**
   * True when a publish issued after a store call of the same store executes after that call
   * (one connection keeps their order); otherwise the bus publishes once the write answered.
   */
  readonly ordered: boolean;
  /** Calls `listener` each time {@link up} changes. Each change to true is a new subscriber connection: nothing is subscribed on it yet. */
  onState(listener: (up: boolean) => void): void;
  /** Calls `listener` with each message of a subscribed channel. */
  onMessage(listener: (channel: string, message: string) => void): void;
  /** Subscribes the subscriber connection to `channel`; resolves once the server confirmed it. */
  subscribe(channel: string): Promise<void>;
  /**
   * Unsubscribes it again; resolves once the server confirmed it (everything published on the
   * channel before then was delivered first). Optional: without it, a channel stays subscribed
   * for the rest of the session.
   */
  unsubscribe?(channel: string): Promise<void>;
  /**
   * Publishes on the store's connection, after every call issued on it so far; resolves who
   * received it: how many subscribers (Valkey's PUBLISH counts them exactly), or, where the
   * server cannot count them, the ids of the holders whose acknowledgement the bus waits for
   * (any other that answers is not counted: it may have received it without holding anything).
   */
  publish(channel: string, message: string): Promise<number | ReadonlySet<string>>;
  /**
   * The most UTF-8 bytes one message may take (PostgreSQL's NOTIFY: under 8,000); absent:
   * unbounded. Invalidations and acknowledgements are split to fit (format.ts).
   */
  readonly maxMessageBytes?: number;
  /** Optional: told this process's id on the bus before anything is subscribed (a transport that names the holders it counts). */
  identify?(id: string): void;
  /** Closes the subscriber connection. */
  close(): Promise<void>;
}

/** A subscription of the current session: confirmed at mark `at`, or still pending; `released`: being unsubscribed. */
interface Watch {
  at: number | undefined;
  released?: boolean;
}

/** An invalidation this process published and waits on. */
interface Pending {
  /** Acknowledgements to wait for, once the publish resolved: how many, or from which holders. */
  needed: number | ReadonlySet<string> | undefined;
  /** How many acknowledgements arrived. */
  got: number;
  /** Who sent them, where {@link needed} names holders. */
  heard: Set<string> | undefined;
  done(): void;
}

/** True once every acknowledgement `pending` waits for arrived. */
function answered(pending: Pending): boolean {
  const needed = pending.needed;
  if (needed === undefined) return false;
  if (typeof needed === 'number') return pending.got >= needed;
  for (const holder of needed) if (!pending.heard?.has(holder)) return false;
  return true;
}

const monotonic = (): number => performance.now();

/** A random id for this process on the bus (16 hex digits). */
function newId(): string {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return words[0]!.toString(16).padStart(8, '0') + words[1]!.toString(16).padStart(8, '0');
}

/** The bus of one store; {@link register} gives each cache its {@link Coherence}. */
export class PubSubBus {
  readonly #transport: BusTransport;
  readonly #id = newId();
  readonly #own: string;
  /** Whether the transport's publish names the holders to wait for (and is told this process's id). */
  readonly #namesHolders: boolean;
  readonly #listeners = new Set<CoherenceListener>();
  /** The watchers (CoherenceOptions.watcher): told of every key, keeping nothing. */
  readonly #watchers = new Set<CoherenceListener>();
  #session = 0;
  /** Subscriptions of the current session, by channel. */
  #watches = new Map<string, Watch>();
  /** The bucket channels a holder asked for in this session: a leaving watcher keeps them. */
  #held = new Set<string>();
  /** How many bucket channels are confirmed subscribed in this session. */
  #bucketsWatched = 0;
  /** Watchers waiting for every bucket to be watched. */
  #everythingWaiters: Array<(watched: boolean) => void> = [];
  /** Counts confirmations: a watch confirmed at mark m covers reads issued at marks ≥ m. */
  #marks = 0;
  /** Until when copies may be served (monotonic ms); 0: not now. */
  #validUntil = 0;
  #live = false;
  #beats = 0;
  /** When each beat in flight was sent, by number. */
  readonly #beatSent = new Map<number, number>();
  /** Barriers waiting for a beat: the beat's number, and who waits. */
  #barrierBeat: number | undefined;
  #barrierWaiters: Array<(confirmed: boolean) => void> = [];
  #barrierQueued: Array<(confirmed: boolean) => void> = [];
  #seq = 0;
  readonly #pending = new Map<number, Pending>();
  /** Acknowledgements to send at the end of the tick, by writer. */
  #acks = new Map<string, number[]>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(transport: BusTransport) {
    this.#transport = transport;
    this.#own = ownChannel(this.#id);
    this.#namesHolders = transport.identify !== undefined;
    transport.identify?.(this.#id);
    transport.onState((up) => (up ? this.#begin() : this.#end()));
    transport.onMessage((channel, message) => this.#received(channel, message));
  }

  /** This process's id on the bus. */
  get id(): string {
    return this.#id;
  }

  /** Registers one cache, or a watcher; the first one starts the bus. */
  register(listener: CoherenceListener, options: CoherenceOptions): Coherence {
    if (options.watcher === true) return this.#registerWatcher(listener);
    this.#listeners.add(listener);
    if (this.#timer === undefined) this.#start();
    const bus = this;
    return {
      serving: () => this.#serving(),
      get session() {
        return bus.#session;
      },
      get mark() {
        return bus.#marks;
      },
      covered: (keys, mark, watchMissing) => this.#covered(keys, mark, watchMissing !== false),
      barrier: () => this.#barrier(),
      invalidate: (keys, written, removed) => this.#invalidate(listener, options, keys, written, removed),
      close: async () => {
        if (!this.#listeners.delete(listener) || this.#listeners.size + this.#watchers.size > 0) return;
        await this.close();
      },
    };
  }

  /** A watcher: every bucket subscribed, nothing held, nothing served; `barrier` waits for the buckets. */
  #registerWatcher(listener: CoherenceListener): Coherence {
    this.#watchers.add(listener);
    if (this.#timer === undefined) this.#start();
    else if (this.#transport.up) this.#watchEverything();
    const bus = this;
    return {
      serving: () => false,
      get session() {
        return bus.#session;
      },
      get mark() {
        return bus.#marks;
      },
      covered: () => false,
      barrier: () => this.#everythingWatched(),
      invalidate: (keys, written, removed) => this.#invalidate(listener, { confirm: 'lease' }, keys, written, removed),
      close: async () => {
        if (!this.#watchers.delete(listener)) return;
        if (this.#listeners.size + this.#watchers.size === 0) await this.close();
        else if (this.#watchers.size === 0) await this.#release();
      },
    };
  }

  /** Stops the bus and closes the subscriber connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#end();
    this.#settleEverything(false);
    for (const pending of this.#pending.values()) pending.done();
    this.#pending.clear();
    await this.#transport.close();
  }

  #start(): void {
    this.#timer = setInterval(() => this.#tick(), BEAT_MS);
    (this.#timer as { unref?: () => void }).unref?.();
    if (this.#transport.up) this.#begin();
  }

  /** Both connections are up (again): a new session, listening to its own channel and to `all` first. */
  #begin(): void {
    if (this.#closed) return;
    this.#end();
    this.#watch(this.#own);
    this.#watch(ALL_CHANNEL);
    if (this.#watchers.size > 0) this.#watchEverything();
  }

  /** The session ends: nothing subscribed, nothing served, everything held flushed. */
  #end(): void {
    this.#session++;
    this.#watches = new Map();
    this.#held = new Set();
    this.#bucketsWatched = 0;
    this.#validUntil = 0;
    this.#beatSent.clear();
    this.#settleBarriers(false);
    this.#lapse();
  }

  #serving(): boolean {
    if (!this.#live) return false;
    if (monotonic() < this.#validUntil) return true;
    // The lease ran out before a beat renewed it: stop serving now, until a beat comes back.
    this.#lapse();
    return false;
  }

  /** Stops serving (when it was): every listener flushes first. */
  #lapse(): void {
    if (!this.#live) return;
    this.#live = false;
    for (const listener of this.#listeners) {
      listener.flushed();
      listener.liveChanged(false);
    }
  }

  /** Every beat interval: a beat, and a lapse noticed even while nobody reads. */
  #tick(): void {
    if (this.#live && monotonic() >= this.#validUntil) this.#lapse();
    this.#beat();
  }

  #beat(): number | undefined {
    if (!this.#transport.up || this.#watches.get(this.#own)?.at === undefined) return undefined;
    const beat = ++this.#beats;
    this.#beatSent.set(beat, monotonic());
    // A beat whose PUBLISH fails is lost with its connection: the session ends there.
    this.#transport.publish(this.#own, beatMessage(beat)).catch(() => this.#beatSent.delete(beat));
    return beat;
  }

  #watch(channel: string): void {
    // A channel being unsubscribed is subscribed again behind it (the server keeps their order).
    const existing = this.#watches.get(channel);
    if (existing !== undefined && !existing.released) return;
    const watch: Watch = { at: undefined };
    const watches = this.#watches;
    watches.set(channel, watch);
    this.#transport.subscribe(channel).then(
      () => {
        if (this.#watches !== watches || watch.released) return;
        watch.at = ++this.#marks;
        if (channel === this.#own) this.#beat();
        else if (channel !== ALL_CHANNEL && ++this.#bucketsWatched === BUCKETS) this.#settleEverything(true);
      },
      // Refused or lost with the connection: forgotten, so a later read asks again.
      () => {
        if (this.#watches.get(channel) === watch) this.#watches.delete(channel);
      },
    );
  }

  /** Every bucket, for the watchers. */
  #watchEverything(): void {
    for (const channel of bucketChannels()) this.#watch(channel);
  }

  /** Resolves true once every bucket is watched (in this session or a later one), false if the bus closes first. */
  #everythingWatched(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#bucketsWatched === BUCKETS) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => this.#everythingWaiters.push(resolve));
  }

  #settleEverything(watched: boolean): void {
    const waiters = this.#everythingWaiters;
    this.#everythingWaiters = [];
    for (const resolve of waiters) resolve(watched);
  }

  /**
   * The last watcher left: every bucket no holder asked for in this session is unsubscribed.
   * Until the server confirmed it the channel stays known, so that what arrives on it is still
   * acknowledged, but it covers no read (a copy kept on it would outlive the subscription).
   * Resolves once the server confirmed them all (or the connection was lost).
   */
  async #release(): Promise<void> {
    const transport = this.#transport;
    if (transport.unsubscribe === undefined || !transport.up) return;
    const watches = this.#watches;
    const released: Array<Promise<void>> = [];
    for (const [channel, watch] of watches) {
      if (channel === this.#own || channel === ALL_CHANNEL || this.#held.has(channel) || watch.released) continue;
      if (watch.at !== undefined) this.#bucketsWatched--;
      watch.at = undefined;
      watch.released = true;
      released.push(
        transport.unsubscribe(channel).then(
          () => {
            if (this.#watches === watches && watches.get(channel) === watch) watches.delete(channel);
          },
          // Lost with the connection: the session ends, and the next one starts with nothing subscribed.
          () => undefined,
        ),
      );
    }
    await Promise.all(released);
  }

  #covered(keys: readonly string[], mark: number, watchMissing: boolean): boolean {
    let covered = this.#confirmedBy(ALL_CHANNEL, mark, watchMissing);
    for (const key of keys) if (!this.#confirmedBy(keyChannel(key), mark, watchMissing)) covered = false;
    return covered;
  }

  #confirmedBy(channel: string, mark: number, watchMissing: boolean): boolean {
    const watch = this.#watches.get(channel);
    if (!watchMissing) return watch?.at !== undefined && watch.at <= mark && (channel === ALL_CHANNEL || this.#held.has(channel));
    if (channel !== ALL_CHANNEL) this.#held.add(channel);
    if (watch === undefined) {
      if (this.#transport.up) this.#watch(channel);
      return false;
    }
    return watch.at !== undefined && watch.at <= mark;
  }

  /** One beat for every barrier asked for in this tick, sent at its end. */
  #barrier(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (this.#barrierQueued.length === 0) queueMicrotask(() => this.#sendBarrier());
      this.#barrierQueued.push(resolve);
    });
  }

  #sendBarrier(): void {
    const waiters = this.#barrierQueued;
    this.#barrierQueued = [];
    const beat = this.#beat();
    if (beat === undefined) {
      for (const resolve of waiters) resolve(false);
      return;
    }
    // A barrier already in flight was sent before these were asked for: they wait for this beat.
    this.#barrierWaiters.push(...waiters);
    this.#barrierBeat = beat;
  }

  #settleBarriers(confirmed: boolean): void {
    const waiters = this.#barrierWaiters;
    this.#barrierWaiters = [];
    this.#barrierBeat = undefined;
    for (const resolve of waiters) resolve(confirmed);
  }

  #received(channel: string, text: string): void {
    if (!this.#watches.has(channel)) return;
    const message = decodeMessage(text);
    switch (message.kind) {
      case 'beat':
        if (channel === this.#own) this.#beatBack(message.beat);
        return;
      case 'ack':
        if (channel === this.#own) for (const seq of message.seqs) this.#acknowledged(seq, message.holder);
        return;
      case 'invalidate':
        if (channel === this.#own) return;
        if (message.writer !== this.#id) {
          this.#apply(message.keys, message.removed);
          this.#queueAck(message.writer, message.seq);
          return;
        }
        // The own echo: this process's caches heard of the write already (module comment).
        if (!this.#transport.ordered) this.#tell(this.#listeners, message.keys, false);
        this.#tell(this.#watchers, message.keys, message.removed);
        this.#acknowledged(message.seq, this.#id);
        return;
      case 'unknown':
        // Not a message of this bus: nothing it says can be trusted, so everything goes.
        if (channel !== this.#own) this.#apply(undefined);
    }
  }

  #apply(keys: readonly string[] | undefined, removed = false): void {
    this.#tell(this.#listeners, keys, false);
    this.#tell(this.#watchers, keys, removed);
  }

  #tell(listeners: ReadonlySet<CoherenceListener>, keys: readonly string[] | undefined, removed: boolean): void {
    for (const listener of listeners) {
      if (keys === undefined) listener.flushed();
      else listener.invalidated(keys, removed);
    }
  }

  #beatBack(beat: number): void {
    const sent = this.#beatSent.get(beat);
    if (sent === undefined) return;
    for (const older of this.#beatSent.keys()) {
      if (older > beat) break;
      this.#beatSent.delete(older);
    }
    if (this.#barrierBeat !== undefined && beat >= this.#barrierBeat) this.#settleBarriers(true);
    const until = sent + LEASE_MS - LEASE_MARGIN_MS;
    if (until <= monotonic() || until <= this.#validUntil) return;
    this.#validUntil = until;
    if (this.#live) return;
    this.#live = true;
    for (const listener of this.#listeners) listener.liveChanged(true);
  }

  #queueAck(writer: string, seq: number): void {
    if (this.#acks.size === 0) queueMicrotask(() => this.#sendAcks());
    const seqs = this.#acks.get(writer);
    if (seqs) seqs.push(seq);
    else this.#acks.set(writer, [seq]);
  }

  #sendAcks(): void {
    const acks = this.#acks;
    this.#acks = new Map();
    // A lost acknowledgement only makes its writer wait for this holder's lease.
    for (const [writer, seqs] of acks) {
      for (const ack of ackMessages(this.#id, seqs, this.#transport.maxMessageBytes)) this.#transport.publish(ownChannel(writer), ack).catch(() => undefined);
    }
  }

  #acknowledged(seq: number, holder: string): void {
    const pending = this.#pending.get(seq);
    if (pending === undefined) return;
    pending.got++;
    // Who answered matters only where the publish names the holders to wait for.
    if (this.#namesHolders) (pending.heard ??= new Set()).add(holder);
    if (answered(pending)) pending.done();
  }

  async #invalidate(from: CoherenceListener, options: CoherenceOptions, keys: readonly string[] | undefined, written: Promise<unknown>, removed = false): Promise<void> {
    // The other caches of this process over the same store hear of it at once (watchers from the bus, once it executed).
    for (const listener of this.#listeners) {
      if (listener === from) continue;
      if (keys === undefined) listener.flushed();
      else listener.invalidated(keys);
    }
    // The write's failure is its caller's to report; the bus waits for it only where the store does not order the two.
    const settled = written.catch(() => undefined);
    if (!this.#transport.ordered) await settled;
    const messages = messagesFor(keys, this.#transport.maxMessageBytes);
    await Promise.all(messages.map((message) => this.#publish(message.channel, message.keys, removed, options.confirm === 'lease')));
  }

  /** Publishes one invalidation; with `acknowledged`, resolves once every receiver answered or a lease went by. */
  #publish(channel: string, keys: readonly string[] | undefined, removed: boolean, acknowledged: boolean): Promise<void> {
    const seq = ++this.#seq;
    const published = this.#transport.publish(channel, invalidationMessage(this.#id, seq, keys, removed));
    if (!acknowledged) return published.then(() => undefined);
    return new Promise<void>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const pending: Pending = {
        needed: undefined,
        got: 0,
        heard: undefined,
        done: () => {
          if (timer !== undefined) clearTimeout(timer);
          this.#pending.delete(seq);
          resolve();
        },
      };
      this.#pending.set(seq, pending);
      published.then(
        (receivers) => {
          if (!this.#pending.has(seq)) return;
          pending.needed = receivers;
          if (answered(pending)) {
            pending.done();
            return;
          }
          // A receiver that does not answer within a lease has stopped serving (module comment).
          timer = setTimeout(pending.done, LEASE_MS);
        },
        (error: unknown) => {
          this.#pending.delete(seq);
          reject(error);
        },
      );
    });
  }
}
