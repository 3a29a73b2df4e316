// What issue 25's real-client cases share: the Terraform clients each case runs under, how many times
// a case repeats, and the checks every case ends with on the emulator: no account in two states, and
// no account that was ordered and is neither in a state nor named (by its id) in what a later run
// printed. Plus the two things a case waits for: an order's journal entry on disk (the moment to
// interrupt a run), and a request the service holds (a `delay` fault) having been processed.
// Must not: know a front end's commands (the test files run them).
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { faultPathMatches } from '../../../src/emulator/faults.js'
import { Emulator, Workspace } from '../e2e/harness.js'
import { type Tool, terraformClients } from '../tools.js'
import { sleep } from './matrix.js'

/** How many times each cell runs: 1 in the suite; FAULT_REPEAT=5 for the issue's five tries per cell. */
export const REPEAT = Math.max(1, Number(process.env.FAULT_REPEAT ?? 1))

/**
 * Every pinned Terraform (not OpenTofu), newest first: 1.16.4 and 1.11.4 today (issue 25 named
 * 1.15.5, the newest pinned then, and 1.11.4).
 * CASE_CLIENTS=terraform-1.11.4 narrows a run to the clients named.
 */
export function terraformVersions(): { key: string; tool: Tool }[] {
  const only = process.env.CASE_CLIENTS?.split(',').filter(Boolean)
  return terraformClients()
    .filter((c) => c.name.startsWith('terraform '))
    .map((c) => ({ key: c.name.replace(' ', '-'), tool: c.tool }))
    .filter((c) => !only || only.length === 0 || only.includes(c.key))
    .sort((a, b) => b.tool.version.localeCompare(a.tool.version, 'en', { numeric: true }))
}

/** How long the service holds the order, and how long after the stop the user runs again (case 1). */
export const HOLDS = [
  { holdMs: 4_000, rerunAfterMs: 0 },
  { holdMs: 15_000, rerunAfterMs: 5_000 },
] as const
/** How a run is stopped (case 1): kill -9 of the client, or Ctrl-C (SIGINT to its process group). */
export const STOPS = ['SIGKILL', 'SIGINT'] as const

/**
 * One emulator for a describe's tests and the Terraform workspaces they make under any client,
 * started before them and removed after.
 */
export function caseLane(): { readonly em: Emulator; workspace(client: { key: string; tool: Tool }): Promise<Workspace> } {
  let em: Emulator | undefined
  const workspaces: Workspace[] = []
  before(async () => {
    em = await Emulator.start({ provisioningDelayMs: 200 })
  })
  after(async () => {
    for (const ws of workspaces) await ws.cleanup()
    await em?.stop()
  })
  return {
    get em() {
      if (em === undefined) throw new Error('the emulator starts before the tests')
      return em
    },
    async workspace(client) {
      const ws = await Workspace.create(this.em, undefined, client)
      workspaces.push(ws)
      return ws
    },
  }
}

/** The fields of a journal entry file a test reads (src/api/orders/journal-store.ts). */
export interface EntryOnDisk {
  readonly id: string
  readonly method: string
  readonly path: string
  readonly state: string
  readonly accountId?: string
  readonly key: string
}

/** The entries of a journal directory (`.terraform/provider-orders`, `.provider-orders`); none when it is missing. */
export async function journalEntries(dir: string): Promise<EntryOnDisk[]> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return []
  }
  const out: EntryOnDisk[] = []
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    try {
      out.push(JSON.parse(await readFile(join(dir, name), 'utf8')) as EntryOnDisk)
    } catch {
      // Being renamed into place: the next look reads it.
    }
  }
  return out
}

/**
 * Resolves with the first entry of `method path` in `state` (any state when unset) in the journal directory
 * (bounded); `path` matches as a fault rule's path does (a `*` segment stands for an account id).
 */
export async function journalEntry(dir: string, method: string, path: string, state?: string, limitMs = 60_000): Promise<EntryOnDisk> {
  const until = Date.now() + limitMs
  for (;;) {
    const found = (await journalEntries(dir)).find(
      (e) => e.method === method && faultPathMatches(path, e.path) && (!state || e.state === state),
    )
    if (found) return found
    if (Date.now() > until)
      throw new Error(`no journal entry of ${method} ${path}${state ? ` (${state})` : ''} in ${dir} within ${limitMs} ms`)
    await sleep(25)
  }
}

/** Resolves once the service has processed the request a fault held (its log entry carries the fault and a status; bounded). */
export async function heldRequestDone(em: Emulator, faultId: string, limitMs = 60_000): Promise<void> {
  const until = Date.now() + limitMs
  for (;;) {
    const entries = await em.requests()
    if (entries.some((e) => e.fault_id === faultId && e.status !== null)) return
    if (Date.now() > until) throw new Error(`the request held by fault ${faultId} was not processed within ${limitMs} ms`)
    await sleep(100)
  }
}

/** Whether `text` names the account id as a whole number (not as part of another). */
export function names(text: string, id: string): boolean {
  return new RegExp(`(?<![0-9])${id}(?![0-9])`).test(text)
}

/**
 * Accounts among `ids` that are not terminated, are in none of the `states`, and that `output` (what
 * the runs after the fault printed) does not name: ordered and lost to the user.
 */
export async function unaccounted(
  em: Emulator,
  ids: readonly string[],
  states: readonly ReadonlySet<string>[],
  output: string,
): Promise<string[]> {
  const accounts = await em.accounts()
  const lost: string[] = []
  for (const id of new Set(ids)) {
    const account = accounts.find((a) => String(a.account.account_id) === id)?.account
    if (!account || account.status.toLowerCase() === 'terminated') continue
    if (states.some((s) => s.has(id)) || names(output, id)) continue
    lost.push(id)
  }
  return lost
}

/**
 * The orders the emulator took after the first `seen`, and their accounts that are lost to the user
 * (see unaccounted): in no `state` and named by no line of `output`.
 */
export async function accountedSince(em: Emulator, seen: number, state: ReadonlySet<string>, output: string) {
  const orders = (await em.orders()).orders.slice(seen)
  const lost = await unaccounted(
    em,
    orders.map((o) => o.account_id),
    [state],
    output,
  )
  return { orders, lost }
}

/** Ids that more than one of `states` holds: each state's destroy would delete it for the others. */
export function inTwoStates(states: readonly ReadonlySet<string>[]): string[] {
  const seen = new Map<string, number>()
  for (const state of states) for (const id of state) seen.set(id, (seen.get(id) ?? 0) + 1)
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id)
}

/**
 * What a run said about its orders, for a test's diagnostics: each Terraform diagnostic (Error: or
 * Warning: block) on one line, the other lines that name an account, a key or a stop, and the summary.
 */
export function keyLines(text: string): string[] {
  const blocks = text.split(/^(?=(?:Error|Warning): )/m)
  const out: string[] = []
  for (const block of blocks) {
    // The price notice every plan of a new order shows says nothing about the case.
    if (/^Warning: This plan places paid orders/.test(block)) continue
    if (/^(Error|Warning): /.test(block)) {
      out.push(block.replace(/\s+/g, ' ').trim().slice(0, 700))
      continue
    }
    for (const line of block.split('\n'))
      if (/using pulumi-language-yaml from \$PATH/.test(line)) continue
      else if (/error:|warning:|Not ordering|Apply complete|account \d+|Idempotency-Key|Resources:/i.test(line))
        out.push(line.trim().slice(0, 400))
  }
  return out.slice(0, 16)
}

/** The Idempotency-Key the request a fault held was sent with (null when it had none, or was not logged). */
export async function heldRequestKey(em: Emulator, faultId: string): Promise<string | null> {
  const entries = await em.requests()
  return entries.find((e) => e.fault_id === faultId)?.idempotency_key ?? null
}

/**
 * Runs `round` `count` times, each round even after one failed (the stops and duplicates these cases
 * look for can be intermittent: the message says how often), then fails with every failed round's message.
 */
export async function everyRound(count: number, round: (n: number) => Promise<void>): Promise<void> {
  const failures: string[] = []
  for (let n = 1; n <= count; n++) {
    try {
      await round(n)
    } catch (error) {
      failures.push(`round ${n}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  if (failures.length > 0) throw new Error(`failed in ${failures.length} of ${count} rounds\n${failures.join('\n\n')}`)
}

/**
 * Watches a held request until the service has processed it, noting the newest request the log then
 * holds. `cameBefore(since)` tells whether the first request after `since` (a re-run's) was in the log
 * by then: the re-run reached the service while the order was still held, which is the case the test is
 * about (a slow machine can start the re-run too late for it). Undefined while the held one is not done.
 */
export function watchHeld(em: Emulator, faultId: string, limitMs = 120_000): { cameBefore(since: number): Promise<boolean | undefined> } {
  let newestAtDone: number | undefined
  let heldSeq = 0
  const watching = (async () => {
    const until = Date.now() + limitMs
    while (Date.now() < until) {
      const entries = await em.requests()
      const held = entries.find((e) => e.fault_id === faultId && e.status !== null)
      if (held) {
        heldSeq = held.seq
        newestAtDone = entries.reduce((max, e) => Math.max(max, e.seq), 0)
        return
      }
      await sleep(50)
    }
  })()
  return {
    async cameBefore(since) {
      await watching
      if (newestAtDone === undefined) return undefined
      // The held request itself, and anything the stopped run sent before it, came earlier.
      const first = (await em.requests(Math.max(since, heldSeq))).reduce((min, e) => Math.min(min, e.seq), Number.POSITIVE_INFINITY)
      return first <= newestAtDone
    },
  }
}
