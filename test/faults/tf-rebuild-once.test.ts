// Issue 8 case 7 through the real terraform CLI: a one-shot destructive action (rebuild_os of a Lite VM
// and of a Metal server) cut short by SIGKILL of terraform or of the provider during its wait, then
// applied again. The service must have run each rebuild once (its request log: processed, not replayed).
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun, type Emulator } from '../e2e/harness.js'
import { childrenOf, exitOf, oneLane, providerBlock } from './exactly-once-cells.js'
import { freshEmulator, sleep } from './matrix.js'
import { Report } from './report.js'

const report = new Report('terraform-rebuild-once')

interface Target {
  readonly title: string
  readonly resource: string
  readonly rebuildPath: RegExp
  setup(em: Emulator): Promise<{ id: number; inputs: Record<string, string | number> }>
  readonly os: string
}

async function activeOrder(em: Emulator, path: string, body: Record<string, unknown>): Promise<number> {
  const order = await em.api<{ account_id: string }>('POST', path, body)
  await em.control('POST', `/accounts/${order.account_id}/status`, { status: 'Active' })
  return Number(order.account_id)
}

const TARGETS: readonly Target[] = [
  {
    title: 'Lite VM rebuild_os',
    resource: 'lite_vm',
    rebuildPath: /^\/v1\/lites\/accounts\/\d+\/rebuild$/,
    os: 'Debian-12',
    async setup(em) {
      const kp = Number((await em.api<{ keypair_id: number }>('POST', '/lites/keypairs/', { name: 'rebuild-key' })).keypair_id)
      const body = {
        product_id: 101,
        cycle: 'm',
        select_os: 'Ubuntu-22.04',
        keypair_id: kp,
        ssh_and_console_user: 'deployer',
        console_password: 'S3cretPass9',
        vm_name: 'rebuild-vm',
      }
      return { id: await activeOrder(em, '/lites', body), inputs: body }
    },
  },
  {
    title: 'Metal server rebuild_os',
    resource: 'baremetal',
    rebuildPath: /^\/v1\/baremetals\/\d+\/rebuild$/,
    os: 'debian-12',
    async setup(em) {
      const kp = Number((await em.api<{ keypair_id: number }>('POST', '/baremetals/keypairs/', { name: 'rebuild-key' })).keypair_id)
      const body = { product_id: 301, cycle: 'm', keypair_id: kp, label: 'rebuild-server', select_os: 'ubuntu-22' }
      return { id: await activeOrder(em, '/baremetals', body), inputs: body }
    },
  },
]

describe('a rebuild runs once through kills (issue 8 case 7)', { concurrency: 1 }, () => {
  const lane = oneLane()

  for (const target of TARGETS) {
    for (const kill of ['terraform', 'provider'] as const) {
      test(`${target.title} × SIGKILL of ${kill} during its wait`, { timeout: 120_000 }, async () => {
        const { em, ws } = lane
        await freshEmulator(em, 2500)
        for (const name of ['terraform.tfstate', 'terraform.tfstate.backup']) await rm(join(ws.dir, name), { force: true })
        await rm(join(ws.dir, '.terraform', 'provider-orders'), { recursive: true, force: true })
        const { id, inputs } = await target.setup(em)
        const resource = block('resource', `provider_${target.resource}`, 'r', { ...inputs, rebuild_os: target.os })
        await ws.write([providerBlock(), `import {\n  to = provider_${target.resource}.r\n  id = "${id}"\n}\n`, resource].join('\n'))
        await ws.init()
        const rebuilds = async () =>
          (await em.requests()).filter((e) => e.method === 'PUT' && target.rebuildPath.test(e.path) && e.status === 200 && !(e as { replayed?: boolean }).replayed)
            .length

        const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
        for (let i = 0; i < 300 && (await rebuilds()) === 0; i++) await sleep(50)
        assert.equal(await rebuilds(), 1, 'the rebuild was sent')
        await sleep(300)
        const provider = childrenOf(running.pid).find(() => true)
        assert.ok(provider, 'the provider process was found')
        if (kill === 'terraform') running.signal('SIGKILL')
        else process.kill(provider, 'SIGKILL')
        const first = await running.done
        assert.ok((await exitOf(provider)) >= 0, 'the provider exited')

        const again = await ws.apply()
        const final = await ws.plan()
        const count = await rebuilds()
        report.add({
          kind: 'cell',
          front: 'terraform',
          op: `${target.resource}-rebuild`,
          fault: kill === 'terraform' ? 'j' : 'k',
          intended: { rebuild: 1 },
          placed: { rebuild: count },
          lost: [],
          outcome: first.code === -1 ? 'killed' : `rc ${first.code}`,
          converged: final.code === 0,
          status: count === 1 && again.code === 0 && final.code === 0 ? 'pass' : 'fail',
        })
        assert.equal(count, 1, `the rebuild ran ${count} times\n${describeRun(first)}\n${describeRun(again)}`)
        assert.equal(again.code, 0, describeRun(again))
        assert.equal(final.code, 0, describeRun(final))
      })
    }
  }
})
