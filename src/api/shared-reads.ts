// Identical reads in flight at once share one request (a refresh reads many accounts of one kind
// together, and the API answers each with the whole list). What a caller saw done its read sees too:
// a read never joins one sent before the transport's latest change was answered. A read's answer is
// kept past its flight only where its caller asks (`keep`: a list searched for one item, which the API
// cannot read alone), decoded once, for a short time and until the next change. Used by
// transport.ts; it sends nothing itself.
import { cancelled, type RequestContext } from './errors.js'

/** A read that identical reads share while it is in flight. */
interface SharedRead<A> {
  /** The count of changes when it was sent. */
  readonly since: number
  /** Stops it once no caller waits. */
  readonly controller: AbortController
  waiters: number
  readonly answer: Promise<A>
}

/** A decoded answer kept for identical reads (see SharedReads.keep). */
interface KeptRead {
  /** The count of changes when it was sent, and when (the client's clock). */
  readonly since: number
  readonly sentAt: number
  /** Stops it while it is in flight and no caller waits. */
  readonly controller: AbortController
  waiters: number
  readonly value: Promise<unknown>
}

export class SharedReads<A> {
  /** Reads in flight, by key (URL and account), with the number of changes answered when each was sent. */
  private readonly inFlight = new Map<string, SharedRead<A>>()
  /** Decoded answers kept for `keep`, by key. */
  private readonly kept = new Map<string, KeptRead>()
  /** How many changes (any request but a GET) the transport has seen answered, or fail, so far. */
  private changes = 0

  /** A change has answered or failed: no read sent before it is joined any more. */
  changed(): void {
    this.changes++
    this.kept.clear()
  }

  /**
   * The decoded answer of an identical read sent less than `forMs` before `now` and since the latest
   * change, or of a new one (`send`, decoding), which later reads then get. A caller that cancels stops
   * waiting; a read in flight stops once no caller waits, and is not kept. A failed read is forgotten.
   */
  async keep<T>(
    key: string,
    send: (signal: AbortSignal) => Promise<T>,
    forMs: number,
    now: number,
    signal: AbortSignal | undefined,
    context: RequestContext,
  ): Promise<T> {
    let read = this.kept.get(key)
    if (read === undefined || read.since !== this.changes || now - read.sentAt >= forMs || now < read.sentAt) {
      const controller = new AbortController()
      const value = send(controller.signal)
      const entry: KeptRead = { since: this.changes, sentAt: now, controller, waiters: 0, value }
      this.kept.set(key, entry)
      value.catch(() => {
        if (this.kept.get(key) === entry) this.kept.delete(key)
      })
      read = entry
    }
    const kept = read
    kept.waiters++
    try {
      return await untilAborted(kept.value as Promise<T>, signal, context)
    } catch (error) {
      if (signal?.aborted && kept.waiters === 1) {
        // The last caller left (an answered read has nothing left to stop, and stays kept).
        kept.controller.abort(signal.reason)
      }
      throw error
    } finally {
      kept.waiters--
    }
  }

  /**
   * The answer of the read in flight under `key`, or of a new one that `send` starts (with a signal of
   * its own). A caller that cancels stops waiting; the read and its retries stop once no caller waits.
   */
  async join(key: string, send: (signal: AbortSignal) => Promise<A>, signal: AbortSignal | undefined, context: RequestContext): Promise<A> {
    let shared = this.inFlight.get(key)
    if (shared === undefined || shared.since !== this.changes) {
      const controller = new AbortController()
      const entry: SharedRead<A> = { since: this.changes, controller, waiters: 0, answer: send(controller.signal) }
      this.inFlight.set(key, entry)
      // Every caller may have stopped waiting by the time it fails; it is forgotten once it has answered.
      entry.answer
        .catch(() => undefined)
        .finally(() => {
          if (this.inFlight.get(key) === entry) this.inFlight.delete(key)
        })
      shared = entry
    }
    const read = shared
    read.waiters++
    try {
      return await untilAborted(read.answer, signal, context)
    } catch (error) {
      if (signal?.aborted && read.waiters === 1) {
        // The last caller left: stop it, and let no later read join a request being cancelled.
        if (this.inFlight.get(key) === read) this.inFlight.delete(key)
        read.controller.abort(signal.reason)
      }
      throw error
    } finally {
      read.waiters--
    }
  }
}

/** The promise's outcome, or the caller's cancellation as soon as its signal aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined, context: RequestContext): Promise<T> {
  if (signal === undefined) return promise
  if (signal.aborted) return Promise.reject(cancelled(context, signal))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled(context, signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
