// Twin working directories on one machine under the real terraform, the per-user index shared: a
// service that ignores Idempotency-Key (and, once, one that honours it) while twin working directories
// (staging/ and prod/, the same nameless additional IP) apply at the same time. An unclear create must
// never adopt the twin's account (one account in two states, its own order unmanaged); a twin whose
// order is still being answered must not stop the other (a false stop); count = 2 killed mid-order
// gets both accounts back at the re-run (twins' accounts are interchangeable), and count = 3 then orders
// at once; and a service that honoured keys in an earlier run but ignores them now never gets a 502'd
// order sent again.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun, type Workspace } from '../support/e2e/harness.js'
import {
  accountedSince,
  caseLane,
  heldRequestDone,
  inTwoStates,
  journalEntries,
  journalEntry,
  keyLines,
  terraformVersions,
} from '../support/faults/accounted.js'
import { providerBlock, stateIds } from '../support/faults/exactly-once-cells.js'
import { byKind, freshEmulator, OPERATIONS, sleep } from '../support/faults/matrix.js'

const ip = OPERATIONS.find((o) => o.key === 'ip-create') as (typeof OPERATIONS)[number]
const ips = `resource "provider_baremetal_additional_ip" "ip" {\n  count = 2\n  product_id = 401\n  cycle = "m"\n}\n`
const named = (name: string) => `resource "provider_baremetal_additional_ip" "${name}" {\n  product_id = 401\n  cycle = "m"\n}\n`

describe('twin directories, a key-ignoring service, unclear and slow creates', { concurrency: 1 }, () => {
  const lane = caseLane()
  /**
   * A run of `count = 2` against a service that ignores keys, killed while the service holds both its
   * orders, which it then processes: the workspace, whose state holds neither account.
   */
  const killedWithBothOrdersHeld = async (client: Parameters<typeof lane.workspace>[0]): Promise<Workspace> => {
    await freshEmulator(lane.em, 200)
    await lane.em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: true } })
    const ws = await lane.workspace(client)
    await ws.write([providerBlock(), ips].join('\n'))
    await ws.init()
    const fault = await lane.em.control<{ fault_id: string }>('POST', '/faults', {
      method: 'POST',
      path: '/baremetal-additional-ips',
      mode: 'delay',
      delay_ms: 4000,
      count: 2,
    })
    const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
    const dir = join(ws.dir, '.terraform', 'provider-orders')
    try {
      for (let i = 0; i < 400; i++) {
        if ((await journalEntries(dir)).filter((e) => e.method === 'POST').length >= 2) break
        await sleep(25)
      }
      await sleep(200)
      running.signal('SIGKILL')
      await running.done
      await heldRequestDone(lane.em, fault.fault_id, 60_000)
      return ws
    } finally {
      running.signalGroup('SIGKILL')
      await running.done.catch(() => undefined)
    }
  }
  for (const client of terraformVersions().slice(0, 1)) {
    const directory = async (config: string): Promise<Workspace> => {
      const ws = await lane.workspace(client)
      await ws.write(config)
      await ws.init()
      return ws
    }
    /**
     * staging/ and prod/ with the same IP on a fresh emulator (one that ignores keys unless told),
     * its order held by `held` (a fault rule on the IP's POST, once), and staging/'s apply launched.
     */
    const twinsWithHeldOrder = async (requestTimeout: string | undefined, held: Record<string, unknown>, ignoreKeys = true) => {
      await freshEmulator(lane.em, 200)
      if (ignoreKeys) await lane.em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: true } })
      const config = [providerBlock(requestTimeout), block('resource', `provider_${ip.resource}`, 'ip', ip.inputs({}))].join('\n')
      const staging = await directory(config)
      const prod = await directory(config)
      const fault = await lane.em.control<{ fault_id: string }>('POST', '/faults', {
        method: 'POST',
        path: ip.order.path,
        count: 1,
        ...held,
      })
      const running = staging.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
      return { staging, prod, fault, running }
    }
    test(`${client.key}: staging/'s IP order is slower than request_timeout; prod/ applies the same IP meanwhile; every account in one state`, {
      timeout: 240_000,
    }, async (t) => {
      const { staging, prod, fault, running } = await twinsWithHeldOrder('1s', { mode: 'delay', delay_ms: 10_000 })
      try {
        await journalEntry(join(staging.dir, '.terraform', 'provider-orders'), 'POST', ip.order.path)
        await sleep(1500)
        const second = await prod.apply()
        const first = await running.done
        await heldRequestDone(lane.em, fault.fault_id, 60_000)
        await sleep(1000)
        const states = [await stateIds(staging.dir), await stateIds(prod.dir)]
        const both = new Set([...(states[0] ?? []), ...(states[1] ?? [])])
        const { orders, lost } = await accountedSince(lane.em, 0, both, first.stdout + first.stderr + second.stdout + second.stderr)
        t.diagnostic(
          `staging rc ${first.code}, prod rc ${second.code}; orders ${JSON.stringify(byKind(orders))} ${JSON.stringify(orders.map((o) => o.account_id))}; lost ${JSON.stringify(lost)}`,
        )
        t.diagnostic(`staging state ${JSON.stringify([...(states[0] ?? [])])}; prod state ${JSON.stringify([...(states[1] ?? [])])}`)
        for (const line of keyLines(first.stdout + first.stderr)) t.diagnostic(`  staging: ${line}`)
        for (const line of keyLines(second.stdout + second.stderr)) t.diagnostic(`  prod: ${line}`)
        assert.equal(second.code, 0, describeRun(second))
        assert.deepEqual(inTwoStates(states), [], `one account in two states\n${describeRun(first)}\n${describeRun(second)}`)
        assert.deepEqual(lost, [], `a paid account in no state, named by no message\n${describeRun(first)}\n${describeRun(second)}`)
      } finally {
        running.signalGroup('SIGKILL')
        await running.done.catch(() => undefined)
      }
    })
    for (const service of ['a key-ignoring service', 'a key-honouring service, fresh directories'] as const) {
      test(`${client.key}: ${service}: staging/'s IP order is processed but answered slowly; prod/ applies the same IP meanwhile: prod/ is not stopped`, {
        timeout: 240_000,
      }, async (t) => {
        const { staging, prod, running } = await twinsWithHeldOrder('4s', { mode: 'hang_after' }, service === 'a key-ignoring service')
        try {
          await journalEntry(join(staging.dir, '.terraform', 'provider-orders'), 'POST', ip.order.path)
          await sleep(300)
          const second = await prod.apply()
          const first = await running.done
          const states = [await stateIds(staging.dir), await stateIds(prod.dir)]
          const orders = (await lane.em.orders()).orders
          t.diagnostic(
            `staging rc ${first.code}, prod rc ${second.code}; orders ${JSON.stringify(byKind(orders))} ${JSON.stringify(orders.map((o) => o.account_id))}`,
          )
          t.diagnostic(`staging state ${JSON.stringify([...(states[0] ?? [])])}; prod state ${JSON.stringify([...(states[1] ?? [])])}`)
          for (const line of keyLines(second.stdout + second.stderr)) t.diagnostic(`  prod: ${line}`)
          assert.doesNotMatch(second.stdout + second.stderr, /Not ordering/, `prod/ stopped\n${describeRun(second)}`)
          assert.equal(second.code, 0, describeRun(second))
        } finally {
          running.signalGroup('SIGKILL')
          await running.done.catch(() => undefined)
        }
      })
    }
    test(`${client.key}: staging/'s slow IP order, terraform killed (SIGKILL), prod/ applies the same IP, staging/ applied again: every account in one state`, {
      timeout: 240_000,
    }, async (t) => {
      const { staging, prod, fault, running } = await twinsWithHeldOrder(undefined, { mode: 'delay', delay_ms: 15_000 })
      try {
        await journalEntry(join(staging.dir, '.terraform', 'provider-orders'), 'POST', ip.order.path)
        await sleep(200)
        running.signal('SIGKILL')
        const killed = await running.done
        const second = await prod.apply()
        const again = await staging.apply()
        await heldRequestDone(lane.em, fault.fault_id, 60_000)
        await sleep(1000)
        const states = [await stateIds(staging.dir), await stateIds(prod.dir)]
        const both = new Set([...(states[0] ?? []), ...(states[1] ?? [])])
        const output = again.stdout + again.stderr + second.stdout + second.stderr
        const { orders, lost } = await accountedSince(lane.em, 0, both, output)
        t.diagnostic(
          `staging killed rc ${killed.code}, prod rc ${second.code}, staging again rc ${again.code}; orders ${JSON.stringify(byKind(orders))} ${JSON.stringify(orders.map((o) => o.account_id))}; lost ${JSON.stringify(lost)}`,
        )
        t.diagnostic(`staging state ${JSON.stringify([...(states[0] ?? [])])}; prod state ${JSON.stringify([...(states[1] ?? [])])}`)
        for (const line of keyLines(again.stdout + again.stderr)) t.diagnostic(`  staging again: ${line}`)
        assert.equal(second.code, 0, describeRun(second))
        assert.deepEqual(inTwoStates(states), [], `one account in two states\n${describeRun(again)}`)
        assert.deepEqual(lost, [], `a paid account in no state, named by no message\n${describeRun(again)}`)
      } finally {
        running.signalGroup('SIGKILL')
        await running.done.catch(() => undefined)
      }
    })
    test(`${client.key}: count = 2 killed with both orders held: the re-run gives each instance one of the two accounts; count = 3 then orders one more without a stop`, {
      timeout: 300_000,
    }, async (t) => {
      const ws = await killedWithBothOrdersHeld(client)
      const again = await ws.apply()
      t.diagnostic(`re-run rc ${again.code}`)
      for (const line of keyLines(again.stdout + again.stderr)) t.diagnostic(`  re-run: ${line}`)
      // The twins' orders made interchangeable accounts: each instance takes one, nothing is imported
      // or ordered again (on a loaded machine the kill can come after one order was answered: that
      // instance takes its answer, the other the account left).
      assert.equal(again.code, 0, describeRun(again))
      const ordered = (await lane.em.orders()).orders.map((o) => o.account_id)
      assert.equal(ordered.length, 2, `orders ${JSON.stringify(ordered)}`)
      assert.deepEqual([...(await ipsInState(ws.dir)).values()].sort(), [...ordered].sort())
      const plan = await ws.plan(['-detailed-exitcode'])
      assert.equal(plan.code, 0, `both in state: nothing to do\n${describeRun(plan)}`)
      await ws.write([providerBlock(), ips.replace('count = 2', 'count = 3')].join('\n'))
      const more = await ws.apply()
      const state = await stateIds(ws.dir)
      const { orders, lost } = await accountedSince(lane.em, 0, state, more.stdout + more.stderr)
      t.diagnostic(
        `count 3 rc ${more.code}; orders ${JSON.stringify(byKind(orders))}; state ${JSON.stringify([...state])}; lost ${JSON.stringify(lost)}`,
      )
      for (const line of keyLines(more.stdout + more.stderr)) t.diagnostic(`  count 3: ${line}`)
      assert.doesNotMatch(more.stdout + more.stderr, /Not ordering/, `count = 3 stopped\n${describeRun(more)}`)
      assert.equal(more.code, 0, describeRun(more))
      assert.equal(byKind(orders)['additional_ip.create'], 3)
    })
    test(`${client.key}: count = 2 killed with both orders held, re-run with count = 3: the re-run takes both accounts over and orders the third without a stop`, {
      timeout: 300_000,
    }, async (t) => {
      const ws = await killedWithBothOrdersHeld(client)
      // The killed run's two accounts exist and no state holds them; the configuration now asks for a third.
      await ws.write([providerBlock(), ips.replace('count = 2', 'count = 3')].join('\n'))
      const again = await ws.apply()
      const state = await stateIds(ws.dir)
      const { orders, lost } = await accountedSince(lane.em, 0, state, again.stdout + again.stderr)
      t.diagnostic(
        `re-run rc ${again.code}; orders ${JSON.stringify(orders.map((o) => o.account_id))}; state ${JSON.stringify([...state])}`,
      )
      for (const line of keyLines(again.stdout + again.stderr)) t.diagnostic(`  re-run: ${line}`)
      assert.doesNotMatch(
        again.stdout + again.stderr,
        /Not ordering/,
        `the third create stopped on an account the re-run took over\n${describeRun(again)}`,
      )
      assert.equal(again.code, 0, describeRun(again))
      assert.equal(byKind(orders)['additional_ip.create'], 3, 'the two killed orders and one more')
      assert.deepEqual([...(await ipsInState(ws.dir)).values()].sort(), orders.map((o) => o.account_id).sort())
      assert.deepEqual(lost, [])
    })
    test(`${client.key}: a service that honoured keys in an earlier run and ignores them now: a 502 after a processed order is not sent again`, {
      timeout: 300_000,
    }, async (t) => {
      await freshEmulator(lane.em, 200)
      const ws = await lane.workspace(client)
      await ws.write([providerBlock(), named('a')].join('\n'))
      await ws.init()
      const applied = await ws.apply()
      assert.equal(applied.code, 0, describeRun(applied))
      const seen = (await lane.em.orders()).orders.length
      await lane.em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: true } })
      await lane.em.control('POST', '/faults', {
        method: 'POST',
        path: '/baremetal-additional-ips',
        mode: 'error_after',
        status: 502,
        count: 1,
      })
      await ws.write([providerBlock(), named('a'), named('b')].join('\n'))
      const again = await ws.apply()
      const state = await stateIds(ws.dir)
      const { orders, lost } = await accountedSince(lane.em, seen, state, again.stdout + again.stderr)
      t.diagnostic(
        `re-run rc ${again.code}; new orders ${JSON.stringify(byKind(orders))} ${JSON.stringify(orders.map((o) => o.account_id))}; state ${JSON.stringify([...state])}; lost ${JSON.stringify(lost)}`,
      )
      for (const line of keyLines(again.stdout + again.stderr)) t.diagnostic(`  re-run: ${line}`)
      assert.equal(byKind(orders)['additional_ip.create'], 1, 'one new IP ordered once')
      assert.deepEqual(lost, [])
    })
  }
})

/** The ids of `provider_baremetal_additional_ip.ip[i]` in the directory's state, by index. */
async function ipsInState(dir: string): Promise<Map<number, string>> {
  const text = await readFile(join(dir, 'terraform.tfstate'), 'utf8').catch(() => '{}')
  const state = JSON.parse(text) as {
    resources?: { type: string; name: string; instances: { index_key?: unknown; attributes: { id?: unknown } }[] }[]
  }
  const ips = (state.resources ?? []).filter((r) => r.type === 'provider_baremetal_additional_ip' && r.name === 'ip')
  return new Map(ips.flatMap((r) => r.instances.map((i) => [Number(i.index_key), String(i.attributes.id)] as [number, string])))
}
