// A method of a resource under the real CLI: the lite example (examples/pulumi/<language>-lite) calls
// `vm.power(...)` when the stack's `powerAction` is set. A preview never runs it; an up runs it once on
// the VM the stack holds, changing nothing in the stack's state; a wrong argument fails the preview and
// the up before any call. Each language's test file calls methodsScenario() with its driver.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Emulator, mutating } from '../e2e/harness.js'
import type { Driver } from './drivers.js'
import { errorsOf, type OpResult, PulumiHome, type Stack, stepsOf } from './cli-harness.js'

function describeOp(what: string, result: OpResult): string {
  return `${what} ${result.ok ? 'succeeded' : 'failed'}:\n${result.output}`
}

/**
 * What the engine keeps of each resource of ours, secrets decrypted (every save encrypts them anew),
 * without the bookkeeping it rewrites on every up.
 */
async function kept(stack: Stack) {
  const resources = (await stack.export(true)).deployment.resources ?? []
  return Object.fromEntries(
    resources.filter((r) => r.type.startsWith('provider:index:')).map((r) => [r.urn, { id: r.id, inputs: r.inputs, outputs: r.outputs }]),
  )
}

export function methodsScenario(language: string, makeDriver: (home: PulumiHome) => Driver | Promise<Driver>): void {
  describe(`a resource method in ${language} under the real pulumi CLI: vm.power`, () => {
    let emulator: Emulator
    let home: PulumiHome
    let driver: Driver
    let stack: Stack
    let vmId = ''
    const vmState = async () => (await emulator.api<{ status: string }>('GET', `/lites/accounts/${vmId}/vm-details`)).status

    before(async () => {
      emulator = await Emulator.start({ provisioningDelayMs: 100 })
      home = await PulumiHome.create(emulator)
      driver = await makeDriver(home)
      stack = await driver.stack('methods')
    })
    after(async () => {
      await emulator?.stop()
    })

    test('up without the call: the VM is created and running', async () => {
      const result = await driver.up(stack)
      assert.ok(result.ok, describeOp('up', result))
      vmId = (await stack.resources()).vm?.id ?? ''
      assert.match(vmId, /^\d+$/)
      assert.equal(await vmState(), 'running')
    })

    test('a wrong argument fails the preview and the up, naming it and its rule, before any call', async () => {
      await stack.setConfig({ powerAction: 'halt' })
      try {
        const seq = await emulator.lastSeq()
        for (const [what, run] of [
          ['preview', () => driver.preview(stack)],
          ['up', () => driver.up(stack)],
        ] as const) {
          const result = await run()
          assert.equal(result.ok, false, describeOp(`${what} with powerAction halt`, result))
          assert.match(errorsOf(result).join('\n'), /LiteVm\/power.*state: .*must be one of "start", "stop"/s, describeOp(what, result))
        }
        assert.deepEqual(mutating(await emulator.requests(seq)), [], 'a refused call changed something at the API')
        assert.equal(await vmState(), 'running')
      } finally {
        await stack.setConfig({ powerAction: null })
      }
    })

    test('a preview with the call runs nothing: the VM stays running', async () => {
      await stack.setConfig({ powerAction: 'stop' })
      const seq = await emulator.lastSeq()
      const result = await driver.preview(stack)
      assert.ok(result.ok, describeOp('preview', result))
      assert.deepEqual(mutating(await emulator.requests(seq)), [], 'a preview ran the method')
      assert.equal(await vmState(), 'running')
    })

    test("up with the call stops the VM once; the stack's state is unchanged", async () => {
      const before = await kept(stack)
      const seq = await emulator.lastSeq()
      const result = await driver.up(stack)
      assert.ok(result.ok, describeOp('up', result))
      assert.deepEqual(mutating(await emulator.requests(seq)), [`PUT /v1/lites/accounts/${vmId}/vm-state/stop`])
      assert.equal(await vmState(), 'stopped')
      for (const [name, step] of Object.entries(stepsOf(result))) assert.equal(step.op, 'same', `${name}: ${describeOp('up', result)}`)
      assert.deepEqual(await kept(stack), before)
      assert.match(result.output, /power action stop sent to Lite VM/, 'the progress is shown')
    })
  })
}
