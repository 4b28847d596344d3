/**
 * The values the benchmarks store. Deterministic, so every contender and every run moves the
 * same bytes.
 */

/** The small object of the main tables: about 150 bytes as JSON, about 120 as CBOR. */
export interface SmallValue {
  id: number;
  name: string;
  email: string;
  active: boolean;
  roles: string[];
  score: number;
  updatedAt: string;
}

/** The small value number `i`; `id` lets a reader check it got the right one back. */
export function smallValue(i: number): SmallValue {
  return {
    id: i,
    name: `User number ${i}`,
    email: `user${i}@example.com`,
    active: i % 3 !== 0,
    roles: ['reader', 'writer'],
    score: 1000 + (i % 97),
    updatedAt: '2025-01-01T00:00:00.000Z',
  };
}

/** True when `v` is the value `smallValue(i)` (checked on its id and one string field). */
export function isSmallValue(v: unknown, i: number): boolean {
  const o = v as SmallValue | null | undefined;
  return !!o && o.id === i && o.email === `user${i}@example.com`;
}

/** One row of the "database rows" payload. */
export interface Row {
  id: number;
  sku: string;
  title: string;
  category: string;
  price: number;
  stock: number;
  active: boolean;
  createdAt: string;
}

const CATEGORIES = ['books', 'garden', 'kitchen', 'toys', 'tools', 'music'];
// 88 rows of ~160 bytes each make the ~14 KiB JSON payload the compression sections use.
const ROW_COUNT = 88;
const WORDS = ['blue', 'large', 'classic', 'compact', 'steel', 'wooden', 'deluxe', 'travel', 'family', 'eco'];

/**
 * A list of rows shaped like a typical ORM query result, about 14 KiB as JSON: repetitive keys
 * and enum-like strings, as real cached query results are, so compression has real work to do.
 */
export function rowsPayload(): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < ROW_COUNT; i++) {
    rows.push({
      id: 10_000 + i,
      sku: `SKU-${(i * 7919) % 100_000}`.padEnd(10, '0'),
      title: `${WORDS[i % 10]} ${WORDS[(i * 3) % 10]} item ${i}`,
      category: CATEGORIES[i % CATEGORIES.length]!,
      price: Math.round(((i * 37) % 500) * 100 + 99) / 100,
      stock: (i * 13) % 250,
      active: i % 7 !== 0,
      createdAt: new Date(Date.UTC(2024, i % 12, (i % 28) + 1, i % 24)).toISOString(),
    });
  }
  return rows;
}

/** Makes a value for key number `i` of a phase: the small object, or the rows tagged with `i`. */
export type ValueFactory = (i: number) => unknown;

/** Checks a read-back value against `factory(i)`. */
export type ValueCheck = (v: unknown, i: number) => boolean;

// Built once: the timed loops should pay for storing the rows, not for making them.
const baseRows = rowsPayload();

/** The rows payload with the key number in its first row, so a read can be checked. */
export function rowsValue(i: number): Row[] {
  const rows = baseRows.slice();
  rows[0] = { ...baseRows[0]!, id: i };
  return rows;
}

/** True when `v` is `rowsValue(i)` (first row's id and the row count). */
export function isRowsValue(v: unknown, i: number): boolean {
  return Array.isArray(v) && v.length === ROW_COUNT && (v[0] as Row | undefined)?.id === i;
}
