/**
 * Issue 27, item 3: what parses a header value runs in linear time. One request with ~16 KB of
 * spaces in a field a response varies on cost half a second of CPU, through the pattern
 * `\s*,\s*` in vary.ts: an unanchored pattern that starts with a repetition is tried again from every
 * character of a run it cannot finish, so a run of n characters costs n². No assertion here
 * measures time (bench/vary-normalise.ts has the figure): the folding is checked for what it
 * gives, and every regular expression literal in the code that reads header values is checked
 * for the shapes that backtrack, so that the pattern cannot come back.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, it } from 'vitest';
import { MAX_VARY_VALUE_LENGTH, preferredLanguages, varyValues } from '../../src/http/rules/vary.ts';

const root = join(import.meta.dirname, '../..');
/** Where header values (and Next's tags) are read. */
const AUDITED = ['src/http', 'src/next', 'runtimes/node-http'];

/** What a regular expression does with repetition, as far as backtracking goes. */
interface Shape {
  /** The most unbounded repetitions (`*`, `+`, `{n,}`) one match can run in sequence. */
  sequential: number;
  /** A group repeated more than once holds an unbounded repetition (`(a+)+`): exponential. */
  nested: boolean;
  /** The whole pattern is one repeated atom (`\s+`): nothing after it can fail and send it back. */
  singleAtom: boolean;
  /** Starts with `^` and has no top-level alternation: tried from one position only. */
  anchored: boolean;
}

/** Reads the repetition structure of `pattern` (a regular expression's source). */
function shapeOf(pattern: string): Shape {
  let at = 0;
  let nested = false;
  let atoms = 0;
  let topQuantified = false;
  /** One alternative: the count of its sequential unbounded repetitions. */
  const sequence = (depth: number): { count: number; alternatives: number } => {
    let best = 0;
    let current = 0;
    let alternatives = 1;
    while (at < pattern.length) {
      const char = pattern[at]!;
      if (char === ')') {
        if (depth === 0) throw new Error(`unbalanced ) in /${pattern}/`);
        break;
      }
      if (char === '|') {
        best = Math.max(best, current);
        current = 0;
        alternatives++;
        at++;
        continue;
      }
      let inner = 0;
      if (char === '\\') at += 2;
      else if (char === '[') {
        at++;
        while (at < pattern.length && pattern[at] !== ']') at += pattern[at] === '\\' ? 2 : 1;
        at++;
      } else if (char === '(') {
        at++;
        if (pattern[at] === '?') {
          at++;
          if (pattern[at] === '<' && pattern[at + 1] !== '=' && pattern[at + 1] !== '!') while (pattern[at] !== '>') at++;
          at++;
        }
        inner = sequence(depth + 1).count;
        at++; // )
      } else at++;
      if (depth === 0) atoms++;
      const quantifier = /^(?:[*+?]|\{\d+(?:,\d*)?\})/.exec(pattern.slice(at, at + 12))?.[0];
      if (quantifier !== undefined) {
        at += quantifier.length;
        if (pattern[at] === '?') at++;
        const unbounded = quantifier === '*' || quantifier === '+' || /,\}$/.test(quantifier);
        const repeats = quantifier !== '?' && quantifier !== '{0,1}' && quantifier !== '{1}' && quantifier !== '{0}';
        if (repeats && inner > 0) nested = true;
        current += inner + (unbounded ? 1 : 0);
        if (depth === 0) topQuantified = true;
      } else current += inner;
    }
    return { count: Math.max(best, current), alternatives };
  };
  const top = sequence(0);
  return { sequential: top.count, nested, singleAtom: atoms === 1 && topQuantified, anchored: pattern.startsWith('^') && top.alternatives === 1 };
}

/** Why `pattern` can backtrack over a run of input, or undefined when it cannot. */
function backtrackingRisk(pattern: string): string | undefined {
  const shape = shapeOf(pattern);
  if (shape.nested) return 'a repeated group holds a repetition';
  if (shape.anchored) return shape.sequential > 1 ? 'two unbounded repetitions in sequence' : undefined;
  if (shape.sequential === 0 || (shape.singleAtom && shape.sequential === 1)) return undefined;
  return 'an unanchored pattern with an unbounded repetition, retried from every position';
}

/** Every regular expression literal in the TypeScript files under `folder`, with where it is. */
function regexLiterals(folder: string): Array<{ where: string; pattern: string }> {
  const found: Array<{ where: string; pattern: string }> = [];
  for (const name of readdirSync(join(root, folder), { recursive: true }) as string[]) {
    if (!name.endsWith('.ts')) continue;
    const file = join(folder, name);
    const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = node.getText(source);
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push({ where: `${file}:${line + 1}`, pattern: text.slice(1, text.lastIndexOf('/')) });
      }
      if (ts.isNewExpression(node) && node.expression.getText(source) === 'RegExp') {
        found.push({ where: `${file}: new RegExp(…)`, pattern: '(a pattern built at run time, which this audit cannot read)+' });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('linear-time parsing of header values (issue 27, item 3)', () => {
  it('tells the backtracking shapes from the linear ones', () => {
    for (const risky of ['\\s*,\\s*', '(a+)+$', '^(\\d+)*$', '^\\s*\\w+\\s*$', 'a.*b', '^(?:a|b)+c+$']) assert.ok(backtrackingRisk(risky), risky);
    for (const safe of ['\\s+', '[?#]', '^\\d+$', '^(\\d{1,15})-(\\d{0,15})$', '^[a-z]+, (\\d{2})-([a-z]{3})$', '^(?:\\[[0-9:.]+\\]|[a-z]+)(?::\\d{1,5})?$', '["\\\\]']) {
      assert.equal(backtrackingRisk(safe), undefined, safe);
    }
  });

  it('no regular expression where header values are read can backtrack over a run of input', () => {
    const literals = AUDITED.flatMap(regexLiterals);
    assert.ok(literals.length > 20, `found only ${literals.length} regular expressions: is the audit reading the files?`);
    const risky = literals.flatMap(({ where, pattern }) => {
      const risk = backtrackingRisk(pattern);
      return risk === undefined ? [] : [`${where} /${pattern}/: ${risk}`];
    });
    assert.deepEqual(risky, []);
  });

  it('folds whitespace in a varying field member by member, the same as before, on any length up to the bound', () => {
    const headers = (value: string) => new Headers({ origin: value });
    for (const [value, folded] of [
      [' https://a.example ', 'https://a.example'],
      ['a  b ,  c', 'a b,c'],
      ['a , , b', 'a,,b'],
      ['a,\tb', 'a,b'],
    ] as const) {
      assert.deepEqual(varyValues(['origin'], headers(value)), [folded], JSON.stringify(value));
    }
    const spaces = ' '.repeat(MAX_VARY_VALUE_LENGTH - 3);
    assert.deepEqual(varyValues(['origin'], headers(`a${spaces}b`)), ['a b']);
    assert.deepEqual(varyValues(['user-agent', 'x-custom'], new Headers({ 'user-agent': `x${spaces}`, 'x-custom': `${spaces},y` })), ['x', ',y']);
  });

  it('leaves a value over the bound unread: it is no key, and no language is read from it', () => {
    const long = `a${' '.repeat(16 * 1024)}b`;
    assert.deepEqual(varyValues(['origin'], new Headers({ origin: long })), [long]);
    assert.deepEqual(preferredLanguages(`de, ${'x,'.repeat(MAX_VARY_VALUE_LENGTH)}`), []);
    assert.deepEqual(preferredLanguages('de, en;q=0.5'), ['de']);
  });
});
