// The console's one way to the emulator: calls of the control API (/_emulator, same origin), unwrapped from
// the envelope, with the customer chosen in the header added to the calls that list. Nothing else is
// fetched, from the emulator or from anywhere (the page's Content-Security-Policy allows this origin only).

/** An answer other than 2xx: the status and the envelope's `detail` (a validation error's fields joined). */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/**
 * No answer at all: the emulator is stopped (the connection refused), gone mid-answer, or slower than the
 * call's bound. What the page shows then is what it last read, which may no longer hold.
 */
export class Unanswered extends Error {
  constructor() {
    super(`the emulator is not answering at ${location.origin}`)
  }
}

/** The customer the lists are narrowed to (`?customer=`), or null for all; set by the header's selector. */
let customer: string | null = null

export function setCustomer(name: string | null): void {
  customer = name
}

/** The customer chosen in the header, or null for all. */
export function chosenCustomer(): string | null {
  return customer
}

/** `path` with `?customer=` (or `&customer=`) when a customer is chosen: for the calls that list. */
export function listPath(path: string): string {
  if (customer === null) return path
  return `${path}${path.includes('?') ? '&' : '?'}customer=${encodeURIComponent(customer)}`
}

function detailOf(status: number, parsed: unknown): string {
  if (parsed !== null && typeof parsed === 'object' && 'detail' in parsed) {
    const detail = (parsed as { detail: unknown }).detail
    if (typeof detail === 'string') return detail
    if (Array.isArray(detail)) {
      return detail.map((issue: { loc?: unknown[]; msg?: string }) => `${(issue.loc ?? []).join('.')}: ${issue.msg ?? ''}`).join('; ')
    }
  }
  return `HTTP ${status}`
}

/** One control call; `path` is under /_emulator. Resolves to the envelope's `data`. */
export async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) }
  if (body !== undefined) {
    init.body = JSON.stringify(body)
    init.headers = { accept: 'application/json', 'content-type': 'application/json' }
  }
  let response: Response
  let text: string
  try {
    response = await fetch(`/_emulator${path}`, init)
    text = await response.text()
  } catch {
    // A browser says no more than "Failed to fetch" (or a timeout's "signal timed out"): say which server.
    throw new Unanswered()
  }
  let parsed: unknown = null
  try {
    parsed = text === '' ? null : JSON.parse(text)
  } catch {
    parsed = null
  }
  if (!response.ok) throw new ControlError(response.status, detailOf(response.status, parsed))
  return (parsed !== null && typeof parsed === 'object' && 'data' in parsed ? (parsed as { data: T }).data : parsed) as T
}

// The shapes the views read (docs/emulator-api.md); every field the page shows is written as text.

export interface Invoice {
  id: number
  status: string
  amount: number
  invoice_type: string
  date: string
}
export interface Account {
  account_id: number
  status: string
  billingcycle: string
  date_created: string
  recurring_amount: number
  product_id: number
  product_name: string
  description: string
  last_invoice: Invoice | null
  extra_details: Record<string, unknown>
}
/** A change the service's portal offers on an account: the API call, and the body field the user's value goes in. */
export interface PortalChange {
  method: string
  path: string
  body?: Record<string, unknown>
  input?: { field: string; type: 'string' | 'integer' }
}
export interface AccountEntry {
  kind: string
  /** The kind's family, as the docs name it ("Metal servers"): the heading of its table. */
  family: string
  /** The owner, where the emulator has customers (one per API key). */
  customer?: string
  account: Account
  power: string | null
  portal: Record<string, PortalChange>
}
export interface OrderItem {
  order_id: string
  customer?: string
  kind: string
  account_id: string
  invoice_id: number
  invoice_status: string | null
  invoice_amount: number | null
  idempotency_key: string | null
  created_at: string
}
export interface LogEntry {
  seq: number
  time: string
  method: string
  path: string
  status: number | null
  latency_ms: number
  idempotency_key: string | null
  replayed: boolean
  fault_id: string | null
  /** The key's customer; null for a request whose key is missing or unknown (answered 401), which has none. */
  customer?: string | null
  api_key?: string
}
export interface Fault {
  fault_id: string
  method: string
  path: string
  mode: string
  status: number | null
  detail: string
  count: number
  remaining: number
  delay_ms: number | [number, number]
  retry_after_s: number | null
  probability?: number
  /** Rules are tried highest first, then oldest first; 0 when not set, -1 for a profile's. */
  priority?: number
}
export interface Keypair {
  keypair_id: number
  customer?: string
  pool: string
  name: string
  origin: string
  public_key: string
  /** `SHA256:...`, as `ssh-keygen -l` prints it; null for a line that holds no key. */
  fingerprint: string | null
}
export interface Customer {
  customer: string
  keys: { key_masked: string; scope: string }[]
  accounts: number
}
export interface SnapshotSummary {
  name: string
  saved_at: string
  accounts: number
  keypairs: number
  orders: number
}
