// An extra disk's +10 GB (60 to 70 GB) is processed by the service while its run is killed before the
// answer; the next run, planned from 60 GB (Pulumi's up does not refresh), asks for 80 GB. The disk step
// works its increment out from its own read of the disk; if the stopped +10 GB takes effect between
// that read and the order (provisioning ends in between), the increment is stale (+20 GB): nothing may be
// sent, whether or not the stopped order's invoice tells it apart, and the next run orders only what is
// missing.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, test } from 'node:test'
import { createClient, newJournalSession, type OperationFrame } from '../api/index.js'
import { applyUpdate, planResource, silentLogger, type ValueMap } from '../core/index.js'
import { liteVmOn } from '../../test/support/fixtures.js'
import { BASE, Harness } from '../../test/support/harness.js'
import { liteDisk } from './lite-disk.js'
import { lite } from './lite-family.js'

const directories: string[] = []
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const running = new Set<number>()
let nextPid = 910_000
/** A provider process as the journal sees it; `kill()` ends it. */
function providerProcess() {
  const pid = nextPid++
  running.add(pid)
  const owner = { pid, token: `process-${pid}`, engine: `engine-${pid}` }
  return { journalOptions: { session: newJournalSession(owner), alive: (p: number) => running.has(p) }, kill: () => running.delete(pid) }
}

/** A 60 GB disk on a fresh emulator that ignores keys, and runs of fresh provider processes on one journal. */
async function diskAt60(pay: boolean) {
  const h = new Harness({ quirks: { ignore_idempotency_keys: true } })
  const { vm } = await liteVmOn(h, lite)
  const disks = liteDisk(lite)
  const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: Number(vm.id), pay_with_credit_card: pay }
  const at60 = await h.create(disks, { ...config, pay_with_credit_card: true })
  h.emulator.advance(60_000)
  const path = `/v1/lites/disks/accounts/${String(at60.id)}`
  const dir = mkdtempSync(join(tmpdir(), 'stopped-change-'))
  directories.push(dir)
  /** A run whose requests go through `fetch`; `apply(size)` plans from the 60 GB of state. */
  const run = (fetch: (request: Request) => Promise<Response> = (request) => h.emulator.fetch(request)) => {
    const op: OperationFrame = { scope: undefined, timeoutMs: 1_200_000, onFinish: () => undefined }
    const process = providerProcess()
    const client = createClient({
      baseUrl: `${BASE}/v1`,
      apiKey: h.emulator.apiKey,
      userAgent: 'provider-test/0',
      fetch,
      now: () => h.emulator.now(),
      sleep: async (ms) => h.emulator.advance(ms),
      random: () => 0.5,
      pollIntervalMs: 1000,
      journalDirectory: dir,
      operation: () => op,
      journalOptions: process.journalOptions,
    })
    const session = {
      client,
      log: silentLogger,
      signal: new AbortController().signal,
      changingFrom: (change?: string) => {
        op.from = change
      },
    }
    const apply = (size: number) => {
      const plan = planResource(disks, at60, { ...config, size })
      return applyUpdate(disks, at60, plan.planned, plan.private, session)
    }
    return { apply, kill: process.kill }
  }
  /**
   * Run 1, 60 to 70 GB: the service processes it; no answer reaches the run, which is killed.
   * `failingReads`: its reads of the disk after the step's own fail. `late`: the request reaches the service
   * only when the answered promise's function is called (a slow network), not before.
   */
  const stopped = async (failingReads = false, late = false) => {
    let processed!: () => void
    const placed = new Promise<void>((resolve) => {
      processed = resolve
    })
    let reads = 0
    let arrive: () => Promise<unknown> = async () => undefined
    const first = run(async (request) => {
      const disk = request.method === 'GET' && new URL(request.url).pathname === path
      // Its first two reads are the wait for a disk ready for changes and the step's own read.
      if (disk && failingReads && ++reads > 2) throw new TypeError('fetch failed')
      if (request.method !== 'PUT') return h.emulator.fetch(request)
      if (late) arrive = () => h.emulator.fetch(request)
      else await h.emulator.fetch(request)
      processed()
      return new Promise<Response>(() => undefined)
    })
    void first.apply(70)
    await placed
    first.kill()
    return arrive
  }
  /**
   * Run 2, edited to 80 GB. `race`: right after the step's own read of the disk (its second read: the
   * first is the wait for a disk ready for changes), the late request of run 1 arrives, and the clock
   * moves that much, so that it takes effect before this run's order.
   */
  const edited = async (race?: { readonly arrive: () => Promise<unknown>; readonly provisioning: number }) => {
    let reads = 0
    const second = run(async (request) => {
      const response = await h.emulator.fetch(request)
      const disk = request.method === 'GET' && new URL(request.url).pathname === path
      if (race !== undefined && disk && ++reads === 2) {
        await race.arrive()
        h.emulator.advance(race.provisioning)
      }
      return response
    })
    const outcome = await second.apply(80)
    second.kill()
    return outcome
  }
  const upgrades = async () =>
    ((await h.control('GET', '/orders')) as { orders: { kind: string }[] }).orders.filter((o) => o.kind.endsWith('disk.upgrade')).length
  /** What the user sees at the end: the disk's size after everything provisioned, and how many upgrades were ordered. */
  const outcome = async () => {
    await h.control('POST', `/accounts/${String(at60.id)}/pay`).catch(() => undefined)
    h.emulator.advance(600_000)
    // Imported, not refreshed: a refresh keeps the recorded 60 GB as the floor of a larger disk.
    return { size: (await h.import(disks, String(at60.id)))?.size, upgrades: await upgrades() }
  }
  return { h, at60, run, stopped, edited, upgrades, outcome }
}

const errors = (o: { diagnostics: readonly { severity: string; detail: string }[] }) =>
  o.diagnostics.filter((d) => d.severity === 'error').map((d) => d.detail)

describe('a disk upgrade edited after a stopped run, the stopped one taking effect meanwhile', () => {
  test('it takes effect between the step read and the order: nothing is sent; the next run orders +10 GB, and the disk has 80 GB', async () => {
    const d = await diskAt60(true)
    const arrive = await d.stopped(false, true)
    d.h.emulator.advance(500)
    const edited = await d.edited({ arrive, provisioning: 5_000 })
    assert.equal(await d.upgrades(), 1, 'nothing sent on top of the stopped +10 GB')
    assert.match(errors(edited).join('\n'), /Not sending PUT \S+: a run that was stopped sent another change of it .*in effect only since/s)
    const third = await d.run().apply(80)
    assert.deepEqual(errors(third), [])
    assert.deepEqual(await d.outcome(), { size: 80, upgrades: 2 })
  })

  test('it took effect before the step read: +10 GB is ordered at once, and the disk has 80 GB', async () => {
    const d = await diskAt60(true)
    await d.stopped()
    d.h.emulator.advance(5_000)
    assert.deepEqual(errors(await d.edited()), [])
    assert.deepEqual(await d.outcome(), { size: 80, upgrades: 2 })
  })

  test('it is still being made when the edited run starts: the run waits until the disk takes changes, then orders only the rest (+10 GB)', async () => {
    const d = await diskAt60(true)
    await d.stopped()
    d.h.emulator.advance(500)
    assert.deepEqual(errors(await d.edited()), [])
    assert.deepEqual(await d.outcome(), { size: 80, upgrades: 2 })
  })

  for (const minutes of [5, 20])
    test(`unpaid, paid by hand ${minutes} minutes later (after 10 its invoice no longer tells it apart), then the race: nothing is sent on top`, async () => {
      const d = await diskAt60(false)
      const arrive = await d.stopped(false, true)
      d.h.emulator.advance(minutes * 60_000)
      const edited = await d.edited({
        arrive: async () => {
          await arrive()
          await d.h.control('POST', `/accounts/${String(d.at60.id)}/pay`)
        },
        provisioning: 5_000,
      })
      assert.equal(await d.upgrades(), 1, `nothing sent on top of the stopped +10 GB: ${errors(edited).join(' | ')}`)
      assert.match(errors(edited).join('\n'), /Not sending PUT/)
    })

  test("the stopped run's invoice read failed (no invoice to tell it by), past its deadline, still provisioning: the edited run waits until the disk takes changes, then orders only the rest", async () => {
    const d = await diskAt60(true)
    await d.h.control('PATCH', '/config', { provisioning_delay_ms: 300_000 })
    await d.stopped(true)
    await d.h.control('PATCH', '/config', { provisioning_delay_ms: 2000 })
    d.h.emulator.advance(150_000)
    assert.deepEqual(errors(await d.edited()), [])
    assert.deepEqual(await d.outcome(), { size: 80, upgrades: 2 })
  })
})
