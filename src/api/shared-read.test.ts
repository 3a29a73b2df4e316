import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sharedRead } from './shared-read.js'

/** A fetch whose requests the test answers by hand, in order, each with the data as it was when it was sent. */
function manualFetch() {
  const requests: { signal: AbortSignal; seen: number; answer(value: number): void; fail(reason: unknown): void }[] = []
  let version = 0
  const fetch = (signal: AbortSignal) =>
    new Promise<number>((resolve, reject) => {
      requests.push({ signal, seen: version, answer: resolve, fail: reject })
    })
  const answerNext = async () => {
    const request = requests.shift()
    assert.ok(request, 'a request is open')
    request.answer(request.seen)
    await new Promise((resolve) => setImmediate(resolve))
  }
  return {
    fetch,
    requests,
    answerNext,
    change: () => {
      version++
    },
  }
}

describe('sharedRead', () => {
  test('callers who ask while a request is in flight share the next one: 10 reads, 2 requests', async () => {
    const api = manualFetch()
    const read = sharedRead(api.fetch)
    const first = read()
    const rest = Array.from({ length: 9 }, () => read())
    assert.equal(api.requests.length, 1, 'one request in flight at a time')
    await api.answerNext()
    assert.equal(await first, 0)
    assert.equal(api.requests.length, 1, 'the nine who asked meanwhile get one request of their own')
    await api.answerNext()
    assert.deepEqual(await Promise.all(rest), Array(9).fill(0))
    assert.equal(api.requests.length, 0)
  })

  test('a caller never gets the answer to a request sent before it asked', async () => {
    const api = manualFetch()
    const read = sharedRead(api.fetch)
    const before = read()
    // The caller's own earlier call changes the data (a create), then it reads while the old list is in flight.
    api.change()
    const after = read()
    await api.answerNext()
    assert.equal(await before, 0, 'the request sent before the change')
    await api.answerNext()
    assert.equal(await after, 1, 'a request sent after the caller asked sees the change')
    // The reads of a quiet moment each send their own request.
    const alone = read()
    assert.equal(api.requests.length, 1)
    await api.answerNext()
    assert.equal(await alone, 1)
  })

  test("one caller's cancellation fails only its own read; the request is cancelled when every caller has gone", async () => {
    const api = manualFetch()
    const read = sharedRead(api.fetch)
    await Promise.all([read(), (async () => api.answerNext())()]) // nothing in flight now
    const a = new AbortController()
    const b = new AbortController()
    const readA = read(a.signal)
    const readB = read(b.signal)
    // A's request went out at once; B, who asked while it was in flight, waits for the next.
    assert.equal(api.requests.length, 1)
    a.abort(new Error('Ctrl-C'))
    await assert.rejects(readA, /Ctrl-C/)
    assert.equal(api.requests[0]?.signal.aborted, true, "A's request served A alone")
    api.requests.shift()?.fail(new Error('aborted'))
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(api.requests.length, 1, 'B gets a request of its own')
    const c = new AbortController()
    const readC = read(c.signal)
    b.abort(new Error('B gone'))
    await assert.rejects(readB, /B gone/)
    assert.equal(api.requests[0]?.signal.aborted, true)
    api.requests.shift()?.fail(new Error('aborted'))
    await new Promise((resolve) => setImmediate(resolve))
    await api.answerNext()
    assert.equal(await readC, 0, 'C, queued behind, is served')
  })

  test('callers sharing a request share its failure, and the next caller tries again', async () => {
    const api = manualFetch()
    const read = sharedRead(api.fetch)
    const first = read()
    const second = read()
    const third = read()
    await api.answerNext()
    await first
    api.requests.shift()?.fail(new Error('503 after the retries'))
    await assert.rejects(second, /503/)
    await assert.rejects(third, /503/)
    const again = read()
    await api.answerNext()
    assert.equal(await again, 0)
  })

  test('a cancelled caller still queued sends nothing; an already cancelled signal is refused at once', async () => {
    const api = manualFetch()
    const read = sharedRead(api.fetch)
    const first = read()
    const gone = new AbortController()
    const queued = read(gone.signal)
    gone.abort(new Error('gone'))
    await assert.rejects(queued, /gone/)
    await api.answerNext()
    await first
    assert.equal(api.requests.length, 0, 'no request for a queue that emptied')
    await assert.rejects(read(AbortSignal.abort(new Error('before'))), /before/)
    assert.equal(api.requests.length, 0)
  })
})
