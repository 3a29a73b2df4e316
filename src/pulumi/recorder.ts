/**
 * Core's outcomes carry diagnostics, not the error a call threw, yet the engine needs a precise gRPC
 * code. Each operation therefore gets its own view of the client that remembers the last error any
 * call threw, read later by shape (`status`, `outcomeUnknown`); it changes nothing else.
 */
export interface Recorder {
  /** The last error thrown by a client call in this operation, if any. */
  last: unknown
}

export function recordingClient<C>(client: C, recorder: Recorder): C {
  if (client === null || typeof client !== 'object') return client
  const cache = new WeakMap<object, unknown>()
  const note = (thrown: unknown) => {
    recorder.last = thrown
    return Promise.reject(thrown)
  }
  const wrap = (target: object): unknown => {
    const known = cache.get(target)
    if (known) return known
    const proxy = new Proxy(target, {
      get(object, key) {
        const value: unknown = Reflect.get(object, key, object)
        if (typeof value === 'function') {
          return (...args: unknown[]) => {
            try {
              const result: unknown = Reflect.apply(value, object, args)
              return result instanceof Promise ? result.catch(note) : result
            } catch (thrown) {
              recorder.last = thrown
              throw thrown
            }
          }
        }
        return value !== null && typeof value === 'object' ? wrap(value) : value
      },
    })
    cache.set(target, proxy)
    return proxy
  }
  return wrap(client) as C
}
