/**
 * Names kept for one release after they were replaced. Each one, on its first call in a process,
 * says once on the console what replaced it: the JSDoc `@deprecated` reaches only editors that
 * read the types, and the release that removes the name would otherwise be the first thing a
 * JavaScript user hears of it.
 */

const announced = new Set<string>();

/** Writes, once per process and per `oldName`, that `oldName` is deprecated and what to call instead. */
export function announceDeprecation(oldName: string, replacement: string): void {
  if (announced.has(oldName)) return;
  announced.add(oldName);
  console.warn(`[cachette] ${oldName} is deprecated and will be removed in the next release; call ${replacement} instead (the same function under its new name).`);
}
