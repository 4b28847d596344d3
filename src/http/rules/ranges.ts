/**
 * Byte ranges (RFC 9110 §14, §13.1.5; RFC 9111 §3.3–3.4): reading Range, If-Range and
 * Content-Range, answering a range from stored bytes, and keeping the parts of a
 * representation that several 206 responses delivered. Pure functions over numbers and
 * byte arrays.
 */
import { parseHttpDate } from './http-date.ts';
import type { PartialContent } from './stored-response.ts';

/** One range a client asked for, before the representation's length is known. */
export type RangeSpec = { first: number; last: number | undefined } | { suffix: number };

/** `[start, end)` within a representation. */
export type Span = [start: number, end: number];

const INT_RANGE = /^(\d{1,15})-(\d{0,15})$/;
const SUFFIX_RANGE = /^-(\d{1,15})$/;

/**
 * Reads a Range field: one byte range, `'multiple'` for a set of several (which this cache
 * leaves to the origin), or undefined when the field is not a valid byte range set and is to
 * be ignored (§14.2: an unknown unit or bad syntax is as if there were no Range).
 */
export function parseRange(value: string): RangeSpec | 'multiple' | undefined {
  const equals = value.indexOf('=');
  if (equals === -1 || value.slice(0, equals).trim().toLowerCase() !== 'bytes') return undefined;
  const specs = value
    .slice(equals + 1)
    .split(',')
    .map((spec) => spec.trim())
    .filter(Boolean);
  if (specs.length === 0) return undefined;
  const parsed: RangeSpec[] = [];
  for (const spec of specs) {
    const bounded = INT_RANGE.exec(spec);
    if (bounded) {
      const first = Number(bounded[1]);
      const last = bounded[2] === '' ? undefined : Number(bounded[2]);
      if (last !== undefined && last < first) return undefined;
      parsed.push({ first, last });
      continue;
    }
    const suffix = SUFFIX_RANGE.exec(spec);
    if (!suffix) return undefined;
    parsed.push({ suffix: Number(suffix[1]) });
  }
  return parsed.length === 1 ? parsed[0] : 'multiple';
}

/** The span a range selects in a representation of `length` bytes, or undefined when it is unsatisfiable (§14.1.1). */
export function resolveRange(spec: RangeSpec, length: number): Span | undefined {
  if ('suffix' in spec) return spec.suffix === 0 || length === 0 ? undefined : [Math.max(0, length - spec.suffix), length];
  if (spec.first >= length) return undefined;
  return [spec.first, Math.min(spec.last ?? length - 1, length - 1) + 1];
}

/** The validators If-Range is compared with. */
export interface RangeValidators {
  etag: string | null;
  lastModified: string | null;
  /** The stored response's Date: a Last-Modified is a strong validator only a second or more before it (§8.8.2.2). */
  date: string | null;
}

/**
 * True when an If-Range condition holds, so the range may be served (§13.1.5): an entity-tag
 * must be strong and equal the current one exactly; a date must equal a Last-Modified that is
 * itself strong. Anything else, a malformed value included, means the whole representation.
 */
export function ifRangeHolds(value: string, validators: RangeValidators): boolean {
  const condition = value.trim();
  if (condition.startsWith('"') || condition.startsWith('W/')) {
    return !condition.startsWith('W/') && validators.etag !== null && !validators.etag.startsWith('W/') && condition === validators.etag.trim();
  }
  const asked = parseHttpDate(condition);
  const modified = parseHttpDate(validators.lastModified);
  const date = parseHttpDate(validators.date);
  return asked !== undefined && modified !== undefined && date !== undefined && asked === modified && date - modified >= 1000;
}

/** A Content-Range value of a 206: the span sent and the complete length (undefined for `*`). */
export interface ContentRange {
  span: Span;
  length: number | undefined;
}

const CONTENT_RANGE = /^bytes (\d{1,15})-(\d{1,15})\/(\d{1,15}|\*)$/i;

/** Reads a 206's Content-Range; undefined when it is not one satisfied byte range. */
export function parseContentRange(value: string | null): ContentRange | undefined {
  const match = value === null ? null : CONTENT_RANGE.exec(value.trim());
  if (!match) return undefined;
  const start = Number(match[1]);
  const end = Number(match[2]) + 1;
  const length = match[3] === '*' ? undefined : Number(match[3]);
  if (end <= start || (length !== undefined && end > length)) return undefined;
  return { span: [start, end], length };
}

/** The Content-Range of a 206 carrying `span` of `length` bytes. */
export function formatContentRange(span: Span, length: number): string {
  return `bytes ${span[0]}-${span[1] - 1}/${length}`;
}

/** The Content-Range of a 416 (§15.5.17). */
export function unsatisfiedRange(length: number): string {
  return `bytes */${length}`;
}

/** Where `span` lies in a partial body, when one stored span holds all of it. */
export function offsetInPartial(partial: PartialContent, span: Span): number | undefined {
  let offset = 0;
  for (const [start, end] of partial.spans) {
    if (span[0] >= start && span[1] <= end) return offset + span[0] - start;
    offset += end - start;
  }
  return undefined;
}

/** The parts of the representation a partial entry lacks, in order. */
export function missingSpans(partial: PartialContent): Span[] {
  const gaps: Span[] = [];
  let at = 0;
  for (const [start, end] of partial.spans) {
    if (start > at) gaps.push([at, start]);
    at = end;
  }
  if (at < partial.length) gaps.push([at, partial.length]);
  return gaps;
}

/**
 * Adds `bytes` at `span` to what a partial entry holds (RFC 9111 §3.4: parts of one
 * representation, with matching strong validators, may be combined). Overlaps take the new
 * bytes; touching spans are joined.
 */
export function addSpan(previous: { partial: PartialContent; body: Uint8Array } | undefined, length: number, span: Span, bytes: Uint8Array): { partial: PartialContent; body: Uint8Array } {
  const pieces: Array<{ span: Span; bytes: Uint8Array }> = [];
  if (previous) {
    let offset = 0;
    for (const [start, end] of previous.partial.spans) {
      const size = end - start;
      const own = previous.body.subarray(offset, offset + size);
      offset += size;
      // The parts of an old span outside the new one survive; the new bytes win where they overlap.
      if (start < span[0]) pieces.push({ span: [start, Math.min(end, span[0])], bytes: own.subarray(0, Math.min(end, span[0]) - start) });
      if (end > span[1]) pieces.push({ span: [Math.max(start, span[1]), end], bytes: own.subarray(Math.max(start, span[1]) - start) });
    }
  }
  pieces.push({ span, bytes });
  pieces.sort((a, b) => a.span[0] - b.span[0]);
  const spans: Span[] = [];
  let total = 0;
  for (const piece of pieces) {
    const last = spans[spans.length - 1];
    if (last && last[1] === piece.span[0]) last[1] = piece.span[1];
    else spans.push([piece.span[0], piece.span[1]]);
    total += piece.bytes.byteLength;
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const piece of pieces) {
    body.set(piece.bytes, at);
    at += piece.bytes.byteLength;
  }
  return { partial: { length, spans }, body };
}
