// The service's Idempotency-Key extension, per API key (and its customer): claiming a key before an order's effect,
// replaying the stored answer of an identical repeat, and freeing the key when the answer promised nothing.
import { conflict, HttpError } from './envelope.js'
import { type Json, jsonEqual } from './json.js'
import type { IdempotencyRecord, State } from './model.js'
import { normalisePath } from './router.js'

export type Claim = { kind: 'new'; record: IdempotencyRecord } | { kind: 'replay'; record: IdempotencyRecord }

/**
 * Step 4 of the emulator's request pipeline, per API key: a first use claims the key, an identical repeat replays the
 * stored answer, and anything else is a 409 (with Retry-After while the first is still running).
 */
export function claimKey(
  state: State,
  scope: { key: string; customer: string },
  key: string,
  request: { method: string; path: string; body: Json | undefined },
  now: number,
): Claim {
  // The customer too: a key moved to another customer (a config patch) never replays the first one's answer.
  const existing = state.idempotency.find((r) => r.scope === scope.key && r.customer === scope.customer && r.key === key)
  if (existing) {
    if (existing.in_progress) {
      throw new HttpError(409, 'request with this Idempotency-Key is in progress', { 'retry-after': '1' })
    }
    // One trailing slash is the same route (the API's path rules), so it is the same request too.
    const samePath = normalisePath(existing.path) === normalisePath(request.path)
    const same = existing.method === request.method && samePath && jsonEqual(existing.body, request.body)
    if (!same) throw conflict('Idempotency-Key reused with a different request')
    return { kind: 'replay', record: existing }
  }
  const record: IdempotencyRecord = {
    scope: scope.key,
    customer: scope.customer,
    key,
    method: request.method,
    path: request.path,
    body: request.body,
    created_at: now,
    in_progress: true,
    status: 0,
    response: '',
  }
  state.idempotency.push(record)
  return { kind: 'new', record }
}

/** 429 and 5xx promise nothing (or nothing known) happened, so they free the key for a retry. */
export function settle(state: State, record: IdempotencyRecord, status: number, response: string): void {
  if (status === 429 || status >= 500) {
    state.idempotency = state.idempotency.filter((r) => r !== record)
    return
  }
  record.in_progress = false
  record.status = status
  record.response = response
}
