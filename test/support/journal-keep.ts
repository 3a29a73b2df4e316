// What a journal store keeps and what it lets expire, the same for every store: a create no state has
// named yet for UNRESOLVED_KEEP_MS, any other entry for JOURNAL_KEEP_MS.
import { randomUUID } from 'node:crypto'
import type { JournalEntry, JournalState } from '../../src/api/orders/journal-store.js'

const DAY = 24 * 3_600_000

/** Entries written `days` before `now`, and whether a store must still list them at `now`. */
export function keepCases(now: number): { entry: JournalEntry; kept: boolean }[] {
  const entry = (days: number, state: JournalState, creates: boolean, unconfirmed = false): JournalEntry => ({
    v: 1,
    id: `${state}-${creates ? 'create' : 'upgrade'}-${days}d-${randomUUID()}`,
    fingerprint: `intent-${randomUUID()}`,
    service: 'service',
    key: randomUUID(),
    method: 'POST',
    path: '/lites',
    sentAt: now - days * DAY,
    state,
    ...(state === 'sent' ? {} : { accountId: String(100_000 + days) }),
    ...(creates ? { creates: true as const } : {}),
    ...(unconfirmed ? { unconfirmed: true as const } : {}),
  })
  return [
    // A run killed on a Friday evening, applied again after the weekend: its create is still there.
    { entry: entry(3, 'answered', true), kept: true },
    { entry: entry(3, 'sent', true), kept: true },
    // Taken over that late, then handed over, or closed gracefully: not named by a state yet.
    { entry: entry(3, 'delivered', true), kept: true },
    { entry: entry(3, 'settled', true, true), kept: true },
    { entry: entry(1, 'settled', true), kept: true },
    // Anything else is kept two days only, and an unresolved create two weeks.
    { entry: entry(3, 'settled', true), kept: false },
    { entry: entry(3, 'failed', true), kept: false },
    { entry: entry(3, 'sent', false), kept: false },
    { entry: entry(15, 'answered', true), kept: false },
  ]
}
