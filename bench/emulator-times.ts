// The emulator at scale, without Terraform: N keypairs created, then deleted, by ten clients at once (as
// Terraform's default parallelism sends them), in memory and with a state file (--state-file). In memory,
// a request's CPU does not grow with N. With a state file it does, more slowly: each write holds the whole
// state (the request log is appended to a file of its own), and the changes that finish together share one
// write (src/emulator/state-file.ts).
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Emulator } from './launched.js'
import { ms, printTable, ratio, tempDir } from './support.js'

const COUNTS = [500, 2000] as const
const CLIENTS = 10
const MODES = ['in memory', 'state file'] as const
const STEPS = ['create', 'delete'] as const

interface Figure {
  wallMs: number
  cpuMs: number
}

/** Runs `work(i)` for i in 0..n-1 on CLIENTS concurrent lanes. */
async function lanes(n: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < n) await work(next++)
    }),
  )
}

async function call(url: string, method: string, body?: unknown): Promise<{ keypair_id: number }> {
  const answer = await fetch(url, {
    method,
    headers: { 'x-token': 'emulator-key', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  })
  const text = await answer.text()
  if (!answer.ok) throw new Error(`${method} ${url}: ${answer.status} ${text.slice(0, 300)}`)
  return (JSON.parse(text) as { data: { keypair_id: number } }).data
}

async function measure(emulator: Emulator, work: () => Promise<void>): Promise<Figure> {
  const cpu = emulator.cpuMs()
  const start = performance.now()
  await work()
  return { wallMs: performance.now() - start, cpuMs: emulator.cpuMs() - cpu }
}

export async function emulatorTimes(emulator: Emulator): Promise<void> {
  const dir = tempDir('bench-emulator-')
  const figures = new Map<string, Figure>()
  const key = (mode: string, count: number, step: string) => `${mode}/${count}/${step}`
  try {
    for (const mode of MODES) {
      for (const count of COUNTS) {
        const stateFile = join(dir, `state-${count}.json`)
        const base = await emulator.fresh(undefined, mode === 'state file' ? ['--state-file', stateFile] : [])
        const ids: number[] = []
        figures.set(
          key(mode, count, 'create'),
          await measure(emulator, () =>
            lanes(count, async (i) => {
              ids.push((await call(`${base}/lites/keypairs/`, 'POST', { name: `bench-${i}` })).keypair_id)
            }),
          ),
        )
        figures.set(
          key(mode, count, 'delete'),
          await measure(emulator, () =>
            lanes(count, async (i) => {
              await call(`${base}/lites/keypairs/${ids[i]}`, 'DELETE')
            }),
          ),
        )
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const at = (mode: string, count: number, step: string) => figures.get(key(mode, count, step))!
  const perRequestUs = (f: Figure, count: number) => `${Math.round((f.cpuMs * 1000) / count)}`
  printTable(
    `10. The emulator alone: N keypairs created, then deleted, by ${CLIENTS} clients at once; wall and the emulator's CPU (ms), its CPU per request (µs)`,
    ['mode, N', ...STEPS.flatMap((step) => [`${step} wall`, `${step} CPU`, `${step} CPU/request`])],
    MODES.flatMap((mode) =>
      COUNTS.map((count) => [
        `${mode}, ${count}`,
        ...STEPS.flatMap((step) => {
          const f = at(mode, count, step)
          return [ms(f.wallMs), ms(f.cpuMs), perRequestUs(f, count)]
        }),
      ]),
    ),
  )
  printTable(
    'CPU per request: at 2000 ÷ at 500 (1.00× = it does not grow with N), and the state file ÷ in memory',
    ['', ...STEPS],
    [
      ...MODES.map((mode) => [
        `${mode}: 2000 ÷ 500`,
        ...STEPS.map((step) => ratio(at(mode, 2000, step).cpuMs / 2000, at(mode, 500, step).cpuMs / 500)),
      ]),
      ...COUNTS.map((count) => [
        `state file ÷ in memory, ${count}`,
        ...STEPS.map((step) => ratio(at('state file', count, step).cpuMs, at('in memory', count, step).cpuMs)),
      ]),
    ],
  )
}
