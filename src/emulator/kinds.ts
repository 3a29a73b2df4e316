// What the shared store asks of an account kind: its billing rule and its part in the status model's
// transitions (a change made visible, power and addresses on activation, what a suspension or a
// cancellation does). Families implement these (src/emulator/families/); the store calls them and never
// names a kind. Must not: import the router or a family, so that the store stays below both.
import type { Cycle } from './catalog.js'
import type { Account, PendingChange, Sequences, State } from './model.js'

/** The part of the store a kind's rules may use: the clock, the sequences and the state. */
export interface Ledger {
  readonly state: State
  now(): number
  next(name: string): number
}

/** One account kind's rules; every hook is optional but the price. */
export interface KindRules {
  /** The recurring amount in `cycle`; undefined (an unknown product, after drift) keeps the old amount. */
  recurringAmount(account: Account, cycle: Cycle): number | undefined
  /** Makes a pending change visible, when the account is next Active. */
  applyChange?(account: Account, change: PendingChange): void
  /** After the change is applied at the first Active (or the next one): power, addresses. */
  activated?(account: Account, change: PendingChange | null, at: number, ledger: Ledger): void
  suspended?(account: Account): void
  unsuspended?(account: Account, now: number): void
  terminated?(account: Account): void
}

/** The store's view of every family at once (built by src/emulator/family.ts from the registry). */
export interface AccountRegistry {
  /** Every account kind, in the order the control API lists them. */
  readonly kinds: readonly string[]
  rulesOf(kind: string): KindRules | undefined
  /** The first value of every sequence: the store's own and the families'. */
  firstSequences(): Sequences
  /** Every family's reaction to an account leaving (terminated or purged): references to it are dropped. */
  released(account: Account, ledger: Ledger): void
}
