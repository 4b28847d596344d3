const SUPERSCRIPTS = ['¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/** The head of a Markdown table: the header row, the first column left-aligned and the others right. */
export function tableHead(header: readonly string[]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|---|${header
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
  ];
}

/** Numbered notes under a table: `mark(text)` returns the marker to put in a cell (one per distinct text). */
export class Footnotes {
  readonly #notes: string[] = [];

  /** The marker of `text`, numbering it on first use. */
  readonly mark = (text: string): string => {
    let i = this.#notes.indexOf(text);
    if (i < 0) i = this.#notes.push(text) - 1;
    return marker(i);
  };

  /** The notes as lines to append under the table (nothing when there are none). */
  lines(): string[] {
    return this.#notes.length ? ['', ...this.#notes.map((n, i) => `${marker(i)} ${n}  `)] : [];
  }
}

function marker(i: number): string {
  return SUPERSCRIPTS[i] ?? `[${i + 1}]`;
}
