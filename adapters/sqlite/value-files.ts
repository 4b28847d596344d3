/**
 * The value files in `<path>-values/`. Their names come back from rows of a file that every
 * process of the machine may write, so a name is as untrusted as any stored byte: only the exact
 * form this module generates is ever opened or removed, only as a plain file directly inside a
 * plain folder of this user's (never through a symbolic link), and a file is served only when
 * its length is the one its row records.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStoreError } from './errors.ts';
import { PRIVATE_DIR, PRIVATE_FILE, tightenMode } from './file-modes.ts';

/** The only names the store writes ({@link ValueFiles.newName}): 128 random bits in lower-case hex, then `.bin`. */
const NAME = /^[0-9a-f]{32}\.bin$/;

/** True for a name in the form {@link ValueFiles.newName} generates, and nothing else. */
export function isValueFileName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name);
}

// Non-blocking so that a FIFO planted under a valid name cannot stall the event loop on open;
// no-follow so that a symbolic link planted under one is refused by the kernel, not followed.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);

/** The value files of one store. Every method throws {@link SqliteStoreError}s only. */
export class ValueFiles {
  /** The folder, `<path>-values`. */
  readonly dir: string;
  readonly #path: string;
  #ready = false;

  constructor(databasePath: string) {
    this.#path = databasePath;
    this.dir = `${databasePath}-values`;
  }

  /** A new file name: random, so that a file, once named by a row, is never written again. */
  static newName(): string {
    return `${[...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('')}.bin`;
  }

  /** Writes `value` to a new file (0600, in a 0700 folder) under `name`, one of {@link newName}'s. */
  write(name: string, value: Uint8Array): void {
    this.#checkDir(true);
    try {
      // "wx": never through anything already there (a link planted under the name included).
      writeFileSync(join(this.dir, name), value, { flag: 'wx', mode: PRIVATE_FILE });
    } catch (error) {
      this.remove(name);
      const full = (error as { code?: string }).code === 'ENOSPC';
      throw new SqliteStoreError(full ? 'FULL' : 'IOERR', this.#path, `cannot write a value file: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * The bytes of the file a row names, `length` long (what the row records), or undefined when
   * it is gone. Throws CORRUPT for a name not in the store's form, or a file that is not a plain
   * file of that length inside the values folder; such a file is never read.
   */
  read(name: unknown, length: number, key: string): Uint8Array | undefined {
    if (!isValueFileName(name)) throw this.#corrupt(`the entry "${key}" names the value file ${JSON.stringify(name)}, which is not a name this store writes: not opened`);
    if (!this.#checkDir(false)) return undefined;
    let fd: number;
    try {
      fd = openSync(join(this.dir, name), READ_FLAGS);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') throw this.#corrupt(`the value file ${name} of "${key}" is a symbolic link: not followed`);
      throw new SqliteStoreError('IOERR', this.#path, `cannot read the value file ${name}: ${(error as Error).message}`, { cause: error });
    }
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw this.#corrupt(`the value file ${name} of "${key}" is not a plain file: not read`);
      if (stat.size !== length) throw this.#corrupt(`the value file ${name} of "${key}" holds ${stat.size} bytes where its entry records ${length}: not served`);
      const out = new Uint8Array(length);
      for (let at = 0; at < length; ) {
        const read = readSync(fd, out, at, length - at, at);
        if (read === 0) throw this.#corrupt(`the value file ${name} of "${key}" ended after ${at} of ${length} bytes`);
        at += read;
      }
      return out;
    } catch (error) {
      if (error instanceof SqliteStoreError) throw error;
      throw new SqliteStoreError('IOERR', this.#path, `cannot read the value file ${name}: ${(error as Error).message}`, { cause: error });
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Removes a file the store wrote; false when `name` is not in the store's form (it is then
   * left alone). A link under a valid name is removed itself, never what it points to.
   */
  remove(name: unknown): boolean {
    if (!isValueFileName(name)) return false;
    try {
      if (this.#checkDir(false)) unlinkSync(join(this.dir, name));
    } catch {
      // Gone already, or left behind: it only takes space, unreachable without its row.
    }
    return true;
  }

  /** Makes an existing values folder private (0700) when this user owns it. */
  tighten(): void {
    tightenMode(this.dir, PRIVATE_DIR);
  }

  /**
   * True when the folder exists as a plain folder of this user's (creating it, 0700, when
   * `create`); throws CORRUPT when something else stands under its name.
   */
  #checkDir(create: boolean): boolean {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(this.dir);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw new SqliteStoreError('IOERR', this.#path, `cannot inspect ${this.dir}: ${(error as Error).message}`, { cause: error });
      if (!create) return false;
      try {
        mkdirSync(this.dir, { mode: PRIVATE_DIR });
      } catch (made) {
        if ((made as { code?: string }).code !== 'EEXIST') throw new SqliteStoreError('IOERR', this.#path, `cannot create ${this.dir}: ${(made as Error).message}`, { cause: made });
      }
      return this.#checkDir(false);
    }
    if (stat.isSymbolicLink() || !stat.isDirectory())
      throw this.#corrupt(`${this.dir} is not a plain folder (a symbolic link or a file stands there): no value file is read, written or removed through it`);
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) throw this.#corrupt(`${this.dir} belongs to another user (uid ${stat.uid}): no value file is read, written or removed in it`);
    if (!this.#ready) {
      this.#ready = true;
      this.tighten();
    }
    return true;
  }

  #corrupt(message: string): SqliteStoreError {
    return new SqliteStoreError('CORRUPT', this.#path, message);
  }
}
