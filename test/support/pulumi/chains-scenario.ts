// The chains program of one language under the real CLI, as one stack carried through a user's steps:
// a preview refusing bad input, up, an empty preview, in-place updates and a replacement, refresh after
// drift made through the API, `pulumi import` of every resource type into a second stack followed by an
// empty preview, secrets checked in `stack export` and every command's output, then destroy in
// dependency order. Each language's test file calls chainsScenario() with its driver.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Emulator } from '../e2e/harness.js'
import { BAD, CONSOLE_PASSWORD, CREATE_ORDER, DEPENDS_ON, EDITED, IMPORTED, INITIAL, RESOURCES } from './chains.js'
import type { Driver } from './drivers.js'
import { errorsOf, type OpResult, PulumiHome, type Stack, stepsOf } from './cli-harness.js'

function describeOp(what: string, result: OpResult): string {
  return `${what} ${result.ok ? 'succeeded' : 'failed'}:\n${result.output}`
}

function byKind(orders: readonly { kind: string }[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const order of orders) out[order.kind] = (out[order.kind] ?? 0) + 1
  return out
}

/** Every string value under a JSON value, for the secret scan. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value)
  else if (Array.isArray(value)) for (const v of value) strings(v, out)
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out)
  return out
}

const SECRET_WRAPPER = '4dabf18193072939515e22adb298388d'

/** Plaintext values of secrets in a state exported with --show-secrets (values under a secret wrapper). */
function secretValues(value: unknown, out: Set<string> = new Set(), inSecret = false): Set<string> {
  if (typeof value === 'string') {
    if (inSecret && value.length >= 8) out.add(value)
    return out
  }
  if (Array.isArray(value)) {
    for (const v of value) secretValues(v, out, inSecret)
    return out
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>
    const secret = inSecret || SECRET_WRAPPER in record
    for (const [key, v] of Object.entries(record)) if (key !== SECRET_WRAPPER) secretValues(v, out, secret)
    // A secret holding JSON text (raw): its inner string values are secret too.
    if (secret && typeof record.plaintext === 'string') {
      try {
        for (const s of strings(JSON.parse(record.plaintext))) if (s.length >= 8) out.add(s)
      } catch {
        out.add(record.plaintext)
      }
    }
  }
  return out
}

/** Every language's program holds every resource of RESOURCES, each link through an `accountId` output. */
export function chainsScenario(language: string, makeDriver: (home: PulumiHome) => Driver | Promise<Driver>): void {
  const names = Object.keys(RESOURCES)
  const expectedNames = [...names].sort()
  const createOrders: Record<string, number> = {}
  for (const name of names) {
    const kind = CREATE_ORDER[name]
    if (kind) createOrders[kind] = (createOrders[kind] ?? 0) + 1
  }
  const dependencies = DEPENDS_ON.filter(([a, b]) => names.includes(a) && names.includes(b))
  describe(`the chains program in ${language} under the real pulumi CLI`, () => {
    let emulator: Emulator
    let home: PulumiHome
    let driver: Driver
    let stack: Stack
    let imported: Stack | undefined
    const ordersNow = async () => (await emulator.orders()).orders
    const mutations = async (since: number) =>
      (await emulator.requests(since)).filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.path}`)

    before(async () => {
      emulator = await Emulator.start({ provisioningDelayMs: 100 })
      home = await PulumiHome.create(emulator)
      driver = await makeDriver(home)
      stack = await driver.stack('dev')
    })
    after(async () => {
      await emulator?.stop()
    })

    test('preview refuses bad input before any call, naming each field and its rule', async () => {
      await driver.configure(stack, BAD)
      try {
        const seq = await emulator.lastSeq()
        const result = await driver.preview(stack)
        assert.equal(result.ok, false, describeOp('a preview with bad input', result))
        const errors = errorsOf(result).join('\n')
        assert.match(
          errors,
          /property label value .* has a problem: .*255/,
          `the preview names label and its length rule:\n${result.output}`,
        )
        assert.match(
          errors,
          /property powerState value \{reboot\} has a problem: .*"on", "off"/,
          `the preview names powerState and its values:\n${result.output}`,
        )
        assert.deepEqual(await mutations(seq), [], 'a refused preview changed something at the API')
        assert.equal((await ordersNow()).length, 0)
      } finally {
        await driver.configure(stack, INITIAL)
      }
    })

    test('the preview of the first up shows the catalog price of the paid orders and orders nothing', async () => {
      const result = await driver.preview(stack)
      assert.ok(result.ok, describeOp('preview', result))
      assert.match(result.output, /This plan places paid orders: [1-9]\d*/, describeOp('preview', result))
      assert.match(result.output, /new product \d+ "[^"]+": [1-9]\d* per \w+ cycle/, describeOp('preview', result))
      assert.equal((await ordersNow()).length, 0)
    })

    test('up creates the three chains, one paid order per paid resource', async () => {
      const result = await driver.up(stack)
      assert.ok(result.ok, describeOp('up', result))
      const state = await stack.resources()
      assert.deepEqual(Object.keys(state).sort(), expectedNames)
      for (const [name, resource] of Object.entries(state)) assert.match(resource.id ?? '', /^\d+(:\d+)?$/, `${name} has an id`)
      assert.deepEqual(byKind(await ordersNow()), createOrders)
      // Every account outputs its id as the integer the links take (no conversion in the program).
      for (const name of names.filter((n) => CREATE_ORDER[n] !== undefined)) {
        assert.equal(state[name]?.outputs?.accountId, Number(state[name]?.id), `${name}'s accountId is its id as a number`)
      }
      for (const name of ['server', 'vm', 'pro-vm', 'restored'].filter((n) => names.includes(n))) {
        assert.equal((await emulator.account(state[name]?.id ?? ''))?.status, 'Active', `${name} is Active`)
      }
    })

    test('preview --expect-no-changes right after up', async () => {
      const result = await driver.preview(stack, { expectNoChanges: true })
      assert.ok(result.ok, describeOp('preview --expect-no-changes', result))
    })

    test('in-place changes preview as updates and a create-only change as a replacement; up applies them', async () => {
      await driver.configure(stack, EDITED)
      const seq = await emulator.lastSeq()
      const preview = await driver.preview(stack)
      assert.ok(preview.ok, describeOp('preview', preview))
      assert.deepEqual(await mutations(seq), [], 'the preview changed something at the API')
      const steps = stepsOf(preview)
      assert.equal(steps.server?.op, 'update', JSON.stringify(steps.server))
      assert.deepEqual([...(steps.server?.diffs ?? [])].sort(), ['label', 'powerState', 'rebuildOs', 'resetTrigger'])
      assert.equal(steps.vm?.op, 'update', JSON.stringify(steps.vm))
      assert.deepEqual(steps.vm?.diffs, ['vmName'])
      assert.equal(steps['pro-key']?.op, 'replace', JSON.stringify(steps['pro-key']))
      assert.deepEqual(steps['pro-key']?.diffs, ['name'])
      // The VM takes the new keypair in place (keypairId is not create-only for a Lite Pro VM).
      assert.equal(steps['pro-vm']?.op, 'update', JSON.stringify(steps['pro-vm']))
      assert.deepEqual(steps['pro-vm']?.diffs, ['keypairId'])
      const others = Object.entries(steps).filter(([name]) => !['server', 'vm', 'pro-key', 'pro-vm'].includes(name))
      assert.deepEqual(
        others.filter(([, s]) => s.op !== 'same').map(([name, s]) => `${name}: ${s.op}`),
        [],
      )

      const before = (await ordersNow()).length
      const before2 = await emulator.lastSeq()
      const up = await driver.up(stack)
      assert.ok(up.ok, describeOp('up', up))
      assert.deepEqual(byKind((await ordersNow()).slice(before)), {}, 'an in-place change or a keypair replacement ordered something')
      const state = await stack.resources()
      const server = state.server?.id ?? ''
      const applied = await mutations(before2)
      for (const call of ['', '/rebuild', '/state/reset', '/state/off'].map(
        (path) => `PUT /v1/baremetals/${path.startsWith('/state') ? 'accounts/' : ''}${server}${path}`,
      )) {
        assert.equal(applied.filter((m) => m === call).length, 1, `${call} was not sent once: ${applied.join(', ')}`)
      }
      const account = await emulator.account(server)
      assert.equal(account?.extra_details.label, 'chains-web-02')
      assert.match(JSON.stringify(await emulator.account(state.vm?.id ?? '')), /chains-vm-02/)
      const proKey = Number(state['pro-key']?.outputs?.keypairId)
      assert.equal(
        (await emulator.account(state['pro-vm']?.id ?? ''))?.extra_details.keypair_id,
        proKey,
        'the Lite Pro VM uses the new keypair',
      )
      const again = await driver.preview(stack, { expectNoChanges: true })
      assert.ok(again.ok, describeOp('preview --expect-no-changes after the update', again))
    })

    test('refresh after a label changed through the API takes the drift in; the next up puts it back', async () => {
      const server = (await stack.resources()).server?.id ?? ''
      await emulator.api('PUT', `/baremetals/${server}`, { label: 'changed-by-hand' })
      const refreshed = await stack.refresh()
      assert.ok(refreshed.ok, describeOp('refresh', refreshed))
      assert.equal((await stack.resources()).server?.outputs?.label, 'changed-by-hand')
      const preview = await driver.preview(stack)
      assert.ok(preview.ok, describeOp('preview', preview))
      assert.equal(stepsOf(preview).server?.op, 'update')
      assert.deepEqual(stepsOf(preview).server?.diffs, ['label'])
      const up = await driver.up(stack)
      assert.ok(up.ok, describeOp('up', up))
      assert.equal((await emulator.account(server))?.extra_details.label, 'chains-web-02')
      const again = await driver.preview(stack, { expectNoChanges: true })
      assert.ok(again.ok, describeOp('preview --expect-no-changes after the drift was put back', again))
    })

    test('pulumi import of every resource type by id, then preview --expect-no-changes', async () => {
      const state = await stack.resources()
      imported = await driver.stack('imported')
      await driver.configure(imported, IMPORTED)
      const file = join(imported.dir, 'import.json')
      const resources = names.map((name) => ({ type: RESOURCES[name], name, id: state[name]?.id ?? '' }))
      writeFileSync(file, JSON.stringify({ resources }))
      const before = (await ordersNow()).length
      const result = await (await imported.importer()).withEvents([
        'import',
        '--file',
        file,
        '--yes',
        '--skip-preview',
        '--generate-code=false',
        '--protect=false',
      ])
      assert.ok(result.ok, describeOp('import', result))
      const adopted = await imported.resources()
      assert.deepEqual(Object.keys(adopted).sort(), expectedNames)
      for (const [name, resource] of Object.entries(adopted)) assert.equal(resource.id, state[name]?.id, `${name} adopted by id`)
      const preview = await driver.preview(imported, { expectNoChanges: true })
      assert.ok(preview.ok, describeOp('preview --expect-no-changes after import', preview))
      assert.equal((await ordersNow()).length, before, 'import or preview ordered something')
    })

    test('secrets (private keys, the console password, raw) never appear in plaintext in stack export or any output', async () => {
      const secrets = new Set<string>([CONSOLE_PASSWORD])
      for (const s of [stack, ...(imported ? [imported] : [])]) secretValues(await s.export(true), secrets)
      const keys = [...secrets].filter((s) => s.includes('PRIVATE KEY'))
      assert.ok(keys.length >= 3, `the private keys are secrets of the state (found ${keys.length})`)
      assert.ok(
        [...secrets].some((s) => s.includes('"account_id"') || s.includes('account_id')),
        'raw is a secret of the state',
      )
      const leaks: string[] = []
      for (const s of [stack, ...(imported ? [imported] : [])]) {
        const exported = JSON.stringify(await s.export())
        for (const secret of secrets) if (exported.includes(secret)) leaks.push(`stack export of ${s.name}: ${secret.slice(0, 40)}`)
      }
      const transcript = home.transcript.join('\n')
      for (const secret of secrets) if (transcript.includes(secret)) leaks.push(`command output: ${secret.slice(0, 40)}`)
      assert.deepEqual(leaks, [])
    })

    test('destroy deletes in dependency order and orders nothing', async () => {
      if (imported) await imported.ok(['stack', 'rm', '--force', '--yes'])
      const state = await stack.resources()
      const before = (await ordersNow()).length
      const result = await stack.destroy()
      assert.ok(result.ok, describeOp('destroy', result))
      const done = new Map<string, number>()
      const started = new Map<string, number>()
      result.events.forEach((event, index) => {
        if (event.kind !== 'pre' && event.kind !== 'outputs') return
        if (event.op !== 'delete' || !event.type.startsWith('provider:index:')) return
        const name = event.urn.slice(event.urn.lastIndexOf('::') + 2)
        if (event.kind === 'pre') started.set(name, index)
        else done.set(name, index)
      })
      assert.deepEqual([...done.keys()].sort(), expectedNames, 'every resource was deleted')
      for (const [dependant, dependency] of dependencies) {
        assert.ok(
          (done.get(dependant) ?? Number.POSITIVE_INFINITY) < (started.get(dependency) ?? -1),
          `${dependency} was deleted before its dependant ${dependant} was gone`,
        )
      }
      assert.equal((await ordersNow()).length, before)
      for (const name of names.filter((n) => CREATE_ORDER[n] !== undefined)) {
        const account = await emulator.account(state[name]?.id ?? '')
        assert.ok(account === undefined || ['Terminated', 'Cancelled'].includes(account.status), `${name} is ${account?.status}`)
      }
    })
  })
}
