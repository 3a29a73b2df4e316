// Issue 25, case 4c, under the real `pulumi` CLI (a YAML program): two stacks of one project on one
// machine, in one directory or in a checkout each, `pulumi up` one after the other. Each stack builds a chain: a Metal
// keypair and a server of its own (named after the stack), then a nameless additional IP of the same
// product as the other stack's (ordered after the server, so that a stop leaves the chain half-built,
// as users saw). Neither up may stop; each stack orders its own IP.
import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { describeCli, PulumiHome, Stack } from '../support/pulumi/cli-harness.js'
import { everyRound, inTwoStates, keyLines, REPEAT } from '../support/faults/accounted.js'
import { byKind, freshEmulator } from '../support/faults/matrix.js'

const ref = (path: string) => `\${${path}}`
/** Where the stacks' programs are: the journal lives in the project's directory (`.provider-orders`). */
const LAYOUTS = ['in one directory', 'in a checkout each'] as const

describe('two Pulumi stacks of one project, one after the other, on one machine (issue 25, case 4c)', { concurrency: 1 }, () => {
  const e2e = useEmulatorWorkspace({ workspace: false, provisioningDelayMs: 200 })
  let home: PulumiHome
  let projects = 0
  before(async () => {
    home = await PulumiHome.create(e2e.emulator)
  })

  for (const layout of LAYOUTS)
    test(`pulumi: stacks a and b ${layout}, each a keypair, a server and a nameless additional IP: both ups complete, no stop (${REPEAT}×)`, {
      timeout: REPEAT * 240_000,
    }, async (t) => {
      await everyRound(REPEAT, async (round) => {
        const started = Date.now()
        await freshEmulator(e2e.emulator, 200)
        const project = `two-stacks-${++projects}`
        const program = {
          name: project,
          runtime: 'yaml',
          resources: {
            key: { type: 'provider:index:BaremetalKeypair', properties: { name: `key-${ref('pulumi.stack')}` } },
            server: {
              type: 'provider:index:Baremetal',
              properties: { productId: 301, cycle: 'm', keypairId: ref('key.keypairId'), label: `web-${ref('pulumi.stack')}` },
            },
            ip: {
              type: 'provider:index:BaremetalAdditionalIp',
              properties: { productId: 401, cycle: 'm' },
              options: { dependsOn: [ref('server')] },
            },
          },
        }
        const stacks: Stack[] = []
        for (const name of ['a', 'b']) {
          // One project directory for both stacks, or a checkout of the project each (as CI jobs have it).
          const dir = join(home.root, 'projects', layout === 'in one directory' ? project : `${project}-${name}`)
          await mkdir(dir, { recursive: true })
          await writeFile(join(dir, 'Pulumi.yaml'), JSON.stringify(program, null, 2))
          await home.ok(['stack', 'init', name, '--non-interactive'], { cwd: dir })
          const stack = new Stack(home, dir, name)
          await stack.setConfig({ 'provider:pollInterval': '100ms' })
          stacks.push(stack)
        }
        const ups = []
        for (const stack of stacks) {
          const up = await stack.withEvents(['up', '--yes', '--skip-preview'])
          ups.push(up)
          t.diagnostic(`round ${round}: up of stack ${stack.name} exited ${up.run.code}`)
          for (const line of keyLines(up.output)) t.diagnostic(`  ${stack.name}: ${line}`)
        }
        const orders = (await e2e.emulator.orders()).orders
        const kept = await Promise.all(
          stacks.map(async (s) => new Set(Object.values(await s.resources()).flatMap((r) => (r.id ? [r.id] : [])))),
        )
        t.diagnostic(
          `round ${round}: ${Math.round((Date.now() - started) / 1000)} s; orders ${JSON.stringify(byKind(orders))}; ` +
            `stacks ${JSON.stringify(kept.map((k) => [...k]))}`,
        )
        for (const [i, up] of ups.entries()) {
          assert.doesNotMatch(up.output, /Not ordering/, `stack ${stacks[i]?.name} was stopped\n${describeCli(up.run)}`)
          assert.equal(up.run.code, 0, describeCli(up.run))
        }
        assert.deepEqual(byKind(orders), { 'baremetal.create': 2, 'additional_ip.create': 2 })
        assert.deepEqual(inTwoStates(kept), [])
        for (const stack of stacks) await stack.destroy()
      })
    })

  test('pulumi: up, then at once up --replace of the IP (the same inputs: the same order again) orders a second IP and deletes the first, no stop', {
    timeout: 180_000,
  }, async () => {
    await freshEmulator(e2e.emulator, 200)
    const project = `replace-at-once-${++projects}`
    const program = {
      name: project,
      runtime: 'yaml',
      resources: { ip: { type: 'provider:index:BaremetalAdditionalIp', properties: { productId: 401, cycle: 'm' } } },
    }
    const dir = join(home.root, 'projects', project)
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'Pulumi.yaml'), JSON.stringify(program, null, 2))
    await home.ok(['stack', 'init', 'dev', '--non-interactive'], { cwd: dir })
    const stack = new Stack(home, dir, 'dev')
    await stack.setConfig({ 'provider:pollInterval': '100ms' })
    const up = await stack.withEvents(['up', '--yes', '--skip-preview'])
    assert.equal(up.run.code, 0, describeCli(up.run))
    const first = (await stack.resources()).ip
    const replaced = await stack.withEvents(['up', '--yes', '--skip-preview', '--replace', first?.urn ?? ''])
    assert.doesNotMatch(replaced.output, /Not ordering/, describeCli(replaced.run))
    assert.equal(replaced.run.code, 0, describeCli(replaced.run))
    const second = (await stack.resources()).ip
    assert.notEqual(second?.id, first?.id)
    assert.deepEqual(byKind((await e2e.emulator.orders()).orders), { 'additional_ip.create': 2 })
    await stack.destroy()
  })
})
