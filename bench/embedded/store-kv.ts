/** The shape every contender of the embedded benchmark is driven through, and the cachette stores' adapter to it. */

/** A library opened for one workload. */
export interface EmbeddedKv {
  /** The value under `key`; undefined or null when absent. */
  get(key: string): Promise<unknown>;
  set(key: string, value: Uint8Array | string): Promise<unknown>;
  /** Removes `key`; what the promise resolves to is the library's own answer, unused. */
  delete(key: string): Promise<unknown>;
  /** Ends the connection; files stay, so their size can be measured. */
  close(): Promise<void>;
}

/** A cachette store as a contender. */
export const storeKv = (store: { get(k: string): Promise<unknown>; set(k: string, v: Uint8Array): Promise<void>; delete(keys: string[]): Promise<number>; close(): Promise<void> }): EmbeddedKv => ({
  // Each call hands back the store's own promise: no wrapper of the harness's in the figures.
  get: (key) => store.get(key),
  set: (key, value) => store.set(key, value as Uint8Array),
  delete: (key) => store.delete([key]),
  close: () => store.close(),
});
