// The accounts this user's runs on this machine have ordered and handed to an engine, whatever working directory
// (and so whatever order journal) they ran from: one file per account under a per-user directory, by
// service. The unrecorded-match check reads it so that twin directories, or two nameless additional IPs
// applied from two directories one after the other, are told apart from a killed run's order without a
// stop. An account only answered or handed over names the process that did it (the file holds that owner): once that
// process is gone without its engine closing it gracefully and without any state naming the account, it
// may have been killed before its state was saved, and the account no longer counts as another
// configuration's. While a create is on its way, the index also holds it as in flight (its call, the
// hash of what its account will show, when it was sent and by which process), so that another
// directory's run does not take the account it is about to be answered with for a killed run's order.
// Must not: hold anything but account ids, calls, hashes, times and process ids (no key, no URL, no
// name), or fail an order because it cannot be written.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { JOURNAL_KEEP_MS, type JournalOwner } from './journal-store.js'

/** `$XDG_STATE_HOME/provider-iac/accounts`, by default `~/.local/state/provider-iac/accounts`. */
export function knownAccountsDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME?.trim() || join(homedir(), '.local', 'state')
  return join(state, 'provider-iac', 'accounts')
}

/** An account of the index: when it was last recorded, and by whom while it is only handed over. */
export interface KnownAccount {
  readonly at: number
  /**
   * The process that handed it over, until a state named it or that process's engine closed it
   * gracefully; null when the file cannot be read (cut short by a crash): a process that is gone.
   */
  readonly handedOverBy?: JournalOwner | null
}

/** A create of this machine on its way: sent, its answer not in yet (see OrderJournal.ordersInFlightElsewhere). */
export interface InFlightOrder {
  readonly owner: JournalOwner
  /** `METHOD path` of the order. */
  readonly call: string
  /** The hash of what the account it makes will show (Reconcile.shows), when it has one. */
  readonly shows?: string
  readonly sentAt: number
}

/**
 * The per-user index. An account is recorded when a run's create is answered with it, and when the run
 * hands it to its engine (with that run's process), and again, for good, when a state names it or the engine closes that process gracefully;
 * its file's time is when that last happened. Files older than the journal's keep time are removed as
 * they are read: only recent accounts matter to the check that reads them.
 */
export class KnownAccounts {
  constructor(
    readonly directory: string,
    private readonly now: () => number,
  ) {}

  /** Records that a run on this machine got `accountId` of `service` (a serviceOf hash) as an answer, or handed it to an engine, as `owner`. */
  handedOver(service: string, accountId: string, owner: JournalOwner): void {
    this.write(service, accountId, JSON.stringify(ownerFields(owner)))
  }

  /** Records that a state names `accountId` of `service`, or that the engine that got it closed its process gracefully. */
  add(service: string, accountId: string): void {
    this.write(service, accountId, '')
  }

  /** Records that `id` (a journal entry's id), a create of `service`, is on its way. */
  sending(service: string, id: string, order: InFlightOrder): void {
    this.writeFile(join(this.directory, IN_FLIGHT, service), id, JSON.stringify({ ...order, owner: ownerFields(order.owner) }))
  }

  /** The create `id` of `service` has its outcome (an answer, an adopted account, a failure) or was given up. */
  landed(service: string, id: string): void {
    if (!SAFE_NAME.test(id)) return
    try {
      rmSync(join(this.directory, IN_FLIGHT, service, id), { force: true })
    } catch {
      // Left behind: its owner's end makes it stale, and the keep time removes it.
    }
  }

  /** The creates of `service` in flight on this machine, whatever their owners' state, recorded within the keep time. */
  inFlight(service: string): InFlightOrder[] {
    const out: InFlightOrder[] = []
    for (const { content } of this.readAll(join(this.directory, IN_FLIGHT, service))) {
      const order = inFlightOf(content)
      if (order !== null) out.push(order)
    }
    return out
  }

  private write(service: string, accountId: string, content: string): void {
    this.writeFile(join(this.directory, service), accountId, content)
  }

  private writeFile(dir: string, name: string, content: string): void {
    if (!SAFE_NAME.test(name)) return
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      const file = join(dir, name)
      writeFileSync(file, content)
      const at = new Date(this.now())
      utimesSync(file, at, at)
    } catch {
      // A home that cannot be written only makes the check stop more often: never an order's failure.
    }
  }

  /** The files of `dir` written within the keep time (their names, times and contents); older ones are removed. */
  private readAll(dir: string): { name: string; at: number; content: string }[] {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return []
    }
    const oldest = this.now() - JOURNAL_KEEP_MS
    const out: { name: string; at: number; content: string }[] = []
    for (const name of names) {
      try {
        const file = join(dir, name)
        const at = statSync(file).mtimeMs
        if (at < oldest) rmSync(file, { force: true })
        else out.push({ name, at, content: readFileSync(file, 'utf8') })
      } catch {
        // Removed meanwhile by another process: not known.
      }
    }
    return out
  }

  /** The accounts of `service` recorded within the keep time. */
  recorded(service: string): Map<string, KnownAccount> {
    const out = new Map<string, KnownAccount>()
    for (const { name, at, content } of this.readAll(join(this.directory, service))) {
      out.set(name, content === '' ? { at } : { at, handedOverBy: ownerOf(content) })
    }
    return out
  }
}

/** What a file of the index may be named: an account id or a journal entry's id. */
const SAFE_NAME = /^[0-9A-Za-z_-]{1,64}$/
/** The folder of the creates in flight, beside the services' folders of accounts. */
const IN_FLIGHT = 'in-flight'

/** What the index keeps of an owner: the process, never its engine's details beyond pid and start. */
function ownerFields({ pid, token, started, enginePid, engineStarted }: JournalOwner) {
  return { pid, token, started, enginePid, engineStarted }
}

function isOwner(value: unknown): value is JournalOwner {
  const owner = value as Partial<JournalOwner> | null
  return typeof owner?.pid === 'number' && typeof owner.token === 'string'
}

/** An in-flight record, or null when it cannot be read (cut short by a crash): a process that is gone. */
function inFlightOf(content: string): InFlightOrder | null {
  try {
    const value = JSON.parse(content) as Partial<InFlightOrder>
    return typeof value.call === 'string' && typeof value.sentAt === 'number' && isOwner(value.owner) ? (value as InFlightOrder) : null
  } catch {
    return null
  }
}

/** The owner a file names, or null when it cannot be read (a file cut short by a crash while it was written). */
function ownerOf(content: string): JournalOwner | null {
  try {
    const value: unknown = JSON.parse(content)
    return isOwner(value) ? value : null
  } catch {
    return null
  }
}
