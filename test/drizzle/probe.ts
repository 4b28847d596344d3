/**
 * What one database client sent, and a way to hold one statement at a chosen point: before it
 * reaches the database, or after its answer came back and before the caller sees it. The race
 * tests put reads and writes in a known order with it, without timers.
 */

/** A statement held by {@link Probe.hold}. */
export interface Gate {
  /** Resolves once the statement reached the gate. */
  reached: Promise<void>;
  /** Lets it go on. */
  release(): void;
}

interface Hold {
  match: RegExp;
  when: 'before' | 'after';
  reach(): void;
  released: Promise<void>;
}

export class Probe {
  /** Every statement sent, in order. */
  readonly statements: string[] = [];
  readonly #holds: Hold[] = [];

  /** How many SELECTs reached the database. */
  get selects(): number {
    return this.statements.filter((sql) => /^\s*select\b/i.test(sql)).length;
  }

  /** Holds the next statement matching `match` at `when`. */
  hold(match: RegExp, when: 'before' | 'after'): Gate {
    let reach!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => (reach = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#holds.push({ match, when, reach, released });
    return { reached, release };
  }

  /** Runs one statement through the probe: the client calls this around each of its queries. */
  async around<T>(sql: string, run: () => Promise<T>): Promise<T> {
    this.statements.push(sql);
    const at = this.#holds.findIndex((h) => h.match.test(sql));
    const hold = at >= 0 ? this.#holds.splice(at, 1)[0] : undefined;
    if (hold?.when === 'before') {
      hold.reach();
      await hold.released;
    }
    try {
      return await run();
    } finally {
      // After the answer, an error as well as rows.
      if (hold?.when === 'after') {
        hold.reach();
        await hold.released;
      }
    }
  }
}
