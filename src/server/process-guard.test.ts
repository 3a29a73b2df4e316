// The process guard: signals and the parent's end as the provider process reacts to them.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { guardProcess, stopSignal, terminating } from './process-guard.js'

const quiet = { warn() {} }

test('a provider whose parent is gone exits at once, without waiting for anything', async () => {
  let parent = 100
  const exits: number[] = []
  const remove = guardProcess({ log: quiet, parentPid: () => parent, intervalMs: 1, exit: (code) => exits.push(code) })
  await new Promise((resolve) => setTimeout(resolve, 20))
  assert.deepEqual(exits, [])
  parent = 1
  for (let i = 0; i < 200 && exits.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  remove()
  assert.equal(exits[0], 1)
})

test('SIGTERM stops every in-flight operation like an interrupt instead of killing the process', () => {
  const exits: number[] = []
  let terminated = 0
  const own = new AbortController()
  const session = stopSignal(own.signal)
  const remove = guardProcess({ log: quiet, parentPid: () => 7, exit: (code) => exits.push(code), onTerminate: () => terminated++ })
  assert.equal(session.aborted, false)
  process.emit('SIGTERM', 'SIGTERM')
  assert.equal(terminating.aborted, true)
  assert.equal(session.aborted, true)
  assert.equal(terminated, 1)
  assert.deepEqual(exits, [], 'the process stays up to hand the results back')
  assert.match(String((session.reason as Error).message), /SIGTERM/)
  // A second SIGTERM insists: no more waiting for in-flight operations.
  process.emit('SIGTERM', 'SIGTERM')
  remove()
  assert.equal(terminated, 1)
  assert.deepEqual(exits, [143])
})
