/**
 * The tag field each CDN reads from a response, and the bounds it documents, in one place: the
 * HTTP layer emits the field from a stored response's tags (`cdnTagHeader`), and each purge
 * forwarder sends only tags that field could have carried (a tag the CDN never indexed cannot
 * be purged there). A tag past a bound is dropped, never sent in a field the CDN would reject
 * or cut short at a place of its choosing.
 *
 * - Cloudflare `Cache-Tag`: comma-separated; the field's value at most 16 KB, at most 1,000
 *   unique tags per response (Cloudflare's "Purge cache by cache-tags" page); no spaces.
 * - Fastly `Surrogate-Key`: space-separated; a key at most 1,024 bytes, the field at most
 *   16,384 bytes, printable ASCII (Fastly's Surrogate-Key reference).
 * - Vercel `Vercel-Cache-Tag`: comma-separated (Vercel's changelog of tag invalidation); a tag
 *   at most 256 characters (the invalidate-by-tags REST schema). Vercel's pages give no count
 *   bound that could be confirmed here: 128 tags, Next.js's own bound per entry, is used.
 */

/** A CDN whose tag field the HTTP layer can emit (`cdnTagHeader`). */
export type CdnTagHeader = 'cloudflare' | 'fastly' | 'vercel';

/** One CDN's tag field and its bounds. */
export interface TagRules {
  /** The field's name, lowercase. */
  readonly field: string;
  readonly separator: string;
  /** The most bytes of one tag. */
  readonly maxTagBytes: number;
  /** The most bytes of the field's value, separators included. */
  readonly maxFieldBytes: number;
  /** The most tags in one field. */
  readonly maxTags: number;
}

export const TAG_RULES: Readonly<Record<CdnTagHeader, TagRules>> = {
  cloudflare: { field: 'cache-tag', separator: ',', maxTagBytes: 16 * 1024, maxFieldBytes: 16 * 1024, maxTags: 1000 },
  fastly: { field: 'surrogate-key', separator: ' ', maxTagBytes: 1024, maxFieldBytes: 16_384, maxTags: Number.POSITIVE_INFINITY },
  vercel: { field: 'vercel-cache-tag', separator: ',', maxTagBytes: 256, maxFieldBytes: 16 * 1024, maxTags: 128 },
};

/** Why a tag was left out of a CDN's field. */
export interface DroppedTags {
  /** A character no CDN's field may carry in a tag (outside printable ASCII, a space or a comma). */
  invalid: number;
  /** Longer than the CDN's bound on one tag. */
  tooLong: number;
  /** Past the CDN's bound on the count of tags or the field's length. */
  overLimit: number;
}

/** The tags of `tags` one CDN's field can carry, in order, and how many were dropped, by reason. */
export function fitTags(tags: readonly string[], rules: TagRules): { kept: string[]; dropped: DroppedTags } {
  const kept: string[] = [];
  const dropped: DroppedTags = { invalid: 0, tooLong: 0, overLimit: 0 };
  let fieldBytes = 0;
  for (const tag of tags) {
    if (!printableTag(tag)) dropped.invalid++;
    // Printable ASCII: one byte per character.
    else if (tag.length > rules.maxTagBytes) dropped.tooLong++;
    else {
      const added = fieldBytes === 0 ? tag.length : tag.length + 1;
      if (kept.length >= rules.maxTags || fieldBytes + added > rules.maxFieldBytes) dropped.overLimit++;
      else {
        kept.push(tag);
        fieldBytes += added;
      }
    }
  }
  return { kept, dropped };
}

/** True for a non-empty tag of printable ASCII without a space or a comma (0x21–0x7E but `,`). */
function printableTag(tag: string): boolean {
  if (tag.length === 0) return false;
  for (let i = 0; i < tag.length; i++) {
    const code = tag.charCodeAt(i);
    if (code < 0x21 || code > 0x7e || code === 0x2c) return false;
  }
  return true;
}

/**
 * The `cdnTagHeader` option of the HTTP layer, checked: a function from a response's tags to
 * the one field the CDN reads, or undefined when none of them fits; `dropped` counts each tag
 * left out.
 */
export function tagField(kind: unknown, dropped: (count: number) => void, where: string): (tags: readonly string[]) => [name: string, value: string] | undefined {
  if (typeof kind !== 'string' || !Object.hasOwn(TAG_RULES, kind)) {
    throw new TypeError(`${where}: "cdnTagHeader" must be one of ${Object.keys(TAG_RULES).join(', ')}, got ${JSON.stringify(kind)}`);
  }
  const rules = TAG_RULES[kind as CdnTagHeader];
  return (tags) => {
    const { kept, dropped: left } = fitTags(tags, rules);
    const count = left.invalid + left.tooLong + left.overLimit;
    if (count > 0) dropped(count);
    return kept.length === 0 ? undefined : [rules.field, kept.join(rules.separator)];
  };
}
