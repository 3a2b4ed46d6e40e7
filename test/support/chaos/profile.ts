/**
 * The size of a chaos run: `fast` (inside `npm test`, CI) or `long` (`npm run test:chaos`), from
 * MRTQ_CHAOS_PROFILE; MRTQ_CHAOS_SEED reproduces a run's random choices (which process is
 * killed, when, which item an operator acts on).
 */
export interface ChaosProfile {
  name: 'fast' | 'long';
  seed: number;
  /** The fast or the long value. */
  size<T>(fast: T, long: T): T;
  /** A seeded random source in [0, 1). */
  random(): number;
  /** A seeded integer in [min, max]. */
  between(min: number, max: number): number;
  /** A seeded element. */
  pick<T>(items: readonly T[]): T;
}

/** mulberry32: small, fast, good enough to make a run reproducible. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function chaosProfile(env: NodeJS.ProcessEnv = process.env): ChaosProfile {
  const name = env.MRTQ_CHAOS_PROFILE === 'long' ? 'long' : 'fast';
  const given = Number(env.MRTQ_CHAOS_SEED);
  const seed = Number.isInteger(given) && given > 0 ? given : Math.floor(Math.random() * 2 ** 31) + 1;
  const random = mulberry32(seed);
  return {
    name,
    seed,
    size: (fast, long) => (name === 'long' ? long : fast),
    random,
    between: (min, max) => min + Math.floor(random() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(random() * items.length)]!;
    },
  };
}
