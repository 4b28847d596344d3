/**
 * The links of Markdown pages, checked the way a reader follows them: an absolute URL is left to
 * the web; a relative one must name a file of the same tree (for npm users, the tarball), and its
 * `#anchor` a heading of that file, as GitHub and npm slug headings.
 */
import { posix } from 'node:path';

/** A page's text without its fenced blocks. */
function withoutFences(text: string): string {
  return text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '');
}

/** A page's text with fenced blocks and inline code blanked, so links shown as code are not followed. */
function prose(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, '');
}

/** The anchors a page's headings get (GitHub's slugs: lower case, punctuation dropped, spaces to hyphens, repeats numbered). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading!
      .replace(/`([^`]*)`/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The link targets of a page's prose: `[text](target)` and `[text]: target` definitions. */
export function linkTargets(text: string): string[] {
  const body = prose(text);
  const inline = [...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const definitions = [...body.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!);
  return [...inline, ...definitions];
}

/** How to see the tree the pages live in: whether a file is in it, and a page's text. */
export interface PageTree {
  has(path: string): boolean;
  read(path: string): string;
}

/** Every relative link of `pages` (tree-relative paths) that does not resolve in `tree`, as `page: target: why`. */
export function brokenLinks(pages: readonly string[], tree: PageTree): string[] {
  const problems: string[] = [];
  for (const page of pages) {
    for (const target of linkTargets(tree.read(page))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : posix.normalize(posix.join(posix.dirname(page), decodeURI(path)));
      if (file.startsWith('../') || posix.isAbsolute(file)) {
        problems.push(`${page}: ${target}: points outside the package`);
      } else if (!tree.has(file)) {
        problems.push(`${page}: ${target}: ${file} is not in the package`);
      } else if (anchor !== undefined && file.endsWith('.md') && !headingAnchors(tree.read(file)).has(anchor)) {
        problems.push(`${page}: ${target}: ${file} has no heading #${anchor}`);
      }
    }
  }
  return problems;
}
