/**
 * The real option a mistyped name most likely meant, case-insensitively: the same name in another
 * case, else one within a typo or two (a letter missing, added, replaced or two swapped), else one
 * that contains the name or is contained in it (`deadline` for `deadlineMs`, `retryMethods` for
 * `methods`).
 */

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
export const editDistance = (a: string, b: string): number => {
  // Three rows of the optimal-string-alignment table: the swap looks two rows back.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const replace = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + replace);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, before[j - 2]! + 1);
      }
      row.push(best);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
};

/** Whether one name is the other's start, or holds it (`retryMethods` holds `methods`). */
const related = (wanted: string, candidate: string): boolean =>
  (wanted.length >= 3 && candidate.startsWith(wanted)) ||
  (wanted.length >= 5 && candidate.includes(wanted)) ||
  (candidate.length >= 5 && wanted.includes(candidate));

/** The option of `known` closest to `name`, or `undefined` when none is close enough to suggest. */
export const closestOption = (name: string, known: Iterable<string>): string | undefined => {
  const wanted = name.toLowerCase();
  // A short name allows one edit: two would turn `now` into `k` and the like.
  const limit = wanted.length >= 5 ? 2 : 1;
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const option of known) {
    const candidate = option.toLowerCase();
    const distance = editDistance(wanted, candidate);
    // A related name ranks after every real typo.
    const score =
      distance <= limit ? distance : related(wanted, candidate) ? limit + 1 : Number.POSITIVE_INFINITY;
    if (score < bestScore) {
      best = option;
      bestScore = score;
    }
  }
  return best;
};
