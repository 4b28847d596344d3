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
  const parser = new Parser(input);
  try {
    return parser.dictionary();
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
  #position = 0;

  constructor(private readonly input: string) {}

  dictionary(): Dictionary {
    const out = new Map<string, MemberValue>();
    this.#skip(' ');
    if (this.#position === this.input.length) return out;
    for (;;) {
      const key = this.#key();
      let value: MemberValue;
      if (this.input[this.#position] === '=') {
        this.#position++;
        value = this.input[this.#position] === '(' ? this.#innerList() : this.#item();
      } else {
        value = TRUE;
        this.#parameters();
      }
      // §4.2.2: a later member with the same key replaces the earlier one, keeping no order
      // guarantee that a cache directive could depend on.
      out.delete(key);
      out.set(key, value);
      this.#skipOws();
      if (this.#position === this.input.length) return out;
      if (this.input[this.#position] !== ',') throw new SyntaxError('expected a comma between dictionary members');
      this.#position++;
      this.#skipOws();
      if (this.#position === this.input.length) throw new SyntaxError('a dictionary may not end with a comma');
    }
  }

  #innerList(): MemberValue {
    this.#position++; // (
    const items: BareItem[] = [];
    for (;;) {
      this.#skip(' ');
      if (this.input[this.#position] === ')') {
        this.#position++;
        this.#parameters();
        return { type: 'inner-list', value: items };
      }
      items.push(this.#item());
      const next = this.input[this.#position];
      if (next !== ' ' && next !== ')') throw new SyntaxError('expected a space or ) in an inner list');
    }
  }

  #item(): BareItem {
    const item = this.#bareItem();
    this.#parameters();
    return item;
  }

  #parameters(): void {
    while (this.input[this.#position] === ';') {
      this.#position++;
      this.#skip(' ');
      this.#key();
      if (this.input[this.#position] === '=') {
        this.#position++;
        this.#bareItem();
      }
    }
  }

  #key(): string {
    const start = this.#position;
    if (!KEY_START.test(this.input[this.#position] ?? '')) throw new SyntaxError('a key starts with a lowercase letter or *');
    this.#position++;
    while (this.#position < this.input.length && KEY_CHAR.test(this.input[this.#position]!)) this.#position++;
    return this.input.slice(start, this.#position);
  }

  #bareItem(): BareItem {
    const char = this.input[this.#position] ?? '';
    if (char === '-' || DIGIT.test(char)) return this.#number();
    if (char === '"') return this.#string();
    if (TOKEN_START.test(char)) return this.#token();
    if (char === ':') return this.#bytes();
    if (char === '?') return this.#boolean();
    throw new SyntaxError('not a bare item');
  }

  #number(): BareItem {
    let sign = 1;
    if (this.input[this.#position] === '-') {
      sign = -1;
      this.#position++;
    }
    const start = this.#position;
    let dot = -1;
    while (this.#position < this.input.length) {
      const char = this.input[this.#position]!;
      if (DIGIT.test(char)) this.#position++;
      else if (char === '.' && dot === -1) {
        dot = this.#position;
        this.#position++;
      } else break;
      // §4.2.4: at most 15 digits for an integer, 16 characters (12 before the point) for a decimal.
      if (dot === -1 && this.#position - start > 15) throw new SyntaxError('integer too long');
      if (dot !== -1 && this.#position - start > 16) throw new SyntaxError('decimal too long');
    }
    const text = this.input.slice(start, this.#position);
    if (text.length === 0 || !DIGIT.test(text[0]!)) throw new SyntaxError('a number needs digits');
    if (dot === -1) return { type: 'integer', value: sign * Number(text) };
    const fraction = this.#position - dot - 1;
    if (dot - start > 12 || fraction < 1 || fraction > 3) throw new SyntaxError('bad decimal');
    return { type: 'decimal', value: sign * Number(text) };
  }

  #string(): BareItem {
    this.#position++; // "
    let out = '';
    while (this.#position < this.input.length) {
      const char = this.input[this.#position++]!;
      if (char === '\\') {
        const next = this.input[this.#position++];
        if (next !== '"' && next !== '\\') throw new SyntaxError('bad escape in a string');
        out += next;
      } else if (char === '"') {
        return { type: 'string', value: out };
      } else {
        const code = char.charCodeAt(0);
        if (code < 0x20 || code > 0x7e) throw new SyntaxError('a string holds printable ASCII only');
        out += char;
      }
    }
    throw new SyntaxError('unterminated string');
  }

  #token(): BareItem {
    const start = this.#position++;
    while (this.#position < this.input.length && TOKEN_CHAR.test(this.input[this.#position]!)) this.#position++;
    return { type: 'token', value: this.input.slice(start, this.#position) };
  }

  #bytes(): BareItem {
    const start = ++this.#position;
    while (this.#position < this.input.length && BASE64_CHAR.test(this.input[this.#position]!)) this.#position++;
    if (this.input[this.#position] !== ':') throw new SyntaxError('unterminated byte sequence');
    return { type: 'bytes', value: this.input.slice(start, this.#position++) };
  }

  #boolean(): BareItem {
    const char = this.input[this.#position + 1];
    if (char !== '0' && char !== '1') throw new SyntaxError('a boolean is ?0 or ?1');
    this.#position += 2;
    return { type: 'boolean', value: char === '1' };
  }

  #skip(char: string): void {
    while (this.input[this.#position] === char) this.#position++;
  }

  #skipOws(): void {
    while (this.input[this.#position] === ' ' || this.input[this.#position] === '\t') this.#position++;
  }
}
