/**
 * A strict reader of the Prometheus text format for the tests and the dashboard picture: every
 * line must be a HELP, a TYPE (one per family, before its samples) or a sample; the samples are
 * returned by series (name plus label text as written) so a check names the exact series.
 */
import assert from 'node:assert/strict';

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*\})? (-?[0-9.e+-]+|\+Inf|-Inf|NaN)$/;
const TYPE = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)$/;

/** The samples of `text` by series; throws on any line the format does not allow. */
export function parsePrometheusText(text: string): Map<string, number> {
  assert.ok(text.endsWith('\n'), 'the text ends with a line feed');
  const samples = new Map<string, number>();
  const typed = new Set<string>();
  for (const line of text.slice(0, -1).split('\n')) {
    // The format ignores empty lines: prom-client's registry puts one between families.
    if (line === '' || line.startsWith('# HELP ')) continue;
    const type = TYPE.exec(line);
    if (type) {
      assert.ok(!typed.has(type[1]!), `one TYPE line per family: ${type[1]}`);
      typed.add(type[1]!);
      continue;
    }
    const match = SAMPLE.exec(line);
    assert.ok(match, `not a sample line: ${JSON.stringify(line)}`);
    const family = match[1]!.replace(/_(bucket|sum|count)$/, '');
    assert.ok(typed.has(match[1]!) || typed.has(family), `a sample before its TYPE: ${line}`);
    samples.set(`${match[1]}${match[2] ?? ''}`, match[3] === '+Inf' ? Infinity : Number(match[3]));
  }
  return samples;
}
