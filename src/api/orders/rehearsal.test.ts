// A plan's rehearsal of a create (OperationFrame.rehearsal): the order reports what the apply would do
// with it as the journal shows it (adopt a killed run's answered order, repeat one that had no answer,
// or order), and nothing is sent or written: the journal's entries stay as they were, untaken.
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, test } from 'node:test'
import { ORDER, ok, type RecordedRequest, testClient, VM_BODY } from '../../../test/support/fake-fetch.js'
import type { OperationFrame, Rehearsed } from '../operation.js'
import { newJournalSession } from './journal.js'

const directories: string[] = []
function journal(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rehearsal-test-'))
  directories.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const keyOf = (r: RecordedRequest) => r.headers.get('idempotency-key') ?? ''
const files = (dir: string) =>
  readdirSync(dir)
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'))

/** A provider process as the journal sees it: alive until killed. */
function killable(pid: number) {
  let alive = true
  return {
    journalOptions: { session: newJournalSession({ pid, token: `process-${pid}` }), alive: (p: number) => p !== pid || alive },
    kill: () => {
      alive = false
    },
  }
}

/** Rehearses a VM create with a new client on `dir`: what it reported, and the requests it sent. */
async function rehearse(dir: string): Promise<{ reported: Rehearsed[]; requests: readonly RecordedRequest[] }> {
  const reported: Rehearsed[] = []
  const frame: OperationFrame = { onFinish: () => undefined, rehearsal: (outcome) => reported.push(outcome) }
  const { client, requests } = testClient([], { journalDirectory: dir, operation: () => frame })
  await assert.rejects(client.lites.createVm(VM_BODY), { name: 'RehearsalEnded' })
  return { reported, requests }
}

describe("a plan's rehearsal of a create", () => {
  test('no earlier order: it reports an order, and sends nothing', async () => {
    const { reported, requests } = await rehearse(journal())
    assert.deepEqual(reported, [{ kind: 'order' }])
    assert.equal(requests.length, 0)
  })

  test("a killed run's answered order: it reports the account the apply adopts, and takes nothing over", async () => {
    const dir = journal()
    const killed = killable(810_001)
    const run: OperationFrame = { onFinish: () => undefined }
    const first = testClient([(r) => ok([], { 'idempotency-key': keyOf(r) }), (r) => ok(ORDER, { 'idempotency-key': keyOf(r) })], {
      journalDirectory: dir,
      operation: () => run,
      journalOptions: killed.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    killed.kill()
    const before = files(dir)
    const { reported, requests } = await rehearse(dir)
    assert.equal(reported.length, 1)
    assert.equal(reported[0]?.kind, 'adopt')
    assert.equal(reported[0]?.kind === 'adopt' ? reported[0].accountId : '', ORDER.account_id)
    assert.equal(requests.length, 0)
    assert.deepEqual(files(dir), before, 'the journal is left as it was')
  })

  test('a non-order change before the order is not sent either', async () => {
    const frame: OperationFrame = { onFinish: () => undefined, rehearsal: () => undefined }
    const { client, requests } = testClient([], { operation: () => frame })
    await assert.rejects(client.lites.createKeypair({ name: 'deploy' }), { name: 'RehearsalEnded' })
    assert.equal(requests.length, 0)
  })
})
