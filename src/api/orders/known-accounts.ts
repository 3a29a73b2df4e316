// The accounts this user's runs on this machine have handed to an engine, whatever working directory
// (and so whatever order journal) they ran from: one empty file per account under a per-user
// directory, by service. The unrecorded-match check reads it so that twin directories, or two
// nameless additional IPs applied from two directories one after the other, are told apart from a
// killed run's order without a stop. Must not: hold anything but account ids and times (no key, no
// URL, no name), or fail an order because it cannot be written.
import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { JOURNAL_KEEP_MS } from './journal-store.js'

/** `$XDG_STATE_HOME/provider-iac/accounts`, by default `~/.local/state/provider-iac/accounts`. */
export function knownAccountsDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME?.trim() || join(homedir(), '.local', 'state')
  return join(state, 'provider-iac', 'accounts')
}

/**
 * The per-user index. An account is recorded when a run hands it to its engine or a state names it;
 * its file's time is when that last happened. Files older than the journal's keep time are removed
 * as they are read: only recent accounts matter to the check that reads them.
 */
export class KnownAccounts {
  constructor(
    readonly directory: string,
    private readonly now: () => number,
  ) {}

  /** Records that a run on this machine handed `accountId` of `service` (a serviceOf hash) to an engine. */
  add(service: string, accountId: string): void {
    if (!/^[0-9A-Za-z_-]{1,64}$/.test(accountId)) return
    try {
      const dir = join(this.directory, service)
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      const file = join(dir, accountId)
      writeFileSync(file, '')
      const at = new Date(this.now())
      utimesSync(file, at, at)
    } catch {
      // A home that cannot be written only makes the check stop more often: never an order's failure.
    }
  }

  /** The accounts of `service` recorded within the keep time, with when each was recorded (ms). */
  recorded(service: string): Map<string, number> {
    const out = new Map<string, number>()
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
        if (at >= oldest) out.set(name, at)
        else rmSync(file, { force: true })
      } catch {
        // Removed meanwhile by another process: not known.
      }
    }
    return out
  }
}
