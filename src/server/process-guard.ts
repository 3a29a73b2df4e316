/**
 * How a provider process ends when its run is cut short. SIGTERM (what `timeout`, CI runners and
 * service managers send, often to the whole process group) is an interrupt: in-flight operations
 * stop waiting at their next safe point and hand back what they ordered, as on StopProvider or
 * Cancel. A provider whose parent is gone (the engine SIGKILLed) has nobody to hand anything to:
 * it exits at once, leaving its order journal entries for the next run to take over. A second SIGTERM,
 * or the grace period running out, exits at once too.
 */

const termination = new AbortController()

/** Aborted when the process received SIGTERM: every session's signal follows it. */
export const terminating: AbortSignal = termination.signal

/** The session signal of an operation: the front end's own stop, or the process's termination. */
export function stopSignal(own: AbortSignal): AbortSignal {
  return AbortSignal.any([own, terminating])
}

export interface GuardOptions {
  readonly log: { warn(message: string, fields?: Record<string, unknown>): void }
  /** Called after in-flight operations were told to stop; default: nothing more (the front end exits later). */
  readonly onTerminate?: () => void
  /** Exits the process; default process.exit. */
  readonly exit?: (code: number) => void
  /** How often the parent is checked. */
  readonly intervalMs?: number
  /** Time given to in-flight operations after SIGTERM before the process exits anyway. */
  readonly graceMs?: number
  readonly parentPid?: () => number
}

/** Installs the SIGTERM handler and the orphan watch. Returns a function that removes both. */
export function guardProcess(options: GuardOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code))
  const parentPid = options.parentPid ?? (() => process.ppid)
  const parent = parentPid()
  const onTerm = () => {
    // A second SIGTERM insists: the journal keeps every order still open for the next run.
    if (termination.signal.aborted) {
      options.log.warn('second SIGTERM received: exiting now')
      exit(143)
      return
    }
    options.log.warn('SIGTERM received: in-flight operations stop at their next safe point and keep what they ordered')
    termination.abort(new Error('the provider process received SIGTERM (interrupted)'))
    options.onTerminate?.()
    // The engine normally asks the provider to exit once it has the results; this bounds it if not.
    setTimeout(() => exit(143), options.graceMs ?? 30_000).unref()
  }
  process.on('SIGTERM', onTerm)
  const watch = setInterval(() => {
    const now = parentPid()
    if (now === parent) return
    // Re-parented: nobody will receive an answer. Exiting at once leaves the journal as it is, so
    // the next run takes over every order this process placed instead of ordering again.
    options.log.warn('the engine that started this provider is gone; exiting', { parent, now })
    exit(1)
  }, options.intervalMs ?? 1_000)
  watch.unref()
  return () => {
    process.off('SIGTERM', onTerm)
    clearInterval(watch)
  }
}
