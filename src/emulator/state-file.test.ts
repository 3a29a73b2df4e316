// The state file's group commit: changes that finish together share one write, no commit resolves before
// a write made after it, a failed write fails only its own commits, and the shutdown's flush keeps
// what was still to be written.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { GroupCommit } from './state-file.js'

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
