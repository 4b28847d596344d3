/**
 * The custom cache of Drizzle's documentation (the `TestGlobalCache` of "Cache" on
 * orm.drizzle.team, and of drizzle-orm/src/cache/readme.md), over a Map instead of Keyv: the
 * control of the race tests, showing what Drizzle's own cache path does in the same orders.
 */
import { Cache, type MutationOption } from 'drizzle-orm/cache/core';
import { is } from 'drizzle-orm/entity';
import { getTableName, Table } from 'drizzle-orm/table';

export class DocsCache extends Cache {
  readonly #values = new Map<string, unknown>();
  // Which query keys were used for each table, so that a write can delete them.
  readonly #usedTablesPerKey: Record<string, string[]> = {};

  override strategy(): 'explicit' | 'all' {
    return 'all';
  }

  override async get(key: string): Promise<unknown[] | undefined> {
    return this.#values.get(key) as unknown[] | undefined;
  }

  override async put(key: string, response: unknown, tables: string[]): Promise<void> {
    this.#values.set(key, response);
    for (const table of tables) (this.#usedTablesPerKey[table] ??= []).push(key);
  }

  override async onMutate(params: MutationOption): Promise<void> {
    const tags = params.tags === undefined ? [] : Array.isArray(params.tags) ? params.tags : [params.tags];
    const tables = params.tables === undefined ? [] : Array.isArray(params.tables) ? params.tables : [params.tables];
    const names = tables.map((table) => (is(table, Table) ? getTableName(table) : (table as string)));
    for (const tag of tags) this.#values.delete(tag);
    for (const name of names) {
      for (const key of this.#usedTablesPerKey[name] ?? []) this.#values.delete(key);
      this.#usedTablesPerKey[name] = [];
    }
  }
}
