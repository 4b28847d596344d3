/**
 * Every statement the PostgreSQL store sends, built once per store from its quoted table name.
 * One table holds every key (entries, counters, leases, tag generations, fences, soft records):
 *
 *   key         text COLLATE "C", the primary key: compared byte by byte, so a prefix is one
 *               range of the index (clear), and any key the engine makes is one value
 *   value       bytea, the bytes as given
 *   expires_at  bigint, ms since the epoch on the server's clock (NULL: no expiry)
 *
 * Every statement takes the time from the server (one clock for every process) and treats a row
 * past its `expires_at` as absent: the sweep only reclaims the space. Each call is
 * one statement, atomic on its own (`INSERT … ON CONFLICT` locks the row it creates or updates,
 * missing or not), so the store never holds a transaction open on a connection it shares with
 * the application. Numbers travel as text and are cast by the statement, which every driver
 * sends alike.
 */
import { qualified, quoted } from './names.ts';

/** The server's time in ms, once per statement. */
export const NOW_MS = '(extract(epoch from statement_timestamp()) * 1000)::bigint';
/** The row `t` holds a value now. */
const LIVE = `(t.expires_at IS NULL OR t.expires_at > ${NOW_MS})`;
/** Marks the store's table (COMMENT ON TABLE): a table of that name without it is not touched. */
export const TABLE_MARK = 'cachette store, format 1';
/** Entries per multi-row statement: three parameters each, far below PostgreSQL's 65,535. */
export const ROWS_PER_STATEMENT = 5000;

/** The texts of one store's statements. */
export class Statements {
  /** The quoted, schema-qualified table. */
  readonly table: string;
  /** The quoted, schema-qualified function behind writeGenerations. */
  readonly generationsFunction: string;
  readonly get: string;
  readonly getMany: string;
  readonly set: string;
  readonly delete: string;
  readonly incr: string;
  readonly add: string;
  readonly compareAndDelete: string;
  readonly clearRange: string;
  readonly sweep: string;
  readonly keys: string;
  readonly readGenerations: string;
  readonly createGenerations: string;
  readonly writeGenerations: string;
  readonly readHeaders: string;
  readonly #setMany = new Map<number, string>();
  readonly #rewriteHeaders = new Map<number, string>();

  constructor(
    readonly schema: string | undefined,
    readonly tableName: string,
  ) {
    const T = qualified(schema, tableName);
    this.table = T;
    this.generationsFunction = qualified(schema, `${tableName}_generations_v1`);
    this.get = `SELECT t.value FROM ${T} t WHERE t.key = $1 AND ${LIVE}`;
    // One index probe per key; `i` puts each value back in its caller's slot (a key named twice gets two rows).
    this.getMany = `SELECT q.i::int4, t.value FROM unnest($1::text[]) WITH ORDINALITY AS q(k, i) JOIN ${T} t ON t.key = q.k WHERE ${LIVE}`;
    this.set = `INSERT INTO ${T} AS t (key, value, expires_at) VALUES ($1, $2, ${NOW_MS} + $3::bigint) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`;
    // Only what was live counts, as DEL counts: an expired row is removed too, but was absent.
    this.delete = `WITH gone AS (DELETE FROM ${T} t WHERE t.key = ANY($1::text[]) RETURNING t.expires_at) SELECT count(*)::int4 FROM gone t WHERE ${LIVE}`;
    // The TTL applies only when this call creates the counter (an expired one counts as absent).
    this.incr =
      `INSERT INTO ${T} AS t (key, value, expires_at) VALUES ($1, convert_to($2::bigint::text, 'UTF8'), ${NOW_MS} + $3::bigint) ` +
      `ON CONFLICT (key) DO UPDATE SET value = CASE WHEN ${LIVE} THEN convert_to((convert_from(t.value, 'UTF8')::bigint + $2::bigint)::text, 'UTF8') ELSE excluded.value END, ` +
      `expires_at = CASE WHEN ${LIVE} THEN t.expires_at ELSE excluded.expires_at END RETURNING t.value`;
    this.add = `INSERT INTO ${T} AS t (key, value, expires_at) VALUES ($1, $2, ${NOW_MS} + $3::bigint) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at WHERE NOT ${LIVE} RETURNING 1::int4`;
    this.compareAndDelete = `DELETE FROM ${T} t WHERE t.key = $1 AND t.value = $2 AND ${LIVE} RETURNING 1::int4`;
    // One bounded batch of a prefix: [from, to) in byte order, `to` NULL for "to the end".
    this.clearRange =
      `WITH batch AS (SELECT t.key FROM ${T} t WHERE t.key >= $1 AND ($2::text IS NULL OR t.key < $2) ORDER BY t.key LIMIT $3::int), ` +
      `gone AS (DELETE FROM ${T} t USING batch WHERE t.key = batch.key RETURNING 1) SELECT count(*)::int4 FROM gone`;
    // One page of a walk over a prefix, after the cursor (the last key of the page before).
    this.keys = `SELECT t.key FROM ${T} t WHERE t.key >= $1 AND ($2::text IS NULL OR t.key < $2) AND ($3::text IS NULL OR t.key > $3) ORDER BY t.key LIMIT $4::int`;
    // One bounded batch of expired rows, skipping rows another sweeper (or a writer) holds.
    this.sweep =
      `WITH batch AS (SELECT t.ctid FROM ${T} t WHERE t.expires_at <= ${NOW_MS} LIMIT $1::int FOR UPDATE SKIP LOCKED), ` +
      `gone AS (DELETE FROM ${T} t USING batch WHERE t.ctid = batch.ctid RETURNING 1) SELECT count(*)::int4 FROM gone`;
    // Entries and tag keys in one snapshot, a known prefix compared on the server (a NULL value
    // means "unchanged": stored values are never NULL), and the server's time as row 0.
    this.readGenerations =
      `SELECT q.i::int4, CASE WHEN q.p IS NOT NULL AND substring(t.value from 1 for length(q.p)) = q.p THEN NULL ELSE t.value END ` +
      `FROM (SELECT u.k, decode(nullif(u.h, ''), 'hex') AS p, u.i FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(k, h, i)) q JOIN ${T} t ON t.key = q.k WHERE ${LIVE} ` +
      `UNION ALL SELECT 0, int8send(${NOW_MS})`;
    // Missing (or expired) counters created at the epoch; one another process created meanwhile is kept.
    this.createGenerations =
      `INSERT INTO ${T} AS t (key, value, expires_at) SELECT DISTINCT u.k, convert_to($2::bigint::text, 'UTF8'), NULL::bigint FROM unnest($1::text[]) AS u(k) ` +
      `ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = NULL WHERE NOT ${LIVE}`;
    this.writeGenerations = `SELECT 1::int4 FROM ${this.generationsFunction}($1::text, $2::text[], $3::text[], $4::text[], $5::bigint, $6::text, $7::bigint, $8::bigint)`;
    this.readHeaders = `SELECT q.i::int4, substring(t.value from 1 for $2::int) FROM unnest($1::text[]) WITH ORDINALITY AS q(k, i) JOIN ${T} t ON t.key = q.k WHERE ${LIVE}`;
  }

  /** An upsert of `rows` entries, parameters (key, value, ttl ms or NULL) per row. */
  setMany(rows: number): string {
    let text = this.#setMany.get(rows);
    if (text === undefined) {
      const values = Array.from({ length: rows }, (_, i) => `($${3 * i + 1}::text, $${3 * i + 2}::bytea, $${3 * i + 3}::bigint)`).join(', ');
      text =
        `INSERT INTO ${this.table} AS t (key, value, expires_at) SELECT v.k, v.v, ${NOW_MS} + v.ttl FROM (VALUES ${values}) AS v(k, v, ttl) ` +
        'ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at';
      this.#setMany.set(rows, text);
    }
    return text;
  }

  /**
   * expireEntries' write for `rows` entries, parameters (key, header read, header to write, TTL
   * or NULL) per row: the new header laid over the value's first bytes, only while they are
   * still the ones read (a write since then is newer than the expiry, and stays).
   */
  rewriteHeaders(rows: number): string {
    let text = this.#rewriteHeaders.get(rows);
    if (text === undefined) {
      const values = Array.from({ length: rows }, (_, i) => `($${4 * i + 1}::text, $${4 * i + 2}::bytea, $${4 * i + 3}::bytea, $${4 * i + 4}::bigint)`).join(', ');
      text =
        `WITH done AS (UPDATE ${this.table} t SET value = overlay(t.value placing u.head from 1), expires_at = ${NOW_MS} + u.ttl ` +
        `FROM (VALUES ${values}) AS u(k, old, head, ttl) WHERE t.key = u.k AND substring(t.value from 1 for length(u.old)) = u.old AND ${LIVE} RETURNING 1) SELECT count(*)::int4 FROM done`;
      this.#rewriteHeaders.set(rows, text);
    }
    return text;
  }

  /**
   * The store's table, its expiry index, its mark and the generations function, created when
   * missing, under a lock so that processes opening the store at once do not race: one
   * statement (a DO block), which any driver sends. A table that exists is left as it is.
   */
  setup(unlogged: boolean): string {
    const T = this.table;
    const lock = `hashtextextended(${literal(`cachette setup ${T}`)}, 0)`;
    return `DO $setup$ BEGIN
PERFORM pg_advisory_xact_lock(${lock});
IF to_regclass(${literal(T)}) IS NULL THEN
  CREATE ${unlogged ? 'UNLOGGED ' : ''}TABLE ${T} (key text COLLATE "C" PRIMARY KEY, value bytea NOT NULL, expires_at bigint);
  CREATE INDEX ${quoted(`${this.tableName}_expires_at`)} ON ${T} (expires_at) WHERE expires_at IS NOT NULL;
  COMMENT ON TABLE ${T} IS ${literal(TABLE_MARK)};
END IF;
IF to_regprocedure(${literal(`${this.generationsFunction}(text, text[], text[], text[], bigint, text, bigint, bigint)`)}) IS NULL THEN
${generationsFunction(T, this.generationsFunction)}
END IF;
END $setup$`;
  }

  /** What the store checks of the table it found: its mark and whether it is unlogged ('u'). */
  readonly describeTable = `SELECT convert_to(coalesce(obj_description(c.oid, 'pg_class'), ''), 'UTF8'), convert_to(c.relpersistence::text, 'UTF8') FROM pg_class c WHERE c.oid = to_regclass($1)`;
}

/**
 * The least key above every key that starts with `prefix` (undefined: none, the walk runs to the
 * end): the prefix with its last code point raised by one. Keys compare by their UTF-8 bytes
 * (COLLATE "C"), which orders them as their code points, so `[prefix, end)` is exactly the keys
 * with that prefix: one range of the primary key's index.
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) return points.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
  }
  return undefined;
}

/** A SQL string literal of `text`, which holds only checked names and fixed words (no quote to double but in names it never has). */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * Store.writeGenerations as a PL/pgSQL function of the table (src/store/types.ts says what each
 * action does; adapters/shared/redis-protocol.ts, WRITE_GENERATIONS_LUA, is the same on Redis).
 * Writers of a tag queue on one advisory lock per tag, taken in key order; readers take none
 * (they read one snapshot). Under the lock each tag is read and written as plain rows:
 *
 * - the generation, a decimal counter (adapters/shared/counter.ts), bumped by an upsert that
 *   adds one to the row it finds, so a counter a reader created meanwhile is never reset;
 * - the fence, the JSON record of tokens and their expiry (server ms) that
 *   adapters/shared/generation-cells.ts reads, with the row's TTL its last token's;
 * - the soft record, `from:to:at` (src/cache/tags/soft-moves.ts), extended while the move
 *   before was soft, else started at the generation before.
 */
function generationsFunction(T: string, name: string): string {
  const live = (row: string) => `(${row}.expires_at IS NULL OR ${row}.expires_at > v_now)`;
  return `CREATE FUNCTION ${name}(p_action text, p_gens text[], p_fences text[], p_softs text[], p_epoch bigint, p_token text, p_ttl bigint, p_at bigint) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  v_now bigint := ${NOW_MS};
  v_before bigint;
  v_after bigint;
  v_parts text[];
  v_from numeric;
  v_tokens jsonb;
  v_held boolean;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(s.k, 0)) FROM (SELECT DISTINCT u.k FROM unnest(p_gens) AS u(k) ORDER BY 1) s;
  FOR i IN 1 .. coalesce(array_length(p_gens, 1), 0) LOOP
    IF p_action IN ('hold', 'commit', 'release') THEN
      SELECT coalesce(jsonb_object_agg(e.key, e.value) FILTER (WHERE e.value::text::numeric > v_now AND e.key <> p_token), '{}'::jsonb), coalesce(bool_or(e.key = p_token), false)
        INTO v_tokens, v_held FROM ${T} t CROSS JOIN LATERAL jsonb_each(convert_from(t.value, 'UTF8')::jsonb) e WHERE t.key = p_fences[i] AND ${live('t')};
      IF p_action = 'hold' THEN v_tokens := v_tokens || jsonb_build_object(p_token, v_now + p_ttl); END IF;
      IF p_action = 'hold' OR v_held THEN
        IF v_tokens = '{}'::jsonb THEN
          DELETE FROM ${T} t WHERE t.key = p_fences[i];
        ELSE
          INSERT INTO ${T} AS t (key, value, expires_at) VALUES (p_fences[i], convert_to(v_tokens::text, 'UTF8'), (SELECT max(x.v::text::bigint) FROM jsonb_each(v_tokens) AS x(k, v)))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at;
        END IF;
      END IF;
    END IF;
    IF p_action <> 'release' THEN
      SELECT convert_from(t.value, 'UTF8')::bigint INTO v_before FROM ${T} t WHERE t.key = p_gens[i] AND ${live('t')};
      INSERT INTO ${T} AS t (key, value, expires_at) VALUES (p_gens[i], convert_to(p_epoch::text, 'UTF8'), NULL)
        ON CONFLICT (key) DO UPDATE SET value = CASE WHEN ${live('t')} THEN convert_to((convert_from(t.value, 'UTF8')::bigint + 1)::text, 'UTF8') ELSE excluded.value END,
        expires_at = CASE WHEN ${live('t')} THEN t.expires_at ELSE NULL END
        RETURNING convert_from(t.value, 'UTF8')::bigint INTO v_after;
      IF p_action = 'soft' AND v_before IS NOT NULL AND v_after = v_before + 1 THEN
        SELECT regexp_match(convert_from(t.value, 'UTF8'), '^(\\d+):(\\d+):(-?\\d+)$') INTO v_parts FROM ${T} t WHERE t.key = p_softs[i] AND ${live('t')};
        v_from := CASE WHEN v_parts IS NOT NULL AND v_parts[2]::numeric = v_before THEN v_parts[1]::numeric ELSE v_before END;
        INSERT INTO ${T} AS t (key, value, expires_at) VALUES (p_softs[i], convert_to(v_from::text || ':' || v_after::text || ':' || p_at::text, 'UTF8'), NULL)
          ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = NULL;
      END IF;
    END IF;
  END LOOP;
END
$fn$;`;
}
