/**
 * The operation a piece of code runs for, carried through async calls: which resource asks (a
 * Pulumi URN; Terraform sends none), until when it may take, and what to do once its outcome has
 * been handed to the engine. The API client reads it through a callback, so neither imports the other.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * The frame of one operation. What it means is declared once, where it is read: `OperationFrame` in
 * src/api/transport.ts. Core and the API client do not import each other; src/resources hands
 * `currentOperation` to the client, and the compiler checks there that this object fits it.
 */
function newFrame(scope: string | undefined, timeoutMs: number | undefined, finishers: (() => void)[]) {
  return { scope, timeoutMs, onFinish: (callback: () => void): void => void finishers.push(callback) }
}
type Frame = ReturnType<typeof newFrame>

const storage = new AsyncLocalStorage<Frame>()
let abandoned = false

/**
 * From now on no outcome counts as handed over: the process is going down and the engine may not
 * be there to receive it, so every order stays open in the journal for the next run to take over.
 */
export function abandonDeliveries(): void {
  abandoned = true
}

/** The frame of the operation the caller runs in, if any. */
export function currentOperation(): Frame | undefined {
  return storage.getStore()
}

/**
 * Runs one operation. The finish callbacks run after `fn` settles, that is once the outcome (with any
 * id an order answered) is in the hands of the front end that returns it to the engine.
 */
export async function withOperation<T>(scope: string | undefined, timeoutMs: number | undefined, fn: () => Promise<T>): Promise<T> {
  const finishers: (() => void)[] = []
  const frame = newFrame(scope, timeoutMs, finishers)
  try {
    return await storage.run(frame, fn)
  } finally {
    for (const finish of abandoned ? [] : finishers) {
      try {
        finish()
      } catch {
        // A journal that cannot be written only loses the "delivered" mark: the entry then expires.
      }
    }
  }
}
