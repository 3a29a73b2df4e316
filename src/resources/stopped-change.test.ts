// An extra disk's +10 GB (60 to 70 GB) is processed by the service while its run is killed before the
// answer; the next run, planned from 60 GB (Pulumi's up does not refresh), asks for 80 GB. The disk step
// works its increment out from its own read of the disk; if the stopped +10 GB takes effect between
// that read and the order (provisioning ends in between), the increment is stale (+20 GB): nothing may be
// sent, and the next run orders only what is missing. The disk ends at 80 GB after two orders of +10 GB.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, test } from 'node:test'
import { createClient, newJournalSession, type OperationFrame } from '../api/index.js'
import { applyUpdate, planResource, silentLogger, type ValueMap } from '../core/index.js'
import { BASE, Harness } from '../../test/support/harness.js'
import { liteDisk } from './lite-disk.js'
import { lite } from './lite-family.js'
import { liteKeypair } from './lite-keypair.js'
import { liteVm } from './lite-vm.js'

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

describe('a disk upgrade edited after a stopped run, the stopped one taking effect meanwhile', () => {
  for (const race of [true, false])
    test(
      race
        ? 'it takes effect between the step read and the order: nothing is sent; the next run orders +10 GB, and the disk has 80 GB'
        : 'it took effect before the step read: +10 GB is ordered at once, and the disk has 80 GB',
      async () => {
        const h = new Harness({ quirks: { ignore_idempotency_keys: true } })
        const key = await h.create(liteKeypair(lite), { name: 'deploy-key' })
        const vm = await h.create(liteVm(lite), {
          product_id: 101,
          cycle: 'm',
          select_os: 'Debian-12',
          keypair_id: key.keypair_id ?? null,
          ssh_and_console_user: 'deployer',
          console_password: 'S3cretPass9',
        })
        const disks = liteDisk(lite)
        const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: Number(vm.id) }
        const at60 = await h.create(disks, config)
        h.emulator.advance(60_000)
        const path = `/v1/lites/disks/accounts/${String(at60.id)}`
        const dir = mkdtempSync(join(tmpdir(), 'stopped-change-'))
        directories.push(dir)
        const run = (fetch: (request: Request) => Promise<Response>) => {
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
        const upgrades = async () =>
          ((await h.control('GET', '/orders')) as { orders: { kind: string }[] }).orders.filter((o) => o.kind.endsWith('disk.upgrade'))

        // Run 1: 60 to 70 GB. The service processes it (Pending while it is provisioned); no answer reaches the run, which is killed.
        let processed!: () => void
        const placed = new Promise<void>((resolve) => {
          processed = resolve
        })
        const first = run(async (request) => {
          if (request.method !== 'PUT') return h.emulator.fetch(request)
          await h.emulator.fetch(request)
          processed()
          return new Promise<Response>(() => undefined)
        })
        void first.apply(70)
        await placed
        first.kill()

        // Run 2, from the 60 GB the state still holds, edited to 80 GB, seconds later.
        h.emulator.advance(race ? 500 : 5_000)
        let reads = 0
        const second = run(async (request) => {
          const response = await h.emulator.fetch(request)
          // Provisioning of the stopped +10 GB ends right after the step's own read.
          if (race && request.method === 'GET' && new URL(request.url).pathname === path && ++reads === 1) h.emulator.advance(5_000)
          return response
        })
        const edited = await second.apply(80)
        second.kill()
        if (race) {
          assert.equal((await upgrades()).length, 1, 'nothing sent on top of the stopped +10 GB')
          const stop = edited.diagnostics.map((d) => d.detail).join('\n')
          assert.match(
            stop,
            /Not sending PUT \S+: a run that was stopped sent another change of it .*in effect only since this change was worked out/s,
          )
          // Run 3 (the state still says 60 GB): its step reads 70 GB and orders +10 GB.
          const third = await run((request) => h.emulator.fetch(request)).apply(80)
          assert.equal(third.diagnostics.filter((d) => d.severity === 'error').length, 0, JSON.stringify(third.diagnostics))
        } else {
          assert.equal(edited.diagnostics.filter((d) => d.severity === 'error').length, 0, JSON.stringify(edited.diagnostics))
        }
        h.emulator.advance(10_000)
        const served = await h.read(disks, at60)
        assert.equal(served?.size, 80, 'the disk has the 80 GB asked')
        assert.equal((await upgrades()).length, 2, 'two orders of +10 GB')
      },
    )
})
