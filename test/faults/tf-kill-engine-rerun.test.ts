// Issue 15, case 0: terraform alone SIGKILLed while its provider waits for a new VM to be Active, and
// `terraform apply` again at once. The killed run's provider is then exiting, or has exited and is a
// zombie until something reaps it; in a container whose PID 1 reaps nothing it stays one for good.
// Neither may lead to a second order: the re-run takes the killed run's order over. Each variant is
// repeated, since the window between the kill and the provider's exit is short.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun } from '../support/e2e/harness.js'
import { childrenOf, oneLane, providerBlock, rerun } from '../support/faults/exactly-once-cells.js'
import { freshEmulator, OPERATIONS, orderPlaced, sleep } from '../support/faults/matrix.js'

const op = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]
const REPEATS = Number(process.env.KILL_RERUN_REPEATS ?? 3)

/**
 * Runs its arguments as a child and, as a child subreaper (prctl PR_SET_CHILD_SUBREAPER), inherits
 * the child's orphans when the child dies, but never reaps them: a container's PID 1 that reaps
 * nothing. It prints the child's pid first and stays until SIGTERM (at most 5 minutes).
 */
const NO_REAP = [
  'import ctypes, os, signal, sys, time',
  'ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)',
  'pid = os.fork()',
  'if pid == 0:',
  '    os.execvp(sys.argv[1], sys.argv[1:])',
  "sys.stderr.write(f'child {pid}\\n'); sys.stderr.flush()",
  'os.waitpid(pid, 0)',
  'signal.signal(signal.SIGTERM, lambda *_: os._exit(0))',
  'time.sleep(300)',
].join('\n')

function stateOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] ?? ''
  } catch {
    return 'gone'
  }
}

async function waitFor<T>(what: string, look: () => T | undefined, limitMs = 15_000): Promise<T> {
  const until = Date.now() + limitMs
  for (;;) {
    const value = look()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error(`${what}: not within ${limitMs} ms`)
    await sleep(20)
  }
}

describe('terraform SIGKILLed during a create, applied again at once (issue 15, case 0)', { concurrency: 1 }, () => {
  const lane = oneLane()

  for (const reaper of ['a parent that reaps', 'a parent that never reaps'] as const) {
    test(`${reaper}: ${REPEATS} kills, each followed at once by a re-run, order one VM each`, { timeout: 60_000 * REPEATS }, async () => {
      const { em, ws } = lane
      const config = (ids: Record<string, number>) =>
        [providerBlock(), block('resource', `provider_${op.resource}`, 'r', op.inputs(ids))].join('\n')
      for (let round = 0; round < REPEATS; round++) {
        await freshEmulator(em, 3_000)
        const ids = await op.setup(em)
        await ws.write(config(ids))
        await ws.init()
        for (const name of ['terraform.tfstate', 'terraform.tfstate.backup']) await rm(join(ws.dir, name), { force: true })
        const seen = (await em.orders()).orders.length
        const wrap = reaper === 'a parent that never reaps' ? ['python3', '-c', NO_REAP] : []
        const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'], { wrap })
        try {
          await orderPlaced(em, op.kind, seen)
          const terraform = wrap.length === 0 ? running.pid : await waitFor('terraform under the wrapper', () => childrenOf(running.pid)[0])
          const provider = await waitFor('the provider process', () => childrenOf(terraform)[0])
          process.kill(terraform, 'SIGKILL')
          if (wrap.length > 0) {
            // The provider exits once its engine is gone, and stays a zombie of the wrapper.
            await waitFor('the provider a zombie', () => (stateOf(provider) === 'Z' ? true : undefined))
          } else {
            await running.done
          }
          const { again, final, lost, placed } = await rerun(lane, seen)
          if (wrap.length > 0) assert.equal(stateOf(provider), 'Z', "the killed run's provider was still a zombie during the re-run")
          const runs = `round ${round + 1}\n${describeRun(again)}\n${describeRun(final)}`
          assert.deepEqual(placed, { [op.kind]: 1 }, `orders placed\n${runs}`)
          assert.deepEqual(lost, [], `accounts ordered and not managed\n${runs}`)
          assert.equal(again.code, 0, runs)
          assert.equal(final.code, 0, runs)
        } finally {
          running.signalGroup('SIGKILL')
          await running.done.catch(() => undefined)
        }
      }
    })
  }
})
