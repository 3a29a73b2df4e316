// A VM identical to one the last run made, added and applied with -target straight after that run (a
// targeted run reads nothing else of the state), with the local backend, under every pinned client.
// Terraform writes the local state file before it closes the provider, so the close confirms the first
// VM and the twin is ordered. OpenTofu writes it after the close: the first VM stays unconfirmed, the
// twin stops naming it and saying to plan once without -target, and after that plan it is ordered.
// Either way each VM is ordered once and none twice. The serve mode (one process every command
// reattaches to, which Terraform never closes) settles a command's outcomes when its connections close,
// once the command has exited: the twin is ordered at once under every client. In the serve mode the
// twin may also be in another `provider` block of the same key, applied after the first in one command:
// Terraform connects once per block, and both connections are that one run, so each VM is ordered
// once (before, the second stopped, naming the first as an earlier run's account no state named). The
// next command is another run all the same: one whose state lost the first VM stops, naming it, also
// while another command is open against the same process (a plan waiting on a slow read, an apply at
// its prompt) and so overlaps both.
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun, type RunResult, type Workspace } from '../support/e2e/harness.js'
import { caseLane } from '../support/faults/accounted.js'
import { providerBlock } from '../support/faults/exactly-once-cells.js'
import { byKind, freshEmulator, OPERATIONS, sleep } from '../support/faults/matrix.js'
import { serveProvider } from '../support/terraform/served.js'
import { type Tool, terraformClients } from '../support/tools.js'

const vm = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]
const TWIN = `provider_${vm.resource}.twin`

describe('an identical VM applied with -target straight after the run that made the first', { concurrency: 1 }, () => {
  const lane = caseLane()
  type Served = { readonly ws: Workspace; readonly ids: Awaited<ReturnType<typeof vm.setup>>; readonly env: Record<string, string> }
  /** A served case: a fresh emulator, the VM's ids, a workspace and a provider served from it, stopped after `run`. */
  const withServed = async (client: { key: string; tool: Tool }, run: (served: Served) => Promise<void>) => {
    await freshEmulator(lane.em, 200)
    const ids = await vm.setup(lane.em)
    const ws = await lane.workspace(client)
    const served = await serveProvider(ws.dir, lane.em)
    try {
      await run({ ws, ids, env: { TF_REATTACH_PROVIDERS: served.reattach } })
    } finally {
      await served.stop()
    }
  }
  /** The resource `name` of the VM's type with the VM's inputs. */
  const vmBlock = (name: string, ids: Served['ids']) => block('resource', `provider_${vm.resource}`, name, vm.inputs(ids))
  /** Both VMs ordered once, and the plan after is empty. */
  const bothOnce = async ({ ws, env }: Served) => {
    assert.deepEqual(byKind((await lane.em.orders()).orders), { [vm.kind]: 2 })
    assert.equal((await ws.run(['plan', '-detailed-exitcode', '-input=false'], { env })).code, 0, 'both are in state')
  }
  /** The re-run stopped, naming the first VM as an earlier run's account, and ordered nothing. */
  const stoppedNamingIt = async (again: RunResult) => {
    assert.deepEqual(byKind((await lane.em.orders()).orders), { [vm.kind]: 1 }, describeRun(again))
    assert.equal(again.code, 1, describeRun(again))
    assert.match((again.stdout + again.stderr).replace(/[│\s]+/g, ' '), /account \d+ was ordered .* handed to the engine of an earlier run/)
  }
  /** An apply to a state file the provider does not read, made and then lost (removed), and the same apply again. */
  const applyThenLoseState = async ({ ws, ids, env }: Served): Promise<RunResult> => {
    await ws.write([providerBlock(), vmBlock('web', ids)].join('\n'))
    const args = ['apply', '-auto-approve', '-input=false', '-no-color', '-state=elsewhere.tfstate']
    const created = await ws.run(args, { env })
    assert.equal(created.code, 0, describeRun(created))
    await rm(join(ws.dir, 'elsewhere.tfstate'))
    return ws.run(args, { env })
  }
  for (const client of terraformClients().map((c) => ({ key: c.name.replace(' ', '-'), tool: c.tool }))) {
    const savesBeforeClose = client.key.startsWith('terraform-')
    test(`${client.key}: ${savesBeforeClose ? 'ordered at once' : 'stops until a plan reads the state, then ordered'}; one order each`, {
      timeout: 180_000,
    }, async () => {
      await freshEmulator(lane.em, 200)
      const ids = await vm.setup(lane.em)
      const ws = await lane.workspace(client)
      const first = [providerBlock(), block('resource', `provider_${vm.resource}`, 'web', vm.inputs(ids))].join('\n')
      await ws.write(first)
      const created = await ws.apply()
      assert.equal(created.code, 0, describeRun(created))
      await ws.write(`${first}\n${block('resource', `provider_${vm.resource}`, 'twin', vm.inputs(ids))}`)
      const targeted = await ws.apply([`-target=${TWIN}`])
      if (savesBeforeClose) {
        assert.equal(targeted.code, 0, describeRun(targeted))
      } else {
        assert.equal(targeted.code, 1, describeRun(targeted))
        assert.match((targeted.stdout + targeted.stderr).replace(/\s+/g, ' '), /plan once without them/)
        assert.deepEqual(byKind((await lane.em.orders()).orders), { [vm.kind]: 1 }, 'the stop ordered nothing')
        assert.equal((await ws.plan()).code, 2)
        const again = await ws.apply([`-target=${TWIN}`])
        assert.equal(again.code, 0, describeRun(again))
      }
      assert.deepEqual(byKind((await lane.em.orders()).orders), { [vm.kind]: 2 })
      assert.equal((await ws.plan()).code, 0, 'both are in state')
    })

    test(`${client.key}, served: ordered at once; one order each`, { timeout: 180_000 }, () =>
      withServed(client, async (served) => {
        const { ws, ids, env } = served
        const first = [providerBlock(), vmBlock('web', ids)].join('\n')
        await ws.write(first)
        const created = await ws.run(['apply', '-auto-approve', '-input=false'], { env })
        assert.equal(created.code, 0, describeRun(created))
        await ws.write(`${first}\n${vmBlock('twin', ids)}`)
        const targeted = await ws.run(['apply', '-auto-approve', '-input=false', `-target=${TWIN}`], { env })
        assert.equal(targeted.code, 0, describeRun(targeted))
        await bothOnce(served)
      }),
    )

    test(
      `${client.key}, served: the twin in another provider block, applied in the same command; one order each`,
      {
        timeout: 180_000,
      },
      () =>
        withServed(client, async (served) => {
          const { ws, ids, env } = served
          const other = 'provider "provider" {\n  alias         = "other"\n  poll_interval = "150ms"\n}\n'
          const twin = vmBlock('twin', ids).replace(
            '{\n',
            `{\n  provider   = provider.other\n  depends_on = [provider_${vm.resource}.web]\n`,
          )
          await ws.write([providerBlock(), other, vmBlock('web', ids), twin].join('\n'))
          const applied = await ws.run(['apply', '-auto-approve', '-input=false'], { env })
          assert.equal(applied.code, 0, describeRun(applied))
          await bothOnce(served)
        }),
    )

    // A state the provider cannot read (as a remote backend's): nothing confirms the VM at the close.
    test(`${client.key}, served: the next command, whose state lost the VM, stops naming it; one order`, { timeout: 180_000 }, () =>
      withServed(client, async (served) => stoppedNamingIt(await applyThenLoseState(served))),
    )

    test(
      `${client.key}, served: with another command open all along, the next command whose state lost the VM stops; one order`,
      {
        timeout: 180_000,
      },
      () =>
        withServed(client, async (served) => {
          const other = await lane.workspace(client)
          // A plan in another directory that stays open, its provider called, while the service holds a read.
          await lane.em.control('POST', '/faults', {
            method: 'GET',
            path: '/baremetals/products',
            mode: 'delay',
            delay_ms: 60_000,
            count: 1,
          })
          await other.write(`${providerBlock()}\n${block('data', 'provider_baremetal_products', 'all', {})}`)
          const open = other.launch(['plan', '-input=false', '-no-color'], { env: served.env })
          try {
            for (let i = 0; i < 300 && !(await lane.em.requests()).some((r) => r.path.endsWith('/baremetals/products')); i++)
              await sleep(50)
            await stoppedNamingIt(await applyThenLoseState(served))
          } finally {
            open.signalGroup('SIGKILL')
            await open.done.catch(() => undefined)
          }
        }),
    )
  }
})
