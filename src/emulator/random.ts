// The seeded random source of the emulator's fault rules (probabilities and delay ranges): the same seed and
// the same requests give the same draws, so a chaotic run can be repeated. Mulberry32: 32 bits of state,
// plain integers, no dependency; not for anything secret.
export class Random {
  private state = 0
  /** Draws made since the last (re)seed: lets a control call show how far a run went. */
  draws = 0

  constructor(public seed: number) {
    this.reseed(seed)
  }

  /** Restarts the sequence from `seed` (a non-negative integer below 2^32). */
  reseed(seed: number): void {
    this.seed = seed
    this.state = seed >>> 0
    this.draws = 0
  }

  /** A number in [0, 1). */
  next(): number {
    this.draws += 1
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
}

export const isSeed = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff
