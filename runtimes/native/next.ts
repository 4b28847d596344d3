/**
 * `cachette/next` as Node, Bun and Deno resolve it (the "node", "bun" and "deno" export
 * conditions), which is where Next runs its cache handlers: the runtime-neutral handlers, with
 * node:zlib's DEFLATE, and with the store picked from `process.env` when the options pass none
 * (VALKEY_URL / REDIS_URL → Valkey, UPSTASH_REDIS_REST_URL + _TOKEN → Upstash,
 * CACHETTE_STORE=sqlite:PATH → SQLite, otherwise memory) or name one by a string.
 */
import './install.ts';
import { Buffer } from 'node:buffer';
import { nextHandlerFactories } from '../../src/next/handlers.ts';
import type { StorePicker } from '../../src/next/options.ts';
import type { Store } from '../../src/store/types.ts';
import { announceChoice, chooseStore, describeChoice, openStore } from '../shared/env-store.ts';
import { serverStoreFactories } from '../shared/server-stores.ts';

/**
 * The stores opened so far in this process, by what they are: the `"use cache"` handler and the
 * incremental cache handler are two modules that Next loads apart, and with the same store they
 * share one connection (and one line in the log) rather than opening one each.
 */
const opened = new Map<string, Promise<Store>>();
const announced = new Set<string>();

/** Chooses now (a bad variable throws while Next loads the handler), opens on first use. */
const fromEnvironment: StorePicker = (named, log) => {
  const choice = chooseStore(process.env, { store: named });
  const name = describeChoice(choice);
  if (!announced.has(name)) announceChoice(choice, { log });
  announced.add(name);
  return () => {
    let store = opened.get(name);
    if (!store) opened.set(name, (store = openStore(choice, serverStoreFactories)));
    return store;
  };
};

/** Next tests stored bytes with Buffer.isBuffer: a view of the same memory, not a copy. */
const asBuffer = (bytes: Uint8Array): Uint8Array => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** `createCacheHandler` and `createIncrementalCacheHandler`, with the store from the environment by default. */
export const { createCacheHandler, createIncrementalCacheHandler } = nextHandlerFactories(fromEnvironment, asBuffer);
export type * from '../../src/next/index.ts';
