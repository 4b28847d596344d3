/**
 * The valkey store alone, under no cache: JSON values as bytes, and the calls of one tick handed
 * to `store.pipeline` together (what the engine's batcher does, without the engine). What this
 * row costs beyond node-redis is the store's; what cachette's row costs beyond this one is the
 * engine's (envelope, codec, guard, events).
 */
import { valkeyStore } from '../../adapters/valkey/index.ts';
import type { StoreOp, StoreOpResult } from '../../src/store/types.ts';
import type { ContenderSpec } from './types.ts';

export const valkeyStoreSpec: ContenderSpec = {
  id: 'valkey-store',
  label: 'valkey store alone (one pipeline per tick)',
  async open(url) {
    const store = valkeyStore(url);
    let queue: Array<{ op: StoreOp; resolve(value: StoreOpResult): void; reject(error: unknown): void }> = [];
    const flush = () => {
      const batch = queue;
      queue = [];
      store.pipeline(batch.map((q) => q.op)).then(
        (results) => {
          for (let i = 0; i < batch.length; i++) {
            const result = results[i];
            if (result instanceof Error) batch[i]!.reject(result);
            else batch[i]!.resolve(result);
          }
        },
        (error: unknown) => {
          for (const q of batch) q.reject(error);
        },
      );
    };
    const send = (op: StoreOp) =>
      new Promise<StoreOpResult>((resolve, reject) => {
        if (queue.length === 0) queueMicrotask(flush);
        queue.push({ op, resolve, reject });
      });
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value));
    const decode = (bytes: unknown) => (bytes instanceof Uint8Array ? JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString()) : undefined);
    return {
      get: async (key) => decode(await send({ kind: 'get', key })),
      set: async (key, value) => void (await send({ kind: 'set', key, value: encode(value) })),
      getMany: async (keys) => ((await send({ kind: 'getMany', keys })) as unknown[]).map(decode),
      setMany: async (entries) => void (await send({ kind: 'setMany', entries: entries.map(([key, value]) => ({ key, value: encode(value) })) })),
      incr: async (key) => (await send({ kind: 'incr', key, by: 1 })) as number,
      delete: async (key) => void (await send({ kind: 'delete', keys: [key] })),
      close: () => store.close(),
    };
  },
};
