// What every API family is built from: the client's transport and orders (a family's factory takes
// them as its FamilyContext) and the conventions its calls share (list filters, bodies without
// undefined members, a malformed id as a rejected promise). A family never does HTTP itself, and it
// places every order through `orders`, never straight through the transport.
import type { Orders } from './orders/orders.js'
import type { CallOptions, Transport } from './transport.js'

/** What a family's calls are made with, one per client. */
export interface FamilyContext {
  readonly transport: Transport
  readonly orders: Orders
}

export interface ListOptions extends CallOptions {
  /** Statuses to list (case-insensitive); default every status but Terminated. */
  readonly status?: readonly string[]
}

/** Drops `undefined` members so the body only says what the caller said. */
export function compact(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) if (value !== undefined) out[key] = value
  return out
}

/** Turns a synchronous throw (a malformed id) into a rejected promise, as callers of async calls expect. */
export function rejectingSync<T extends object>(api: T): T {
  const target = api as Record<string, unknown>
  for (const [key, value] of Object.entries(target)) {
    if (typeof value !== 'function') continue
    const call = value as (...args: unknown[]) => unknown
    target[key] = (...args: unknown[]) => {
      try {
        return call(...args)
      } catch (error) {
        return Promise.reject(error)
      }
    }
  }
  return api
}

/** The API's list rules: the repeatable `status` filter of account lists. */
export function statusQuery(options?: ListOptions) {
  return options?.status === undefined ? undefined : { status: options.status }
}
