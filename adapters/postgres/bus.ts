/**
 * The coherence bus of the PostgreSQL store (Store.coherence): the shared pub/sub protocol of
 * src/store/bus/pubsub-bus.ts over `LISTEN`/`NOTIFY`, on one connection of its own (a `pg`
 * Client, never one of the pool: a pooled connection is handed to other statements, and a
 * LISTEN lives as long as its session).
 *
 * What PostgreSQL gives the protocol:
 *
 * - NOTIFY is transactional and every listener receives notifications in the order their
 *   transactions committed. A beat (a NOTIFY to the process's own channel) that commits after a
 *   writer's invalidation committed therefore arrives after it, which is all a lease needs.
 * - NOTIFY does not say how many sessions received it (PUBLISH does). So every holder
 *   registers the channels it listens to in a table beside the store's (`<table>_holders`), in
 *   the transaction of its LISTEN; a writer's NOTIFY reads, in the same statement, the holders
 *   of that channel, and waits for the acknowledgement of exactly those (or a lease). A
 *   holder's copy comes from a read issued after its LISTEN committed, so a write that the
 *   read missed committed later, and the statement that publishes its invalidation, which
 *   starts once the write answered, sees the registration. A session that starts listening
 *   meanwhile may receive it too (PostgreSQL delivers what it has not read yet to whoever
 *   listens when it reads): its acknowledgement is not counted, because the holders are named,
 *   not counted.
 * - A holder whose session ended (killed, its process gone) stays registered, and writers wait
 *   a lease for it, until its rows are surely older than its lease: every process's bus marks
 *   the rows of sessions no longer in `pg_stat_activity` (the pid and the session's start, so
 *   a reused pid is not taken for it) with the server's time, and deletes the rows marked more
 *   than {@link DEAD_ROWS_KEPT_MS} ago. Its last beat was sent while its session lived, so its
 *   lease ended a lease after that at the latest: no clock but the server's is compared.
 *   Dropping the rows of a session the moment it ended would let a write return while that
 *   holder, not yet aware its connection is gone, still serves from memory.
 * - A payload is under 8,000 bytes: invalidations are split so that each message fits
 *   ({@link MAX_PAYLOAD_BYTES}; at most 256 keys go key by key, more are one invalidation of
 *   everything, src/store/bus/format.ts), and so are acknowledgements.
 *
 * Invalidations go out on the store's pool once the write answered (the pool keeps no order
 * between its connections: the bus is not `ordered`); beats and acknowledgements go on the
 * listening connection, which has nothing else to do. When it drops (the server ended it, the
 * network), the bus is down: copies are flushed and bypassed, and it reconnects with a backoff;
 * the session that follows cleans up what dead sessions registered and listens again.
 */
import type { BusTransport } from '../../src/store/bus/pubsub-bus.ts';
import { isOwnChannel, LEASE_MS } from '../../src/store/bus/format.ts';
import { BusTransportBase } from '../../src/store/bus/transport-base.ts';
import type { Cell } from './connection.ts';
import { qualified, quoted } from './names.ts';
import { literal, NOW_MS } from './statements.ts';

/** A NOTIFY payload must be shorter than 8,000 bytes (PostgreSQL's default build). */
export const MAX_PAYLOAD_BYTES = 7999;
/** Reconnection delays, ms: doubled from the first to the last after each failed attempt. */
const RETRY_FIRST_MS = 50;
const RETRY_LAST_MS = 2000;
/** How long the rows of an ended session are still waited for, after a bus noticed it ended: two leases. */
export const DEAD_ROWS_KEPT_MS = 2 * LEASE_MS;
/** How often each process's bus looks for the rows of ended sessions. */
const CLEANUP_MS = LEASE_MS;
/** Channel names and holder ids come from the bus's format; anything else is refused before it reaches SQL. */
const PLAIN = /^[A-Za-z0-9:]+$/;

/** The `pg` Client the bus listens on, as far as it uses it. */
export interface ListenClient {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  end(): Promise<void>;
}

/** What the bus needs from the store: a fresh listening Client, and a statement on its pool. */
export interface PostgresBusOptions {
  /** A new, unconnected Client of its own. */
  open(): ListenClient;
  /** Runs one statement on the store's pool (errors as the store's). */
  run(text: string, params: readonly unknown[]): Promise<Cell[][]>;
  schema: string | undefined;
  /** The store's table, unquoted: the holders' table is named after it. */
  table: string;
}

/** `LISTEN`/`NOTIFY` as a {@link BusTransport}. */
export class PostgresBusTransport extends BusTransportBase implements BusTransport {
  readonly ordered = false;
  readonly maxMessageBytes = MAX_PAYLOAD_BYTES;
  readonly #options: PostgresBusOptions;
  readonly #holders: string;
  readonly #setup: string;
  readonly #publish: string;
  readonly #cleanup: string;
  #id = '';
  #client: ListenClient | undefined;
  /** The last statement queued on the listening connection. */
  #tail: Promise<unknown> = Promise.resolve();
  #retryMs = RETRY_FIRST_MS;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #cleaner: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(options: PostgresBusOptions) {
    super();
    this.#options = options;
    const H = qualified(options.schema, `${options.table}_holders`);
    this.#holders = H;
    const lock = `hashtextextended(${literal(`cachette setup ${H}`)}, 0)`;
    this.#setup = `DO $setup$ BEGIN
PERFORM pg_advisory_xact_lock(${lock});
IF to_regclass(${literal(H)}) IS NULL THEN
  CREATE UNLOGGED TABLE ${H} (channel text COLLATE "C" NOT NULL, holder text COLLATE "C" NOT NULL, pid int4 NOT NULL, started timestamptz, ended_at bigint, PRIMARY KEY (channel, holder));
END IF;
END $setup$`;
    // One statement: the notification, and the holders of its channel in the snapshot the statement started with.
    this.#publish = `SELECT pg_notify($1, $2)::text, (SELECT string_agg(h.holder, ',') FROM ${H} h WHERE h.channel = $1)`;
    this.#cleanup = `UPDATE ${H} h SET ended_at = ${NOW_MS} WHERE h.ended_at IS NULL AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = h.pid AND a.backend_start IS NOT DISTINCT FROM h.started); DELETE FROM ${H} WHERE ended_at < ${NOW_MS} - ${DEAD_ROWS_KEPT_MS}`;
  }

  /** The bus's id, which names this process's registrations: the listening session opens once it is known. */
  identify(id: string): void {
    this.#id = plain(id);
    this.#connect();
  }

  async subscribe(channel: string): Promise<void> {
    const c = plain(channel);
    // One implicit transaction: the registration is visible exactly when the LISTEN took effect.
    await this.#run(
      `LISTEN ${quoted(c)}; INSERT INTO ${this.#holders} (channel, holder, pid, started) VALUES ('${c}', '${this.#id}', pg_backend_pid(), (SELECT a.backend_start FROM pg_stat_activity a WHERE a.pid = pg_backend_pid())) ON CONFLICT (channel, holder) DO UPDATE SET pid = excluded.pid, started = excluded.started, ended_at = NULL`,
    );
  }

  async unsubscribe(channel: string): Promise<void> {
    const c = plain(channel);
    await this.#run(`UNLISTEN ${quoted(c)}; DELETE FROM ${this.#holders} WHERE channel = '${c}' AND holder = '${this.#id}'`);
  }

  async publish(channel: string, message: string): Promise<number | ReadonlySet<string>> {
    // Beats and acknowledgements name no keys: nobody's acknowledgement is awaited for them.
    if (isOwnChannel(channel)) {
      await this.#run('SELECT pg_notify($1, $2)', [channel, message]);
      return 0;
    }
    const rows = await this.#options.run(this.#publish, [channel, message]);
    const holders = rows[0]?.[1];
    return new Set(typeof holders === 'string' && holders !== '' ? holders.split(',') : []);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    if (this.#cleaner !== undefined) clearInterval(this.#cleaner);
    const client = this.#client;
    this.#client = undefined;
    this.setUp(false);
    if (client === undefined) return;
    // What this process registered goes with it: it no longer serves anything.
    await this.#queued(client, `DELETE FROM ${this.#holders} WHERE holder = '${this.#id}'`).catch(() => undefined);
    await client.end().catch(() => undefined);
  }

  /** Runs `text` on the listening connection while it is up; rejects at once when it is not. */
  #run(text: string, values?: unknown[]): Promise<unknown> {
    const client = this.#client;
    if (client === undefined || !this.up) return Promise.reject(new Error('the coherence bus is down'));
    return this.#queued(client, text, values);
  }

  /** One statement after the others on `client`: pg 8 queues them itself but deprecates it, and pg 9 will refuse. */
  #queued(client: ListenClient, text: string, values?: unknown[]): Promise<unknown> {
    const run = this.#tail.then(() => client.query(text, values));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Opens a listening session: the holders' table, what earlier sessions left behind, then up. */
  #connect(): void {
    if (this.#closed) return;
    const client = this.#options.open();
    this.#client = client;
    this.#tail = Promise.resolve();
    client.on('notification', (message) => {
      if (this.#client === client) this.deliver(message.channel, message.payload ?? '');
    });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    const ready = async () => {
      await client.connect();
      await client.query(this.#setup);
      // This process's earlier sessions: ended, and it has dropped what it held then.
      await client.query(`DELETE FROM ${this.#holders} WHERE holder = '${this.#id}'`);
    };
    ready().then(
      () => {
        if (this.#client !== client) return;
        this.#retryMs = RETRY_FIRST_MS;
        this.setUp(true);
        this.#cleaner ??= setInterval(() => this.#sweepEnded(), CLEANUP_MS);
        (this.#cleaner as { unref?: () => void }).unref?.();
        this.#sweepEnded();
      },
      () => this.#lost(client),
    );
  }

  /** Marks the rows of ended sessions, and deletes those marked long enough ago (module comment). A failure is retried at the next interval. */
  #sweepEnded(): void {
    const client = this.#client;
    if (client === undefined || !this.up) return;
    this.#queued(client, this.#cleanup).catch(() => undefined);
  }

  /** The listening session is gone (or never came up): the bus is down until a new one is. */
  #lost(client: ListenClient): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.setUp(false);
    client.end().catch(() => undefined);
    if (this.#closed) return;
    const delay = this.#retryMs;
    this.#retryMs = Math.min(RETRY_LAST_MS, delay * 2);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#connect();
    }, delay);
    (this.#retry as { unref?: () => void }).unref?.();
  }
}

function plain(text: string): string {
  if (!PLAIN.test(text)) throw new TypeError(`the postgres coherence bus takes channel names and ids of letters, digits and colons only; got ${JSON.stringify(text)}`);
  return text;
}
