// The emulator's clock and its date formats: real or manual (advanced only by the control API), never
// moving back.
/** The emulator's notion of now (the emulator's start-up options): every delay, retention and written date reads it. */
export type ClockMode = 'manual' | 'real'

/**
 * The request handler's wall time, apart from the service clock (which a manual clock freezes): how long a
 * fault rule's added delay waits, and the request log's `latency_ms`. Injected (EmulatorOptions.timer) so
 * tests wait for nothing and see exact latencies.
 */
export interface Timer {
  /** Monotonic milliseconds. */
  now(): number
  sleep(ms: number): Promise<void>
}

/** Real time: the default timer. The only wait in the emulator; it delays an answer and never changes state. */
export const realTimer: Timer = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}

export class Clock {
  private offsetMs = 0
  private readonly frozenAt: number

  constructor(
    readonly mode: ClockMode,
    startMs: number = Date.now(),
  ) {
    this.frozenAt = startMs
  }

  now(): number {
    return (this.mode === 'manual' ? this.frozenAt : Date.now()) + this.offsetMs
  }

  advance(ms: number): void {
    this.offsetMs += ms
  }

  /** A restored state may have been written by a clock ahead of ours; time never goes back. */
  catchUp(savedNow: number): void {
    const lag = savedNow - this.now()
    if (lag > 0) this.offsetMs += lag
  }
}

const pad = (n: number) => String(n).padStart(2, '0')

export function formatDate(ms: number): string {
  const d = new Date(ms)
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
}

export function formatDateTime(ms: number): string {
  const d = new Date(ms)
  return `${formatDate(ms)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
}

/** `next_due` clamps the day to the target month's end (the account object): Jan 31 + 1 month is Feb 28/29. */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  const index = m - 1 + months
  const year = y + Math.floor(index / 12)
  const month = ((index % 12) + 12) % 12
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  return `${year}-${pad(month + 1)}-${pad(Math.min(d, lastDay))}`
}

export function addDays(date: string, days: number): string {
  return formatDate(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000)
}
