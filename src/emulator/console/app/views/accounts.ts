// The accounts view: every account by family, under the family's name the emulator gives it (status,
// product, cycle, recurring amount, created, a VM's power and disk, an address, the Metal server an IP or
// a volume is attached to, its last invoice, with a button to pay it), and changes made out of band, as the
// service's web portal makes them (POST /_emulator/portal): those the emulator offers on each account
// (rename, stop and start, resize a VM to another package), so that the page names no family and no kind.
import { type AccountEntry, control, listPath, type PortalChange } from '../api.js'
import { button, type Column, el, fill, form, input, KeptTable, place } from '../dom.js'
import { act, ownerColumn, type Page, type View } from '../view.js'

/** The name the account was given: a VM's `name`, a server's `label`, a disk's `service_name`, a volume's `storage_name`. */
const nameOf = (entry: AccountEntry) => {
  const extra = entry.account.extra_details
  const name = [extra.name, extra.label, extra.service_name, extra.storage_name].find((n) => typeof n === 'string')
  return typeof name === 'string' ? name : entry.account.description
}
/** A size in GB: a VM's `disk_size`, a disk's or a volume's `size`. */
const sizeOf = (entry: AccountEntry) => {
  const extra = entry.account.extra_details
  const size = extra.disk_size ?? extra.size
  return size === undefined || size === null ? '–' : `${String(size)} GB`
}
/** A server's or an additional IP's address, once it has one. */
const addressOf = (entry: AccountEntry) => {
  const address = entry.account.extra_details.ip_address
  return typeof address === 'string' ? address : '–'
}

/**
 * A VM's or a Metal server's power, as a client reads it (`vm-details`, the server's power state): only
 * while the account is Active or Suspended. For a Pending or Terminated one the service answers 409
 * (the status model of the API contract), so the page shows none rather than what the emulator keeps meanwhile.
 */
const powerOf = (entry: AccountEntry) => {
  const readable = ['active', 'suspended'].includes(entry.account.status.toLowerCase())
  return readable && entry.power !== null ? entry.power : '–'
}

/** Whether the account names a Metal server it belongs to (`metal_account_id`: an additional IP, a volume). */
const attached = (entry: AccountEntry) => Object.hasOwn(entry.account.extra_details, 'metal_account_id')
/** The Metal server an IP is assigned to or a volume belongs to: its id and name; an IP assigned to none says so. */
const serverOf = (entry: AccountEntry, accounts: ReadonlyMap<number, AccountEntry>) => {
  const id = entry.account.extra_details.metal_account_id
  if (id === null || id === undefined) return 'not assigned'
  const server = typeof id === 'number' ? accounts.get(id) : undefined
  return server ? `${String(id)} ${nameOf(server)}` : String(id)
}

/** The portal call of one change the emulator offers on the account, the user's value in its input field. */
export function portalCall(change: PortalChange, value: string): { method: string; path: string; body?: unknown } {
  if (!change.input)
    return change.body ? { method: change.method, path: change.path, body: change.body } : { method: change.method, path: change.path }
  if (value === '') throw new Error(`${change.input.field} is needed: give it as the value`)
  const typed = change.input.type === 'integer' ? Number(value) : value
  if (change.input.type === 'integer' && !Number.isInteger(typed))
    throw new Error(`${change.input.field} must be an integer, got '${value}'`)
  return { method: change.method, path: change.path, body: { ...change.body, [change.input.field]: typed } }
}

/**
 * Fills `selector` with `options` ([value, label]), keeping the choice where it is still offered; only
 * when they changed, so that a list the user has open is left alone.
 */
function offered(selector: HTMLSelectElement, options: readonly (readonly [string, string])[]): void {
  const shown = JSON.stringify(options)
  if (selector.dataset.shown === shown) return
  selector.dataset.shown = shown
  const chosen = selector.value
  fill(selector, ...options.map(([value, label]) => el('option', { value }, label)))
  if (options.some(([value]) => value === chosen)) selector.value = chosen
}

/** The table's columns, with the customer's where `entries` name two customers or more. */
function columns(page: Page, entries: readonly AccountEntry[]): Column<AccountEntry>[] {
  return [
    ...ownerColumn(entries),
    { title: 'ID', cell: (e) => e.account.account_id },
    { title: 'Kind', cell: (e) => e.kind },
    { title: 'Name', cell: nameOf },
    { title: 'Status', cell: (e) => el('span', { class: `status status-${e.account.status.toLowerCase()}` }, e.account.status) },
    { title: 'Product', cell: (e) => `${e.account.product_name} (${e.account.product_id})` },
    { title: 'Cycle', cell: (e) => e.account.billingcycle },
    { title: 'Recurring', cell: (e) => e.account.recurring_amount },
    { title: 'Created', cell: (e) => e.account.date_created },
    { title: 'Power', cell: powerOf },
    { title: 'Disk', cell: sizeOf },
    { title: 'Address', cell: addressOf },
    {
      title: 'Last invoice',
      cell: (e) => {
        const invoice = e.account.last_invoice
        if (!invoice) return '–'
        const text = `#${invoice.id} ${invoice.status} ${invoice.amount}`
        if (invoice.status !== 'Unpaid') return text
        const pay = () =>
          act(page, async () => {
            await control('POST', `/invoices/${invoice.id}/pay`)
            return `invoice ${invoice.id} paid`
          })
        return el(
          'span',
          {},
          `${text} `,
          button('Pay', pay, { 'data-invoice': String(invoice.id), 'aria-label': `Pay invoice ${invoice.id}` }),
        )
      },
    },
  ]
}

export function accountsView(page: Page): View {
  const lists = el('div', { class: 'lists' })
  const none = el('p', { class: 'empty' }, 'No accounts yet.')
  /** Each family's heading and table, made the first time it has accounts, kept from then on. */
  const groups = new Map<string, { root: HTMLElement; table: KeptTable<AccountEntry> }>()
  let entries: AccountEntry[] = []
  const target = el('select', { name: 'account' })
  const changes = el('select', { name: 'action' })
  /** The changes the emulator offers on the chosen account, kept as chosen across refreshes where possible. */
  const offer = () => {
    const entry = entries.find((e) => String(e.account.account_id) === target.value)
    const options = Object.entries(entry?.portal ?? {}).map(([name, change]): [string, string] => [
      name,
      change.input ? `${name} (${change.input.field})` : name,
    ])
    offered(changes, options)
  }
  target.addEventListener('change', offer)
  const change = form(
    { class: 'inline', 'aria-label': 'Out-of-band change' },
    (fields) =>
      act(page, async () => {
        const id = String(fields.get('account') ?? '')
        const entry = entries.find((e) => String(e.account.account_id) === id)
        if (!entry) throw new Error('choose an account')
        const action = String(fields.get('action') ?? '')
        const change = entry.portal[action]
        if (!change) throw new Error(`the portal offers no ${action} on account ${id}`)
        const call = portalCall(change, String(fields.get('value') ?? '').trim())
        // Where the emulator has customers (the list names each account's), the portal is the owner's.
        await control('POST', '/portal', entry.customer === undefined ? call : { ...call, customer: entry.customer })
        return `account ${id}: ${action} done through the portal`
      }),
    el('label', {}, 'Account', target),
    el('label', {}, 'Change', changes),
    input('Value', 'value', { placeholder: 'a name, a product id' }),
    el('button', { type: 'submit' }, 'Apply'),
  )
  const root = el(
    'section',
    { id: 'view-accounts' },
    el('h2', {}, 'Accounts'),
    lists,
    el('h3', {}, 'Out-of-band change'),
    el(
      'p',
      { class: 'hint' },
      'Made as the service\u2019s portal makes it: no API key, no request log entry; the next refresh or plan sees it (drift). A resize places an unpaid change-package order.',
    ),
    change,
  )
  return {
    id: 'accounts',
    title: 'Accounts',
    root,
    async refresh() {
      entries = await control<AccountEntry[]>('GET', listPath('/accounts'))
      const cols = columns(page, entries)
      const accounts = new Map(entries.map((e) => [e.account.account_id, e]))
      const server: Column<AccountEntry> = { title: 'Server', cell: (e) => serverOf(e, accounts) }
      const families = [...new Set(entries.map((e) => e.family))]
      const shown = families.map((family) => {
        let group = groups.get(family)
        if (!group) {
          const table = new KeptTable<AccountEntry>()
          group = { root: el('div', { class: 'family' }, el('h3', {}, family), table.root), table }
          groups.set(family, group)
        }
        const rows = entries.filter((e) => e.family === family)
        // The Server column, in the tables of accounts that name one; it shows the server's name, so a row is rebuilt when that changes.
        const withServer = rows.some(attached) ? [...cols.slice(0, -1), server, ...cols.slice(-1)] : cols
        group.table.show(
          withServer,
          rows,
          (e) => e.account.account_id,
          '',
          (e) => JSON.stringify([e, attached(e) ? serverOf(e, accounts) : null]),
        )
        return group.root
      })
      place(lists, entries.length === 0 ? [none] : shown)
      const changeable = entries.filter((e) => Object.keys(e.portal).length > 0)
      offered(
        target,
        changeable.map((e): [string, string] => [String(e.account.account_id), `${e.account.account_id} ${e.kind} ${nameOf(e)}`]),
      )
      offer()
    },
  }
}
