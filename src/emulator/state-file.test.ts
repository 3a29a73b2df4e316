// The state file's group commit: changes that finish together share one write, no commit resolves before
// a write made after it, a failed write fails only its own commits, and the shutdown's flush keeps
// what was still to be written. Its request log: appended to a file of its own, whole again after a
// restart (from an older state file too), a torn last line dropped, rewritten after a reset.
import assert from 'node:assert/strict'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { createEmulator, type Emulator } from './index.js'
import { GroupCommit, StateFile } from './state-file.js'

/** A deferral the test runs by hand, and a write that records the state it saw. */
function harness(fail: () => boolean = () => false) {
  const queued: (() => void)[] = []
  let state = 0
  const written: number[] = []
  const commits = new GroupCommit(
    () => {
      if (fail()) throw new Error('disk full')
      written.push(state)
    },
    (run) => void queued.push(run),
  )
  return {
    commits,
    written,
    change: () => ++state,
    runDeferred: () => {
      for (const run of queued.splice(0)) run()
    },
  }
}

/** Settles each promise into 'resolved', an error message, or 'pending' (after the microtasks ran). */
async function outcomes(promises: Promise<void>[]): Promise<string[]> {
  const seen = promises.map(() => 'pending')
  for (const [i, p] of promises.entries()) {
    p.then(
      () => {
        seen[i] = 'resolved'
      },
      (e: Error) => {
        seen[i] = e.message
      },
    )
  }
  await new Promise((resolve) => setImmediate(resolve))
  return seen
}

describe('GroupCommit', () => {
  test('ten changes of one turn share one write, which holds all ten; none resolves before it', async () => {
    const h = harness()
    const commits = Array.from({ length: 10 }, () => {
      h.change()
      return h.commits.commit()
    })
    assert.deepEqual(await outcomes(commits), Array(10).fill('pending'))
    h.runDeferred()
    assert.deepEqual(await outcomes(commits), Array(10).fill('resolved'))
    assert.deepEqual(h.written, [10])
    assert.equal(h.commits.writes, 1)
  })

  test('a change committed after a write waits for the next one', async () => {
    const h = harness()
    h.change()
    const first = h.commits.commit()
    h.runDeferred()
    h.change()
    const second = h.commits.commit()
    assert.deepEqual(await outcomes([first, second]), ['resolved', 'pending'])
    h.runDeferred()
    assert.deepEqual(await outcomes([second]), ['resolved'])
    assert.deepEqual(h.written, [1, 2])
  })

  test('a failed write rejects its commits; the next commit writes again', async () => {
    let failing = true
    const h = harness(() => failing)
    h.change()
    const lost = [h.commits.commit(), h.commits.commit()]
    h.runDeferred()
    assert.deepEqual(await outcomes(lost), ['disk full', 'disk full'])
    failing = false
    h.change()
    const kept = h.commits.commit()
    h.runDeferred()
    assert.deepEqual(await outcomes([kept]), ['resolved'])
    assert.deepEqual(h.written, [2])
  })

  test('flush writes what waits at once, and the deferred run then writes nothing', async () => {
    const h = harness()
    h.change()
    const waiting = h.commits.commit()
    h.commits.flush()
    assert.deepEqual(await outcomes([waiting]), ['resolved'])
    h.runDeferred()
    h.commits.flush()
    assert.deepEqual(h.written, [1])
  })
})

const dir = mkdtempSync(join(tmpdir(), 'emulator-state-file-'))
after(() => rmSync(dir, { recursive: true, force: true }))
let files = 0

/** A state file in a directory of its own, and an emulator started from it as the launcher starts one. */
function started(path = join(dir, `state-${++files}.json`)): { file: StateFile; emulator: Emulator } {
  const file = new StateFile(path)
  const emulator = createEmulator({ clock: 'manual', logged: file.logged })
  const state = file.load()
  if (state !== undefined) emulator.restore(state)
  file.started(emulator)
  return { file, emulator }
}

async function call(emulator: Emulator, method: string, path: string, body?: unknown): Promise<number> {
  const request = new Request(`http://127.0.0.1${path}`, {
    method,
    headers: { 'x-token': emulator.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return (await emulator.fetch(request)).status
}

const createKeypair = (emulator: Emulator, name: string) => call(emulator, 'POST', '/v1/lites/keypairs/', { name })
const logLines = (file: StateFile) =>
  readFileSync(file.logPath, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
const seqs = (entries: readonly unknown[]) => entries.map((entry) => (entry as { seq: number }).seq)
const savedState = (file: StateFile) => JSON.parse(readFileSync(file.path, 'utf8')) as { log: unknown[]; keypairs: unknown[] }

describe('StateFile', () => {
  test('the state file keeps an empty log; each write appends the entries logged since the last one', async () => {
    const { file, emulator } = started()
    assert.equal(file.logPath, file.path.replace(/\.json$/, '.requests.jsonl'))
    assert.equal(await createKeypair(emulator, 'one'), 200)
    assert.equal(await createKeypair(emulator, 'two'), 200)
    file.write(emulator)
    assert.deepEqual(savedState(file).log, [])
    assert.equal(savedState(file).keypairs.length, 2)
    assert.deepEqual(seqs(logLines(file).map((line) => JSON.parse(line))), [1, 2])

    // A line the emulator never wrote: an append keeps it, a rewrite of the whole log would not.
    const marker = JSON.stringify({ seq: 0, marker: true })
    writeFileSync(file.logPath, `${marker}\n${logLines(file).slice(1).join('\n')}\n`)
    assert.equal(await call(emulator, 'GET', '/v1/lites/keypairs/'), 200)
    assert.equal(await call(emulator, 'DELETE', '/v1/lites/keypairs/1'), 200)
    file.write(emulator)
    const after = logLines(file)
    assert.equal(after[0], marker)
    assert.deepEqual(seqs(after.map((line) => JSON.parse(line))), [0, 2, 3, 4])
    assert.equal(savedState(file).keypairs.length, 1)
  })

  test('a restart gets the whole log back, in arrival order, and appends to the same file', async () => {
    const first = started()
    for (const name of ['a', 'b', 'c']) await createKeypair(first.emulator, name)
    first.file.write(first.emulator)
    // Requests that overlap finish out of order: the file holds them in the order they were logged.
    const [one, two, three] = logLines(first.file)
    writeFileSync(first.file.logPath, `${three}\n${one}\n${two}\n`)

    const second = started(first.file.path)
    assert.deepEqual(second.emulator.requestLog(), first.emulator.requestLog())
    await createKeypair(second.emulator, 'd')
    second.file.write(second.emulator)
    assert.deepEqual(logLines(second.file), [three, one, two, JSON.stringify(second.emulator.requestLog()[3])])
  })

  test('a torn last line is dropped at the start, and the next write leaves none behind', async () => {
    const first = started()
    await createKeypair(first.emulator, 'kept')
    first.file.write(first.emulator)
    appendFileSync(first.file.logPath, '{"seq":2,"method":"PO')

    const second = started(first.file.path)
    assert.deepEqual(seqs(second.emulator.requestLog()), [1])
    await createKeypair(second.emulator, 'next')
    second.file.write(second.emulator)
    assert.deepEqual(
      logLines(second.file).map((line) => (JSON.parse(line) as { seq: number }).seq),
      [1, 2],
    )
    assert.ok(readFileSync(second.file.logPath, 'utf8').endsWith('\n'))
  })

  test("an older state file's log inside it comes back, and moves to the log file at the first write", async () => {
    const old = createEmulator({ clock: 'manual' })
    for (const name of ['x', 'y']) await createKeypair(old, name)
    const path = join(dir, 'older.json')
    writeFileSync(path, old.snapshotText())

    const { file, emulator } = started(path)
    assert.deepEqual(seqs(emulator.requestLog()), [1, 2])
    await createKeypair(emulator, 'z')
    file.write(emulator)
    assert.deepEqual(savedState(file).log, [])
    assert.deepEqual(seqs(logLines(file).map((line) => JSON.parse(line))), [1, 2, 3])
  })

  test('a reset, or a clear of the log, rewrites the log file whole', async () => {
    const { file, emulator } = started()
    await createKeypair(emulator, 'before')
    file.write(emulator)
    assert.equal(await call(emulator, 'POST', '/_emulator/reset'), 200)
    await createKeypair(emulator, 'after')
    file.write(emulator)
    assert.deepEqual(
      logLines(file).map((line) => (JSON.parse(line) as { body: { name: string } }).body.name),
      ['after'],
      'only the request made after the reset',
    )
    assert.equal(await call(emulator, 'DELETE', '/_emulator/requests'), 200)
    file.write(emulator)
    assert.deepEqual(logLines(file), [])
  })

  test('a line that is not JSON before the last one stops the start, naming the file and the line', () => {
    const path = join(dir, 'broken.json')
    writeFileSync(path, createEmulator({ clock: 'manual' }).snapshotText({ log: false }))
    const file = new StateFile(path)
    writeFileSync(file.logPath, '{"seq":1}\nnot json\n{"seq":3}\n')
    assert.throws(() => file.load(), { message: `${file.logPath} line 2 is not a request log entry (JSON): not json` })
  })
})
