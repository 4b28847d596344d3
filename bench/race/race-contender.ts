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

/** Where the stores of a run live besides the redis-server: the SQLite file, the cluster's nodes. */
export interface RaceStores {
  /** The database file every process of a SQLite contender opens. */
  sqlitePath: string;
  /** `host:port,…` of a Redis Cluster, when the run has one. */
  clusterNodes: string | undefined;
}

/** A contender: its id (argv), label (table) and how a process opens it. */
export interface RaceContender {
  id: string;
  label: string;
  /** Runs only when the run has a cluster. */
  needsCluster?: boolean;
  open(redisUrl: string, namespace: string, pgUrl: string, stores: RaceStores): RaceClient | Promise<RaceClient>;
}
