/** What every contender of the race bench is: the cachette patterns (contenders.ts) and Drizzle's (drizzle-contenders.ts). */
/** One contender opened in one process. */
export interface RaceClient {
  /** The row's version through the cache; `load` reads it from PostgreSQL. */
  read(load: () => Promise<number>): Promise<number>;
  /** Before the UPDATE. */
  before(): Promise<void>;
  /** After the COMMIT returned. */
  after(): Promise<void>;
  close(): Promise<void>;
  /**
   * A contender that reaches PostgreSQL itself (an ORM; its `read` ignores `load`): its UPDATE,
   * in a transaction held `slowCommitMs` when that is above 0; resolves with when its COMMIT returned.
   */
  update?(version: number, slowCommitMs: number): Promise<number>;
  /** Such a contender's count of reads that reached PostgreSQL. */
  loads?(): number;
}

/** A contender: its id (argv), label (table) and how a process opens it. */
export interface RaceContender {
  id: string;
  label: string;
  open(redisUrl: string, namespace: string, pgUrl: string): RaceClient | Promise<RaceClient>;
}
