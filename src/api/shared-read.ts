// One request serving every concurrent caller of a read that the API can only answer with a whole list
// (a keypair: the API has no read by id, so each read lists the pool). Terraform refreshes up to
// `-parallelism` resources at once; without sharing, a refresh of n keypairs sends n lists of n items.
// Must not: hand a caller an answer to a request sent before that caller asked (it could miss what the
// caller's own earlier call created), nor let one caller's cancellation fail another's read.

interface Waiter<T> {
  readonly resolve: (value: T) => void
  readonly reject: (reason: unknown) => void
  readonly signal: AbortSignal | undefined
  settled: boolean
  /** Set once the waiter's request is sent: cancelled when all of its waiters have gone. */
  request?: { readonly waiters: readonly Waiter<T>[]; readonly controller: AbortController }
}

/**
 * Reads `fetch` for concurrent callers with as few requests as correctness allows: at most one request is in
 * flight; a caller who asks meanwhile waits for the next one, sent as soon as it settles, which serves
 * everyone who asked in between. Each caller's signal cancels its own wait; the request itself is cancelled
 * only when every caller it serves has cancelled.
 */
export function sharedRead<T>(fetch: (signal: AbortSignal) => Promise<T>): (signal?: AbortSignal) => Promise<T> {
  let queued: Waiter<T>[] = []
  let inFlight = false

  const send = () => {
    const waiters = queued.filter((waiter) => !waiter.settled)
    queued = []
    if (waiters.length === 0) return
    inFlight = true
    const request = { waiters, controller: new AbortController() }
    for (const waiter of waiters) waiter.request = request
    const settle = (apply: (waiter: Waiter<T>) => void) => {
      for (const waiter of waiters) {
        if (waiter.settled) continue
        waiter.settled = true
        apply(waiter)
      }
      inFlight = false
      send()
    }
    fetch(request.controller.signal).then(
      (value) => settle((waiter) => waiter.resolve(value)),
      (reason) => settle((waiter) => waiter.reject(reason)),
    )
  }

  return (signal) =>
    new Promise<T>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason)
        return
      }
      const waiter: Waiter<T> = { resolve, reject, signal, settled: false }
      signal?.addEventListener(
        'abort',
        () => {
          if (waiter.settled) return
          waiter.settled = true
          reject(signal.reason)
          const request = waiter.request
          if (request?.waiters.every((w) => w.settled)) request.controller.abort(signal.reason)
        },
        { once: true },
      )
      queued.push(waiter)
      if (!inFlight) send()
    })
}
