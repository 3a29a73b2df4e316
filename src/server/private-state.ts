/**
 * Private state: what the server keeps with a resource's state beyond its attributes (a resume mark,
 * a wait for payment, inputs an import could not recover). Each protocol carries it as text in its
 * own place; this is the one reading and writing of that text.
 */
import type { PrivateState } from '../core/index.js'

/** Whatever the engine hands back; text that is not a JSON object reads as no private state. */
export function parsePrivate<P extends PrivateState = PrivateState>(text: string): P {
  if (text === '') return {} as P
  try {
    const parsed: unknown = JSON.parse(text)
    return (parsed !== null && typeof parsed === 'object' ? parsed : {}) as P
  } catch {
    return {} as P
  }
}

/** The text to store, or null when there is nothing to keep. */
export function serializePrivate(state: PrivateState): string | null {
  return Object.keys(state).length === 0 ? null : JSON.stringify(state)
}
