// The accounts this user's runs on this machine have ordered and handed to an engine, whatever working directory
// (and so whatever order journal) they ran from: one file per account under a per-user directory, by
// service. The unrecorded-match check reads it so that twin directories, or two nameless additional IPs
// applied from two directories one after the other, are told apart from a killed run's order without a
// stop. An account only answered or handed over names the process that did it (the file holds that owner): once that
// process is gone without its engine closing it gracefully and without any state naming the account, it
// may have been killed before its state was saved, and the account no longer counts as another
// configuration's. Must not: hold anything but account ids, times and process ids (no key, no URL, no
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
    const { pid, token, started, enginePid, engineStarted } = owner
    this.write(service, accountId, JSON.stringify({ pid, token, started, enginePid, engineStarted }))
  }

  /** Records that a state names `accountId` of `service`, or that the engine that got it closed its process gracefully. */
  add(service: string, accountId: string): void {
    this.write(service, accountId, '')
  }

  private write(service: string, accountId: string, content: string): void {
    if (!/^[0-9A-Za-z_-]{1,64}$/.test(accountId)) return
    try {
      const dir = join(this.directory, service)
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      const file = join(dir, accountId)
      writeFileSync(file, content)
      const at = new Date(this.now())
      utimesSync(file, at, at)
    } catch {
      // A home that cannot be written only makes the check stop more often: never an order's failure.
    }
  }

  /** The accounts of `service` recorded within the keep time. */
  recorded(service: string): Map<string, KnownAccount> {
    const out = new Map<string, KnownAccount>()
    const dir = join(this.directory, service)
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return out
    }
    const oldest = this.now() - JOURNAL_KEEP_MS
    for (const name of names) {
      try {
        const file = join(dir, name)
        const at = statSync(file).mtimeMs
        if (at < oldest) {
          rmSync(file, { force: true })
          continue
        }
        const content = readFileSync(file, 'utf8')
        out.set(name, content === '' ? { at } : { at, handedOverBy: ownerOf(content) })
      } catch {
        // Removed meanwhile by another process: not known.
      }
    }
    return out
  }
}

/** The owner a file names, or null when it cannot be read (a file cut short by a crash while it was written). */
function ownerOf(content: string): JournalOwner | null {
  try {
    const value = JSON.parse(content) as Partial<JournalOwner>
    if (typeof value.pid === 'number' && typeof value.token === 'string') return value as JournalOwner
  } catch {
    // See above.
  }
  return null
}
