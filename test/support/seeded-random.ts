// A small seeded generator (a linear congruential one) for tests that feed random inputs: the same
// seed gives the same sequence, so a failing input can be found again.
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
