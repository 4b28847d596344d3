/**
 * Refuses option names nobody reads: a typo such as `tll` would otherwise be ignored in
 * silence and the default used instead. The error names the closest known option.
 */
export function checkKnownOptions(options: object, known: readonly string[], where: string): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const guess = closest(name, known);
    throw new TypeError(`${where}: unknown option "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}; known options: ${known.join(', ')}`);
  }
}

/** The known name within two edits of `name` (case-insensitive), if there is one. */
function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const edits = distance(name.toLowerCase(), candidate.toLowerCase());
    if (edits < bestDistance) {
      best = candidate;
      bestDistance = edits;
    }
  }
  return best;
}

/** Edit distance with transpositions (optimal string alignment), on short option names. */
function distance(from: string, to: string): number {
  const rows: number[][] = Array.from({ length: from.length + 1 }, (_, i) => [i, ...new Array<number>(to.length).fill(0)]);
  for (let j = 1; j <= to.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= from.length; i++) {
    for (let j = 1; j <= to.length; j++) {
      const cost = from[i - 1] === to[j - 1] ? 0 : 1;
      let edits = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && from[i - 1] === to[j - 2] && from[i - 2] === to[j - 1]) edits = Math.min(edits, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = edits;
    }
  }
  return rows[from.length]![to.length]!;
}
