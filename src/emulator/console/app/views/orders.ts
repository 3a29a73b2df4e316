// The orders view: every order placed (idempotent replays are not orders), its invoice's status and amount,
// with a button to pay an unpaid invoice; and the keypairs of the three pools, each told apart by its
// fingerprint (as `ssh-keygen -l` prints it) and its comment, the whole public key a click away. (The
// emulator keeps no private key: a generated one is in the answer of the call that made it, only.)
import { control, type Keypair, listPath, type OrderItem } from '../api.js'
import { button, el, KeptTable, text } from '../dom.js'
import { act, ownerColumn, type Page, type View } from '../view.js'

interface Orders {
  total: number
  by_kind: Record<string, number>
  orders: OrderItem[]
}

export function ordersView(page: Page): View {
  const summary = el('p', { class: 'hint' })
  const list = new KeptTable<OrderItem>()
  const pay = (invoice: number) => () =>
    act(page, async () => {
      await control('POST', `/invoices/${invoice}/pay`)
      return `invoice ${invoice} paid`
    })
  const root = el('section', { id: 'view-orders' }, el('h2', {}, 'Orders and invoices'), summary, list.root)
  return {
    id: 'orders',
    title: 'Orders',
    root,
    async refresh() {
      const orders = await control<Orders>('GET', listPath('/orders'))
      const kinds = Object.entries(orders.by_kind).map(([kind, n]) => `${kind}: ${n}`)
      text(summary, `${orders.total} order${orders.total === 1 ? '' : 's'}${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}`)
      const columns = [
        { title: 'Order', cell: (o: OrderItem) => o.order_id },
        { title: 'Kind', cell: (o: OrderItem) => o.kind },
        { title: 'Account', cell: (o: OrderItem) => o.account_id },
        { title: 'Invoice', cell: (o: OrderItem) => o.invoice_id },
        { title: 'Amount', cell: (o: OrderItem) => o.invoice_amount ?? '–' },
        {
          title: 'Invoice status',
          cell: (o: OrderItem) =>
            o.invoice_status === 'Unpaid'
              ? el(
                  'span',
                  {},
                  'Unpaid ',
                  button('Pay', pay(o.invoice_id), { 'data-invoice': String(o.invoice_id), 'aria-label': `Pay invoice ${o.invoice_id}` }),
                )
              : (o.invoice_status ?? '–'),
        },
        { title: 'Idempotency-Key', cell: (o: OrderItem) => o.idempotency_key ?? '–' },
        { title: 'Placed', cell: (o: OrderItem) => o.created_at },
      ]
      list.show([...ownerColumn(orders.orders), ...columns], [...orders.orders].reverse(), (o) => o.order_id, 'No orders yet.')
    },
  }
}

export function keypairsView(): View {
  const list = new KeptTable<Keypair>()
  const root = el('section', { id: 'view-keypairs' }, el('h2', {}, 'Keypairs'), list.root)
  return {
    id: 'keypairs',
    title: 'Keypairs',
    root,
    async refresh() {
      const keypairs = await control<Keypair[]>('GET', listPath('/keypairs'))
      const columns = [
        { title: 'ID', cell: (k: Keypair) => k.keypair_id },
        { title: 'Pool', cell: (k: Keypair) => k.pool },
        { title: 'Name', cell: (k: Keypair) => k.name },
        { title: 'Origin', cell: (k: Keypair) => k.origin },
        { title: 'Type', cell: (k: Keypair) => k.public_key.trim().split(/\s+/)[0] ?? '' },
        { title: 'Fingerprint', cell: (k: Keypair) => el('code', { class: 'fingerprint', title: k.public_key }, k.fingerprint ?? '–') },
        { title: 'Comment', cell: (k: Keypair) => k.public_key.trim().split(/\s+/).slice(2).join(' ') || '–' },
        {
          title: 'Public key',
          cell: (k: Keypair) => el('details', {}, el('summary', {}, 'Whole key'), el('code', { class: 'key' }, k.public_key)),
        },
      ]
      list.show([...ownerColumn(keypairs), ...columns], keypairs, (k) => k.keypair_id, 'No keypairs yet.')
    },
  }
}
