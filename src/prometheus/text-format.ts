/**
 * The Prometheus text exposition format (version 0.0.4), written once: metric families with
 * their HELP and TYPE lines, label values escaped as the format requires, histograms as
 * cumulative `_bucket` lines with `le`, then `_sum` and `_count`.
 */

/** Label names to values. */
export type Labels = Readonly<Record<string, string>>;

/** One sample of a counter or gauge. */
export interface Sample {
  readonly labels: Labels;
  readonly value: number;
}

/** One labelled series of a histogram: cumulative counts per upper bound. */
export interface HistogramSample {
  readonly labels: Labels;
  /** Upper bounds in seconds, ascending; `+Inf` is added. */
  readonly bounds: readonly number[];
  /** Observations at or below each bound (cumulative), same length as `bounds`. */
  readonly cumulative: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/** A metric family as the format writes it. */
export type Family =
  | { readonly name: string; readonly help: string; readonly type: 'counter' | 'gauge'; readonly samples: readonly Sample[] }
  | { readonly name: string; readonly help: string; readonly type: 'histogram'; readonly samples: readonly HistogramSample[] };

/** What the format allows as a metric or label name. */
export const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
/** Label names (no colon; `__` is reserved). */
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label value with `\`, `"` and line feeds escaped, as the format requires. */
function escapeValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** HELP text escapes only `\` and line feeds. */
function escapeHelp(help: string): string {
  return help.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

function labelText(labels: Labels, extra?: readonly [string, string]): string {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escapeValue(value)}"`);
  if (extra) pairs.push(`${extra[0]}="${extra[1]}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

/** A number as the format spells it (`+Inf`, `-Inf`, `NaN`). */
function numberText(value: number): string {
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return Number.isNaN(value) ? 'NaN' : String(value);
}

/** The exposition text of `families`, ending with a line feed. */
export function formatFamilies(families: readonly Family[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    if (family.type === 'histogram') {
      for (const series of family.samples) {
        for (let i = 0; i < series.bounds.length; i++) lines.push(`${family.name}_bucket${labelText(series.labels, ['le', numberText(series.bounds[i]!)])} ${series.cumulative[i]}`);
        lines.push(`${family.name}_bucket${labelText(series.labels, ['le', '+Inf'])} ${series.count}`);
        lines.push(`${family.name}_sum${labelText(series.labels)} ${numberText(series.sum)}`, `${family.name}_count${labelText(series.labels)} ${series.count}`);
      }
    } else {
      for (const sample of family.samples) lines.push(`${family.name}${labelText(sample.labels)} ${numberText(sample.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
