/** Billing vocabulary shared by every ordered resource: cycles, invoices, `raw`, ids, waiting. */
import {
  type Account,
  CYCLE_LABELS,
  type Client,
  type Invoice,
  type Order,
  redactedJson,
  statusIs,
  wireOf,
  withoutLeadingZeros,
} from '../api/index.js'
import {
  type Attributes,
  type ImportId,
  type OperationContext,
  type ReadContext,
  objectType,
  object,
  oneOf,
  pattern,
  printable,
  range,
  string,
  stringType,
  int64,
  int64Type,
  length,
  custom,
} from '../core/index.js'

export const LITE_CYCLES = ['m', 'a', 'q', 's', 'b', 't', 'p4', 'p5'] as const
export const METAL_CYCLES = ['m', 'a'] as const

/** The code of a `billingcycle` label (case-insensitive), or null when the label is unknown. */
export function cycleCode(label: string): string | null {
  const lower = label.toLowerCase()
  return Object.entries(CYCLE_LABELS).find(([, l]) => l.toLowerCase() === lower)?.[0] ?? null
}

/** Validators of the inputs every order shares. */
export const rules = {
  id: range({ min: 1 }),
  digits: pattern(/^[1-9][0-9]*$/, 'a positive whole number written in digits'),
  /** A one-shot trigger naming an id: empty fires nothing, as for every trigger. */
  digitsTrigger: pattern(/^(|[1-9][0-9]*)$/, 'empty, or a positive whole number written in digits'),
  /** `""` is no code, as omitted or null (the API's request-body rules). */
  promocode: length({ max: 255 }),
  /** Spaces alone are no code the service issues: it would refuse the order (422) only when placing it. */
  notBlank: custom('not spaces alone', (value) =>
    typeof value === 'string' && value !== '' && value.trim() === ''
      ? 'must not be spaces alone: leave it empty, or unset, for no code'
      : null,
  ),
  description: length({ max: 255 }),
  freeText: length({ min: 1, max: 255 }),
  printable: printable(),
}

/** A required, create-only input naming a product, an account or a keypair by its id. */
export function idInput(description: string) {
  return int64({ required: true, createOnly: true, validate: [rules.id], description })
}

/**
 * The validators of each kind of text input: the service's cap (the API's request-body rules: 1-255
 * characters where no other limit is stated, descriptions 0-255; the spec's 6-16 for VM, snapshot and
 * disk names) and no control characters, since the service keeps and shows what it is sent.
 */
export const textRules = {
  free: [rules.freeText, rules.printable],
  description: [rules.description, rules.printable],
  promocode: [rules.promocode, rules.notBlank, rules.printable],
  shortName: [length({ min: 6, max: 16 }), rules.printable],
  /** A one-shot trigger's value: only a new non-empty value fires (the interface's update steps), so empty is allowed. */
  trigger: [length({ max: 255 }), rules.printable],
} as const

/**
 * The account statuses a listing can show: the service's lists leave `Terminated` accounts out unless
 * asked for them, and an import of one finds it gone, so no listed object is ever Terminated.
 */
export const LISTED_STATUSES = ['Active', 'Pending', 'Suspended'] as const

/**
 * The `status` filter of a listing: one of the listed statuses, in any case (the service compares
 * statuses case-insensitively); any other value is refused, not answered with an empty list.
 */
export function statusFilter(what: string) {
  return {
    attribute: 'status' as const,
    match: 'equals' as const,
    values: LISTED_STATUSES,
    example: 'Active',
    description: `Only ${what} of this status: \`Active\`, \`Pending\` or \`Suspended\` (in any case).`,
  }
}

export const cycleAttribute = (cycles: readonly string[], description: string) =>
  string({ required: true, createOnly: true, validate: [oneOf(cycles)], description })

/** Account ids are digits; import takes them as written. The identity is the id as a number. */
export function digitsId(what: string, example = '100001'): ImportId {
  const name = what.replace(/ /g, '_')
  return {
    format: `<${name}>`,
    example,
    parts: [{ name, type: 'int64', description: `The ${what}.` }],
    parse: (text) =>
      /^[0-9]+$/.test(text) ? { id: withoutLeadingZeros(text) } : { error: `expected the ${what} in digits, got ${JSON.stringify(text)}` },
  }
}

/**
 * The `account_id` output of every resource the service bills as an account: its id as a whole number,
 * the type of every input that names an account (`lite_account_id`, `snapshot_id`, `metal_account_id`,
 * `additional_ip_id`). A resource id is a string in every client, and Pulumi YAML has no function that
 * makes a number of a string, so a chain of resources is connected through this output. Set from the id
 * by every read (accountNumber), so an import recovers it; stable, since the id never changes. Where the
 * resource identity's part is also named `account_id` (VMs, servers, IPs, storage), both hold this number.
 */
export const accountIdAttribute = int64({
  computed: true,
  stable: true,
  description:
    'The account id as a whole number (the resource id is the same digits as a string): what the inputs naming an account ' +
    'take (such as `provider_lite_disk.lite_account_id`, `provider_lite_vm_from_snapshot.snapshot_id`, ' +
    '`provider_baremetal_elastic_storage.metal_account_id` and `provider_baremetal_additional_ip_assignment.additional_ip_id`), ' +
    'so a reference needs no conversion.',
})

/** The `account_id` output of an account, from the id the service gives it (digits). */
function accountNumber(accountId: string | number): number {
  return Number(accountId)
}

/** What every read of an account starts with: the resource id (the account id) and the `account_id` output. */
export function accountIds(account: { readonly account_id: string }) {
  return { id: account.account_id, account_id: accountNumber(account.account_id) }
}

/**
 * What a create records the moment its order is answered, before it waits (its checkpoint): the ids,
 * the order's (`withOrder`) and Pending. An apply that stops in the wait keeps the object with these,
 * so what references its `account_id` is planned from it.
 */
export function orderedPending(order: { readonly account_id: string; readonly order_id: string }, withOrder = true) {
  return { ...accountIds(order), ...(withOrder ? { order_id: order.order_id } : {}), status: 'Pending' }
}

/** The `last_invoice` block of every account (the invoice object). */
export const lastInvoiceAttribute = object(
  {
    id: int64({ computed: true, description: 'Invoice id.' }),
    paid_id: int64({ computed: true, nullable: true, description: 'Payment transaction id; null while unpaid.' }),
    status: string({ computed: true, description: '`Paid`, `Unpaid` or `Cancelled`.' }),
    date: string({ computed: true, description: 'Invoice date, `YYYY-MM-DD`.' }),
    duedate: string({ computed: true, description: 'Due date.' }),
    paybefore: string({ computed: true, description: 'Last day to pay before the order lapses.' }),
    datepaid: string({ computed: true, nullable: true, description: 'When it was paid, `YYYY-MM-DD HH:MM:SS`; null while unpaid.' }),
    invoice_type: string({ computed: true, description: '`new`, `upgrade`, `change_package` or `migrate`.' }),
  },
  { computed: true, description: 'The latest invoice of the account.' },
)

export function invoiceState(invoice: Invoice | null) {
  if (!invoice) return null
  const { id, paid_id, status, date, duedate, paybefore, datepaid, invoice_type } = invoice
  return { id, paid_id, status, date, duedate, paybefore, datepaid, invoice_type }
}

export const rawAttribute = string({
  computed: true,
  sensitive: true,
  description: 'The last API response for this object as JSON, with secrets redacted.',
})

/** The `raw` output: the payload as JSON with secret-looking keys replaced. */
/**
 * A `raw` output: the JSON text of the unwrapped `data` the object was read from, as the service sent
 * it (wireOf), with secret-looking keys and `extraKeys` set to "***".
 */
export function raw(payload: unknown, extraKeys: readonly string[] = []): string {
  return redactedJson(wireOf(payload), { extraKeys: [...extraKeys] })
}

export { objectType, stringType, int64Type }

/**
 * `changesRefused` of an account: Pending until its unpaid invoice is paid (an order placed with
 * `pay_with_credit_card = false`), or Suspended (an administrative suspension or an overdue renewal),
 * when the service refuses every change but a cosmetic one (its status rules): `cosmetic` names the
 * inputs of the resource's cosmetic steps, core's ChangesRefusedContext (none: it takes no change at
 * all). A read is made only when the recorded status is one of these, or when no state is recorded (a
 * method the service refused); what the read shows decides (an invoice paid since, or an account
 * unsuspended since, is no reason). The reason ends with what to do, then `afterwards`.
 */
export async function awaitingPayment(
  ctx: { readonly prior: { readonly status?: unknown } | null; readonly cosmetic: readonly string[]; readonly afterwards: string },
  what: string,
  read: () => Promise<Account<unknown>>,
): Promise<string | undefined> {
  const { prior, cosmetic, afterwards } = ctx
  const recorded = prior?.status
  if (prior !== null && (typeof recorded !== 'string' || !(statusIs(recorded, 'Pending') || statusIs(recorded, 'Suspended')))) {
    return undefined
  }
  const account = await read()
  // What the service still takes: a change of the cosmetic inputs, when the resource has any.
  const taken = cosmetic.length === 0 ? '' : ` other than ${cosmetic.join(' or ')}`
  if (statusIs(account.status, 'Suspended')) {
    return `${what} ${account.account_id} is Suspended, and the service takes no change of it${taken} until it is unsuspended: have its overdue invoices paid in the portal (or ask support), then ${afterwards}`
  }
  const invoice = account.last_invoice
  if (!statusIs(account.status, 'Pending') || invoice === null || !statusIs(invoice.status, 'Unpaid')) return undefined
  return `${what} ${account.account_id} is Pending until invoice ${invoice.id} is paid, and the service takes no change of it${taken} until then: pay the invoice in the portal, then ${afterwards}`
}

/**
 * `readyForChanges` of an account: waits while the service is still making an order or change of it
 * (Pending, its invoice paid), since it takes no other order before it is Active; an unpaid invoice
 * that keeps it Pending is reported through `waitingFor` instead (the change is then not sent).
 */
export async function untilChangesTaken(
  ctx: OperationContext<Client> & { readonly id: string; readonly timeoutMs: number },
  what: string,
  read: () => Promise<Account<unknown>>,
): Promise<void> {
  const { account, unpaidInvoice } = await untilTakesOrders(ctx, read, what, ctx.id, ctx.timeoutMs)
  if (unpaidInvoice !== undefined) ctx.waitingFor?.(`invoice ${unpaidInvoice.id} for ${what} ${account.account_id} is unpaid`)
}

/**
 * Waits, up to `timeoutMs`, while account `id` is Pending with no unpaid invoice (the service still
 * making an order or a change of it: it takes no other order before it is Active); answers the account,
 * and the unpaid invoice that keeps it Pending, if one does. Suspended and Terminated throw.
 */
export function untilTakesOrders(
  ctx: OperationContext<Client>,
  read: () => Promise<Account<unknown>>,
  what: string,
  id: string,
  timeoutMs: number,
): Promise<{ readonly account: Account<unknown>; readonly unpaidInvoice?: Invoice }> {
  return ctx.client.waitForActive(read, { timeoutMs, orderedAt: ctx.client.now(), signal: ctx.signal, describe: what, accountId: id })
}

/**
 * Waits for an order to become Active. An unpaid invoice ends the wait with a warning and the
 * account as it is (Pending), per the contract: an error would make Terraform order again.
 */
export async function waitForOrder<A extends Account<unknown>>(
  ctx: OperationContext<Client>,
  read: () => Promise<A>,
  order: { account_id: string; order_id?: string },
  options: { timeoutMs: number; orderedAt: number; what: string },
): Promise<{ account: A; unpaid: boolean }> {
  const result = await ctx.client.waitForActive(read, {
    timeoutMs: options.timeoutMs,
    orderedAt: options.orderedAt,
    signal: ctx.signal,
    describe: options.what,
    accountId: order.account_id,
    orderId: order.order_id,
  })
  if (result.unpaidInvoice) {
    const invoice = result.unpaidInvoice
    ctx.waitingFor?.(
      `invoice ${invoice.id}${order.order_id ? ` of order ${order.order_id}` : ''} for ${options.what} ${order.account_id} is unpaid`,
    )
    ctx.warn(
      `${options.what} ${order.account_id} waits for payment`,
      `The order${order.order_id ? ` ${order.order_id}` : ''} for ${options.what} ${order.account_id} was placed, but invoice ` +
        `${invoice.id} is unpaid (pay_with_credit_card is false), so the account stays Pending until the invoice is paid ` +
        'in the portal. It is saved in state with status Pending; the next apply places no second order.',
    )
  }
  return { account: result.account, unpaid: result.unpaidInvoice !== undefined }
}

/**
 * An order answered: record what it changes at once (a create's id, or an update step, which is then
 * never sent again), then wait for Active.
 */
export async function keepAndWait<A extends Account<unknown>, R>(
  ctx: OperationContext<Client> & { timeoutMs: number; checkpoint(reached: R): void },
  order: Order,
  reached: R,
  read: (id: string) => Promise<A>,
  what: string,
): Promise<A> {
  const orderedAt = ctx.client.now()
  ctx.checkpoint(reached)
  const { account } = await waitForOrder(ctx, () => read(order.account_id), order, { timeoutMs: ctx.timeoutMs, orderedAt, what })
  return account
}

/** The resumption of a create whose wait did not finish: wait for the same account again. */
export async function waitAgain<A extends Account<unknown>>(
  ctx: OperationContext<Client> & { id: string; timeoutMs: number },
  read: (id: string) => Promise<A>,
  what: string,
): Promise<A> {
  const wait = { timeoutMs: ctx.timeoutMs, orderedAt: ctx.client.now(), what }
  return (await waitForOrder(ctx, () => read(ctx.id), { account_id: ctx.id }, wait)).account
}

/**
 * The note (ReadContext.notes) a step leaves whose call the service follows by powering the object on
 * (an OS rebuild, a reset, a migration): what the step did, e.g. "OS rebuild (rebuild_os)". The power
 * step drops it, and so does a read that finds the power as power_state says.
 */
export const POWER_NOTE = 'powered_on_by'

/** A read's context as warnPowerChanged and the reads that call it take it. */
export type PowerReadContext = OperationContext<Client> & Pick<ReadContext<Client, Attributes>, 'notes' | 'note' | 'resuming'>

/** What a read found of the power, for warnPowerChanged. */
export interface PowerFound {
  /** The object, e.g. "Metal server 100001". */
  readonly what: string
  /** Its power as found, e.g. "powered on". */
  readonly found: string
  /** power_state. */
  readonly setting: string
  /** The power_state value that names the power found (setting it changes nothing), when there is one. */
  readonly matching: string | null
  /** The Terraform action that sets the power, e.g. provider_baremetal_power. */
  readonly action: string
  /** A step of this configuration that powered it on (POWER_NOTE), when that is what was found. */
  readonly cause: string | null
}

/**
 * A read that finds the power other than power_state says. power_state is an in-place action, sent
 * only when its value changes, so no plan brings the power back, unless an apply left work for the next
 * one (`resuming`: a create whose power call failed, a wait that did not end), which sets it. Says which
 * of these it is (a step of this configuration, the work left, or a change made outside), and how to set
 * the power on each client: actions need Terraform 1.14 or later.
 */
export function warnPowerChanged(ctx: PowerReadContext, power: PowerFound): void {
  const { what, found, setting, matching, action, cause } = power
  const summary = `${what} is ${found}, though power_state is "${setting}"`
  if (ctx.resuming) {
    ctx.warn(
      summary,
      `An apply did not finish with ${what} (its error, or its wait that did not end, says why), so power_state "${setting}" ` +
        'is not set yet: the next apply finishes it and sets it.',
    )
    return
  }
  const why =
    cause === null
      ? `The power of ${what} was changed outside this configuration.`
      : `The ${cause} that this configuration ran left ${what} ${found}, as the service leaves it after each one.`
  const back =
    matching === null
      ? `change power_state to another value and apply, then back to "${setting}" and apply`
      : `set power_state to "${matching}" (the power it has, so nothing changes) and apply, then back to "${setting}" and apply`
  ctx.warn(
    summary,
    `${why} power_state is an in-place action, sent only when its value changes, so no plan changes the power back. ` +
      `To set it to "${setting}": with Terraform 1.14 or later, invoke the action ${action} with state "${setting}"; ` +
      `in Pulumi, call the resource's power method; with OpenTofu or an earlier Terraform, which have no actions, ${back}.`,
  )
}
