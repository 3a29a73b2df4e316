// Exactly-once orders: everything that makes a paid order (or a one-shot destructive action) happen
// once per intent, whatever kills or slows a run. Must not: do HTTP itself (../transport.ts does), or
// hold process-global state beyond what identifies this process as a journal owner.
//
// The guarantee. An order is recorded in the order journal before it is sent, with its
// Idempotency-Key; it is replayed with that key until it answers, and a later run that wants the same
// thing (same service, key, method, path, body and scope, and for a change of an existing object the
// same change from the same state) takes the entry over instead of ordering
// again: it gets the recorded account back, or resends with the same key, which the service answers
// with the first order's result (it keeps keys for 24 hours; entries are reused for 23). Against a
// service that has not confirmed that it recognises keys, an order whose outcome is unclear is never
// sent again blindly: the accounts of its kind are listed and the one it made is adopted, or the call
// stops naming the candidates and the import command.
//
// The words, used in this sense everywhere here. An entry is `sent` (written before the request),
// `answered` (the service gave the account id), `failed` (refused for good), `delivered` (the
// outcome went back to the engine, which may still lose it), `settled` (known kept, or its account
// deleted: never taken over again). An entry is *held* by the operation working on it, *owned* by
// the process that wrote it or *took it over*; an owner that no longer runs is *gone*.
//
// Owners of a shared database can lose entries while they run (a partition ends their session, and
// another runner takes the entry over): their writes are conditional on still owning the entry, and an
// answer is handed over only once the store confirmed it (Orders.recordAnswer).
//
// The limits. A journal is only as shared as its store: a directory serves the runs of one working
// directory (one machine); a PostgreSQL database serves every runner that names it. A run whose
// journal is lost (a fresh CI workspace without the shared database) cannot recognise a killed run's
// order by its key: a new create then lists the accounts of its kind and stops on a recent unrecorded
// match rather than order twice (see Orders.unrecordedMatches). Terraform saves its state after it
// closes the provider: ids handed over in between and lost with a kill are recorded as unconfirmed
// and stop the same create until a state names them.
export {
  JOURNAL_KEEP_MS,
  type JournalEntry,
  type JournalOwner,
  type JournalState,
  type JournalStore,
  processAlive,
} from './journal-store.js'
export {
  fingerprint,
  type JournalOptions,
  type JournalSession,
  JOURNAL_REUSE_MS,
  newJournalSession,
  OrderJournal,
  serviceOf,
} from './journal.js'
export { FileJournalStore } from './journal-file.js'
export { describeDatabase, isPostgresUrl, JOURNAL_TABLE, PostgresJournalStore, postgresUrlProblem } from './journal-postgres.js'
export { createdSince, type Expected, type OrderOptions, Orders, type OrdersOptions, type Reconcile, reconcileBy } from './orders.js'
export { newOwner } from './journal-store.js'
export { KnownAccounts, knownAccountsDirectory } from './known-accounts.js'
