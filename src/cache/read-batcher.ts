/**
 * Folds the single-key reads issued in one tick into one `getMany` round trip. Fifty
 * concurrent `get`s become one MGET: one command for the server to parse and one reply for
 * the client to read, which is how the engine outruns a plain client call per key.
 */
export class ReadBatcher {
  #keys: string[] = [];
  #resolvers: Array<(value: Uint8Array | undefined) => void> = [];
  #rejecters: Array<(error: unknown) => void> = [];

  constructor(
    private readonly loadOne: (key: string) => Promise<Uint8Array | undefined>,
    private readonly loadMany: (keys: string[]) => Promise<Array<Uint8Array | undefined>>,
  ) {}

  /** Resolves with the bytes under `key`, read together with every other key asked for in this tick. */
  load(key: string): Promise<Uint8Array | undefined> {
    return new Promise((resolve, reject) => {
      if (this.#keys.length === 0) queueMicrotask(this.#flush);
      this.#keys.push(key);
      this.#resolvers.push(resolve);
      this.#rejecters.push(reject);
    });
  }

  #flush = (): void => {
    const keys = this.#keys;
    const resolvers = this.#resolvers;
    const rejecters = this.#rejecters;
    this.#keys = [];
    this.#resolvers = [];
    this.#rejecters = [];
    if (keys.length === 1) {
      this.loadOne(keys[0]!).then(resolvers[0], rejecters[0]);
      return;
    }
    this.loadMany(keys).then(
      (values) => {
        for (let i = 0; i < resolvers.length; i++) resolvers[i]!(values[i]);
      },
      (error: unknown) => {
        for (const reject of rejecters) reject(error);
      },
    );
  };
}
