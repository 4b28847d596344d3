/**
 * drizzle-orm, the optional peer cachette/drizzle is built on, loaded once when the entry is
 * imported: without it, the import fails with a MissingPeerError that names the package and the
 * command that installs it (src/util/optional-peer.ts), as every other entry's peer does, instead
 * of the runtime's bare "Cannot find package 'drizzle-orm'". Every runtime value cachette/drizzle
 * takes from drizzle-orm comes through here; its types are imported where they are used.
 */
import { importPeer } from '../util/optional-peer.ts';

const NEEDER = 'cachette/drizzle';

const [orm, cacheCore] = await Promise.all([importPeer(NEEDER, 'drizzle-orm', () => import('drizzle-orm')), importPeer(NEEDER, 'drizzle-orm', () => import('drizzle-orm/cache/core'))]);

/** Drizzle's base class of a query cache (what `drizzle(client, { cache })` takes). */
export const DrizzleCache: typeof import('drizzle-orm/cache/core').Cache = cacheCore.Cache;
/** The symbol under which every Drizzle class names its kind (`is()` compares them across copies of the package). */
export const entityKind: typeof import('drizzle-orm').entityKind = orm.entityKind;
/** The classes and checks of Drizzle's SQL building blocks that sql-tables.ts reads. */
export const { is, isSQLWrapper, Column, Name, Param, Placeholder, SQL, StringChunk, Subquery, Table, View, ViewBaseConfig } = orm;
