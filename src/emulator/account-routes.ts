import { conflict } from './envelope.js'
import type { Json } from './json.js'
import { type Account, type AccountKind, STATUSES, type Status } from './model.js'
import type { RouteContext } from './router.js'

/** Shared by every family's routes: the §1.8 list and the §2.4 precondition table. */
export function listAccounts(ctx: RouteContext, kind: AccountKind): Json {
  const v = ctx.reader(false)
  const wanted: Status[] = []
  for (const raw of ctx.query.getAll('status')) {
    const status = STATUSES.find((s) => s.toLowerCase() === raw.toLowerCase())
    if (status) wanted.push(status)
    else v.fail('status', `unknown status '${raw}'`, 'value_error', 'query')
  }
  v.done()
  const shown = wanted.length > 0 ? wanted : STATUSES.filter((s) => s !== 'Terminated')
  return ctx.store.state.accounts
    .filter((a) => a.kind === kind && shown.includes(a.status))
    .sort((a, b) => a.account_id - b.account_id)
    .map((a) => ctx.store.view(a))
}

/** Step 7 of §5.6: the account's status must be one the operation allows. */
export function requireStatus(account: Account, allowed: readonly Status[]): void {
  if (allowed.includes(account.status)) return
  throw conflict(`account ${account.account_id} is ${account.status}; this action needs ${allowed.join(' or ')}`)
}

export const ACTIVE: readonly Status[] = ['Active']
export const NOT_TERMINATED: readonly Status[] = ['Pending', 'Active', 'Suspended']
export const RUNNING_STATES: readonly Status[] = ['Active', 'Suspended']
