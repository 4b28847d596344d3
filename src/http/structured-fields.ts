/**
 * Structured Field Dictionaries (RFC 8941 §3.2, parsed as §4.2.2 says), the syntax of
 * CDN-Cache-Control and other targeted cache-control fields (RFC 9213 §2.1). Strict: any
 * syntax error fails the whole field (`undefined`), because RFC 8941 §4.2 says a field that
 * does not parse is ignored as a whole, never read in part.
 */

/** One bare item (§3.3), tagged with its type so a reader can refuse a wrong one. */
export type BareItem =
  | { type: 'integer'; value: number }
  | { type: 'decimal'; value: number }
  | { type: 'string'; value: string }
  | { type: 'token'; value: string }
  | { type: 'bytes'; value: string }
  | { type: 'boolean'; value: boolean };

/** A dictionary member's value: an item or an inner list (parameters are parsed and dropped: no cache directive uses them). */
export type MemberValue = BareItem | { type: 'inner-list'; value: BareItem[] };

/** A parsed dictionary: keys in order of first appearance, later duplicates overwriting earlier ones (§4.2.2). */
export type Dictionary = ReadonlyMap<string, MemberValue>;

const TRUE: BareItem = { type: 'boolean', value: true };

/** Parses a field value as a Dictionary; `undefined` when it is not one. */
export function parseDictionary(input: string): Dictionary | undefined {
  const p = new Parser(input);
  try {
    return p.dictionary();
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

const KEY_START = /[a-z*]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;
const TOKEN_START = /[A-Za-z*]/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/;
const DIGIT = /[0-9]/;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;

class Parser {
  #i = 0;

  constructor(private readonly s: string) {}

  dictionary(): Dictionary {
    const out = new Map<string, MemberValue>();
    this.#skip(' ');
    if (this.#i === this.s.length) return out;
    for (;;) {
      const key = this.#key();
      let value: MemberValue;
      if (this.s[this.#i] === '=') {
        this.#i++;
        value = this.s[this.#i] === '(' ? this.#innerList() : this.#item();
      } else {
        value = TRUE;
        this.#parameters();
      }
      // §4.2.2: a later member with the same key replaces the earlier one, keeping no order
      // guarantee that a cache directive could depend on.
      out.delete(key);
      out.set(key, value);
      this.#skipOws();
      if (this.#i === this.s.length) return out;
      if (this.s[this.#i] !== ',') throw new SyntaxError('expected a comma between dictionary members');
      this.#i++;
      this.#skipOws();
      if (this.#i === this.s.length) throw new SyntaxError('a dictionary may not end with a comma');
    }
  }

  #innerList(): MemberValue {
    this.#i++; // (
    const items: BareItem[] = [];
    for (;;) {
      this.#skip(' ');
      if (this.s[this.#i] === ')') {
        this.#i++;
        this.#parameters();
        return { type: 'inner-list', value: items };
      }
      items.push(this.#item());
      const next = this.s[this.#i];
      if (next !== ' ' && next !== ')') throw new SyntaxError('expected a space or ) in an inner list');
    }
  }

  #item(): BareItem {
    const item = this.#bareItem();
    this.#parameters();
    return item;
  }

  #parameters(): void {
    while (this.s[this.#i] === ';') {
      this.#i++;
      this.#skip(' ');
      this.#key();
      if (this.s[this.#i] === '=') {
        this.#i++;
        this.#bareItem();
      }
    }
  }

  #key(): string {
    const start = this.#i;
    if (!KEY_START.test(this.s[this.#i] ?? '')) throw new SyntaxError('a key starts with a lowercase letter or *');
    this.#i++;
    while (this.#i < this.s.length && KEY_CHAR.test(this.s[this.#i]!)) this.#i++;
    return this.s.slice(start, this.#i);
  }

  #bareItem(): BareItem {
    const c = this.s[this.#i] ?? '';
    if (c === '-' || DIGIT.test(c)) return this.#number();
    if (c === '"') return this.#string();
    if (TOKEN_START.test(c)) return this.#token();
    if (c === ':') return this.#bytes();
    if (c === '?') return this.#boolean();
    throw new SyntaxError('not a bare item');
  }

  #number(): BareItem {
    let sign = 1;
    if (this.s[this.#i] === '-') {
      sign = -1;
      this.#i++;
    }
    const start = this.#i;
    let dot = -1;
    while (this.#i < this.s.length) {
      const c = this.s[this.#i]!;
      if (DIGIT.test(c)) this.#i++;
      else if (c === '.' && dot === -1) {
        dot = this.#i;
        this.#i++;
      } else break;
      // §4.2.4: at most 15 digits for an integer, 16 characters (12 before the point) for a decimal.
      if (dot === -1 && this.#i - start > 15) throw new SyntaxError('integer too long');
      if (dot !== -1 && this.#i - start > 16) throw new SyntaxError('decimal too long');
    }
    const text = this.s.slice(start, this.#i);
    if (text.length === 0 || !DIGIT.test(text[0]!)) throw new SyntaxError('a number needs digits');
    if (dot === -1) return { type: 'integer', value: sign * Number(text) };
    const fraction = this.#i - dot - 1;
    if (dot - start > 12 || fraction < 1 || fraction > 3) throw new SyntaxError('bad decimal');
    return { type: 'decimal', value: sign * Number(text) };
  }

  #string(): BareItem {
    this.#i++; // "
    let out = '';
    while (this.#i < this.s.length) {
      const c = this.s[this.#i++]!;
      if (c === '\\') {
        const next = this.s[this.#i++];
        if (next !== '"' && next !== '\\') throw new SyntaxError('bad escape in a string');
        out += next;
      } else if (c === '"') {
        return { type: 'string', value: out };
      } else {
        const code = c.charCodeAt(0);
        if (code < 0x20 || code > 0x7e) throw new SyntaxError('a string holds printable ASCII only');
        out += c;
      }
    }
    throw new SyntaxError('unterminated string');
  }

  #token(): BareItem {
    const start = this.#i++;
    while (this.#i < this.s.length && TOKEN_CHAR.test(this.s[this.#i]!)) this.#i++;
    return { type: 'token', value: this.s.slice(start, this.#i) };
  }

  #bytes(): BareItem {
    const start = ++this.#i;
    while (this.#i < this.s.length && BASE64_CHAR.test(this.s[this.#i]!)) this.#i++;
    if (this.s[this.#i] !== ':') throw new SyntaxError('unterminated byte sequence');
    return { type: 'bytes', value: this.s.slice(start, this.#i++) };
  }

  #boolean(): BareItem {
    const c = this.s[this.#i + 1];
    if (c !== '0' && c !== '1') throw new SyntaxError('a boolean is ?0 or ?1');
    this.#i += 2;
    return { type: 'boolean', value: c === '1' };
  }

  #skip(c: string): void {
    while (this.s[this.#i] === c) this.#i++;
  }

  #skipOws(): void {
    while (this.s[this.#i] === ' ' || this.s[this.#i] === '\t') this.#i++;
  }
}
