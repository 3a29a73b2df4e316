// Issue 8, the gap between handing a new id to Terraform and Terraform persisting its state (a remote
// backend persists only every 20 s and at the end): terraform SIGKILLed (with its provider) in that
// gap, with the state as a remote backend would still have it (from before the apply), then applied
// again, places no second order and never takes the account (issue 25: an order handed to an engine
// belongs to that engine's state, and taking it could put one account in two states): the re-run
// stops naming it and the import command, and after the import everything is managed. The same stop
// follows a run that ended normally when a remote backend lost what it saved after the provider closed
// (Terraform's http backend here). A local backend has saved the account before the close, so
// `terraform state rm` then orders anew as Terraform means it, and so does a -target twin; with a remote
// backend the twin stops until a plan reads the state.
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun, ref } from '../support/e2e/harness.js'
import { childrenOf, exitOf, oneLane, providerBlock, rerun, stateIds } from '../support/faults/exactly-once-cells.js'
import { byKind, freshEmulator, type Ids, OPERATIONS, orderPlaced } from '../support/faults/matrix.js'
import { Report } from '../support/faults/report.js'

const report = new Report('terraform-persist-gap')
const op = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]
const ADDRESS = `provider_${op.resource}.r`

function vmConfig(ids: Ids): string {
  return [providerBlock(), block('resource', `provider_${op.resource}`, 'r', op.inputs(ids))].join('\n')
}

/**
 * Two VMs, the second ordered only once the first one's create returned its id to Terraform (its
 * name refers to the first): when the second order exists, the first id was handed over and the
 * provider is still open, busy with the second (Terraform closes a provider after its last resource).
 */
function pairConfig(ids: Ids): string {
  const second = block('resource', `provider_${op.resource}`, 'second', { ...op.inputs(ids), vm_name: ref(`"\${${ADDRESS}.vm_name}-b"`) })
  return `${vmConfig(ids)}\n${second}`
}

/**
 * Terraform's http backend served on loopback: GET answers the state last saved (404 before any),
 * POST saves one. `lose` forgets the last save, as a backend that never got it; `restore` puts one back.
 */
async function httpStateBackend() {
  let state: string | undefined
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.method === 'GET') {
        response.writeHead(state === undefined ? 404 : 200).end(state ?? '')
        return
      }
      if (request.method === 'POST') state = Buffer.concat(chunks).toString('utf8')
      else if (request.method === 'DELETE') state = undefined
      response.writeHead(200).end()
    })
  })
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready))
  const { port } = server.address() as AddressInfo
  return {
    address: `http://127.0.0.1:${port}/state`,
    saved: () => state ?? '',
    lose: () => {
      state = undefined
    },
    restore: (saved: string) => {
      state = saved
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
}

async function clearDirectory(dir: string): Promise<void> {
  for (const name of ['terraform.tfstate', 'terraform.tfstate.backup']) await rm(join(dir, name), { force: true })
  await rm(join(dir, '.terraform', 'provider-orders'), { recursive: true, force: true })
}

describe('an id handed to Terraform whose state was never persisted (issue 8)', { concurrency: 1 }, () => {
  const lane = oneLane()

  test('SIGKILL right after a create returned its id, state from before the apply: the re-run orders nothing more, names the account, and an import manages both', {
    timeout: 120_000,
  }, async () => {
    const { em, ws } = lane
    // Long enough a wait that the second VM is still waiting when the kill comes.
    await freshEmulator(em, 1_500)
    await clearDirectory(ws.dir)
    const ids = await op.setup(em)
    const seen = (await em.orders()).orders.length
    await ws.write(pairConfig(ids))
    await ws.init()
    // Before the apply there is no state: what a remote backend still holds if it never persisted.
    const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
    await orderPlaced(em, op.kind, seen + 1)
    const provider = childrenOf(running.pid).find(() => true)
    running.signalGroup('SIGKILL')
    const first = await running.done
    if (provider !== undefined) assert.ok((await exitOf(provider)) >= 0, 'the provider exited')
    for (const name of ['terraform.tfstate', 'terraform.tfstate.backup']) await rm(join(ws.dir, name), { force: true })
    assert.match(first.stdout, new RegExp(`${ADDRESS.replace('.', '\\.')}: Creation complete`), 'the first id was handed to Terraform')
    const [firstId, secondId] = (await em.orders()).orders.slice(seen).map((o) => String(o.account_id))

    const stopped = await ws.apply()
    const text = (stopped.stdout + stopped.stderr).replace(/\s+/g, ' ')
    assert.equal(stopped.code, 1, describeRun(stopped))
    assert.match(text, new RegExp(`account ${firstId} was ordered from this working directory`), describeRun(stopped))
    assert.match(text, /terraform import <address> <id>/)
    assert.deepEqual(byKind((await em.orders()).orders.slice(seen)), { [op.kind]: 2 }, 'nothing ordered again')
    const imported = await ws.run(['import', '-no-color', '-input=false', ADDRESS, String(firstId)])
    assert.equal(imported.code, 0, describeRun(imported))

    const { again, final, managed, lost, placed } = await rerun(lane, seen)
    const intended = { [op.kind]: 2 }
    report.add({
      kind: 'cell',
      front: 'terraform',
      op: op.key,
      fault: 'state not persisted',
      intended,
      placed,
      lost,
      outcome: first.code === -1 ? 'killed' : `rc ${first.code}`,
      converged: final.code === 0,
      status: placed[op.kind] === 2 && lost.length === 0 && again.code === 0 && final.code === 0 ? 'pass' : 'fail',
    })
    const runs = `${describeRun(first)}\n${describeRun(stopped)}\n${describeRun(again)}`
    assert.deepEqual(placed, intended, `orders placed\n${runs}`)
    assert.deepEqual(lost, [], `accounts ordered but not managed\n${runs}`)
    assert.deepEqual([...managed].sort(), [firstId, secondId].sort())
    assert.equal(again.code, 0, runs)
    assert.equal(final.code, 0, describeRun(final))
  })

  test('a local state saves the account before the provider closes: `terraform state rm` straight after the run and apply again orders a new one, as Terraform means it', {
    timeout: 120_000,
  }, async () => {
    const { em, ws } = lane
    await freshEmulator(em, 200)
    await clearDirectory(ws.dir)
    const ids = await op.setup(em)
    const seen = (await em.orders()).orders.length
    await ws.write(vmConfig(ids))
    const first = await ws.apply()
    assert.equal(first.code, 0, describeRun(first))
    const removed = await ws.run(['state', 'rm', '-no-color', ADDRESS])
    assert.equal(removed.code, 0, describeRun(removed))
    const again = await ws.apply()
    assert.equal(again.code, 0, describeRun(again))
    const orders = (await em.orders()).orders.slice(seen)
    assert.deepEqual(byKind(orders), { [op.kind]: 2 }, `the user asked for a new server\n${describeRun(again)}`)
    assert.ok((await stateIds(ws.dir)).has(String(orders[1]?.account_id)), 'the new one is managed')
  })

  test('a remote backend that lost the state saved at the end of a normal run: the re-run stops naming the account; with the state kept, a -target twin stops until a plan reads it', {
    timeout: 180_000,
  }, async () => {
    const { em, ws } = lane
    await freshEmulator(em, 200)
    await clearDirectory(ws.dir)
    const backend = await httpStateBackend()
    try {
      const ids = await op.setup(em)
      const seen = (await em.orders()).orders.length
      const remote = (config: string) =>
        config.replace('terraform {\n', `terraform {\n  backend "http" {\n    address = "${backend.address}"\n  }\n`)
      await ws.write(remote(vmConfig(ids)))
      await ws.ok(['init', '-reconfigure', '-no-color', '-input=false'])
      const first = await ws.apply()
      assert.equal(first.code, 0, describeRun(first))
      const firstId = String((await em.orders()).orders.slice(seen)[0]?.account_id)
      assert.ok(backend.saved().includes(`"${firstId}"`), 'the backend saved the account')

      // The backend loses what the run saved (Terraform saves a remote state after closing the provider).
      const kept = backend.saved()
      backend.lose()
      const stopped = await ws.apply()
      assert.equal(stopped.code, 1, describeRun(stopped))
      assert.match(
        (stopped.stdout + stopped.stderr).replace(/\s+/g, ' '),
        new RegExp(`account ${firstId} was ordered from this working directory`),
      )
      assert.deepEqual(byKind((await em.orders()).orders.slice(seen)), { [op.kind]: 1 }, 'nothing was ordered again')

      // The state is back (pushed by hand, say): a twin applied with -target reads nothing of it, and stops saying how to go on.
      backend.restore(kept)
      await ws.write(remote(`${vmConfig(ids)}\n${block('resource', `provider_${op.resource}`, 'twin', op.inputs(ids))}`))
      const targeted = await ws.apply([`-target=provider_${op.resource}.twin`])
      assert.equal(targeted.code, 1, describeRun(targeted))
      assert.match((targeted.stdout + targeted.stderr).replace(/\s+/g, ' '), /run terraform plan once without them/)
      const plan = await ws.plan()
      assert.equal(plan.code, 2, describeRun(plan))
      const twin = await ws.apply([`-target=provider_${op.resource}.twin`])
      assert.equal(twin.code, 0, describeRun(twin))
      assert.deepEqual(byKind((await em.orders()).orders.slice(seen)), { [op.kind]: 2 }, 'the twin is ordered once')
    } finally {
      await backend.close()
      // Back to the local state for whatever runs in this directory next.
      await rm(join(ws.dir, '.terraform', 'terraform.tfstate'), { force: true })
    }
  })
})
