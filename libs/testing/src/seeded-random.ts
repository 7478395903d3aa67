/**
 * mulberry32: a tiny PRNG with 32 bits of state. Tests seed it so that a failing
 * fuzz case replays exactly; no dependency, no clock.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Each item kept with the given probability, order preserved. */
  subset<T>(items: readonly T[], probability = 0.5): T[] {
    return items.filter(() => this.chance(probability));
  }

  string(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_-'): string {
    let text = '';
    for (let index = 0; index < length; index += 1) text += alphabet[Math.floor(this.next() * alphabet.length)];
    return text;
  }
}
