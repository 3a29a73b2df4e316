// The console page: a header (the customer selector, when the emulator has customers), one tab per view,
// the status line; the view on show is refreshed every second while the page is visible, and after each
// action. Started by src/bin/emulator-console.ts, the page's script.
import { type Customer, ControlError, control, setCustomer, Unanswered } from './api.js'
import { el, fill, text } from './dom.js'
import type { View, Page } from './view.js'
import { accountsView } from './views/accounts.js'
import { faultsView } from './views/faults.js'
import { keypairsView, ordersView } from './views/orders.js'
import { requestsView } from './views/requests.js'
import { stateView } from './views/state.js'

const POLL_MS = 1000

/**
 * The customer selector: filled from GET /_emulator/customers at every refresh (keys change while the
 * page is open), the choice kept while its customer is there; shown only where there is a choice, more
 * than one customer (hidden too when the emulator has no customers: 404).
 */
async function customers(selector: HTMLSelectElement): Promise<void> {
  let list: Customer[]
  try {
    list = await control<Customer[]>('GET', '/customers')
  } catch (error) {
    if (error instanceof ControlError && error.status === 404) return
    throw error
  }
  const options = list.map((c): [string, string] => [
    c.customer,
    `${c.customer} (${c.keys.map((k) => `${k.key_masked} ${k.scope}`).join(', ')}; ${c.accounts} account${c.accounts === 1 ? '' : 's'})`,
  ])
  selector.parentElement?.toggleAttribute('hidden', list.length < 2)
  // Rebuilt only when something in it changed: a list the user has open is left alone.
  const shown = JSON.stringify(options)
  if (selector.dataset.shown === shown) return
  selector.dataset.shown = shown
  const chosen = selector.value
  fill(selector, el('option', { value: '' }, 'All customers'), ...options.map(([value, text]) => el('option', { value }, text)))
  selector.value = list.some((c) => c.customer === chosen) ? chosen : ''
  if (selector.value !== chosen) setCustomer(null)
}

export function start(body: HTMLElement): void {
  const status = el('p', { id: 'status', role: 'status' })
  const selector = el('select', { name: 'customer' })
  const main = el('main')
  let current: View | undefined
  let busy = false
  /** When the page last read the emulator whole (a refresh that worked): what a stale page dates from. */
  let answered: Date | undefined
  /**
   * A refresh failed: the views show what was read before, marked as stale (greyed) until a refresh works
   * again; the status line says why, and from when the data is.
   */
  const stale = (error: unknown) => {
    const why = error instanceof Error ? error.message : String(error)
    const read = answered ? `what the page shows was read at ${answered.toTimeString().slice(0, 8)}` : 'the page has read nothing yet'
    status.className = 'error stale'
    main.classList.add('stale')
    // The same words each second while it lasts: the line is left alone then.
    text(status, error instanceof Unanswered ? `${why}: ${read} and is stale until it answers again.` : why)
  }
  const page: Page = {
    working() {
      status.className = ''
      fill(status)
    },
    done(message) {
      status.className = 'ok'
      fill(status, message)
    },
    failed(error) {
      status.className = 'error'
      fill(status, error instanceof Error ? error.message : String(error))
    },
    async refresh() {
      if (!current || busy) return
      busy = true
      try {
        await Promise.all([current.refresh(), customers(selector)])
        answered = new Date()
        main.classList.remove('stale')
        if (status.className === 'error stale') {
          status.className = ''
          fill(status, '')
        }
      } catch (error) {
        stale(error)
      } finally {
        busy = false
      }
    },
  }
  const views = [accountsView(page), ordersView(page), requestsView(page), faultsView(page), keypairsView(), stateView(page)]
  const tabs = el('nav', {}, ...views.map((v) => el('a', { href: `#${v.id}`, 'data-view': v.id }, v.title)))
  const show = () => {
    const wanted = location.hash.slice(1)
    current = views.find((v) => v.id === wanted) ?? views[0]
    for (const link of tabs.querySelectorAll('a')) {
      const on = link.dataset.view === current?.id
      link.classList.toggle('active', on)
      // Tells a screen reader which tab is on show, as the colour tells the eye.
      if (on) link.setAttribute('aria-current', 'page')
      else link.removeAttribute('aria-current')
    }
    if (current) fill(main, current.root)
    void page.refresh()
  }
  fill(
    body,
    el('header', {}, el('h1', {}, 'Emulator console'), el('label', { class: 'customer', hidden: true }, 'Customer ', selector), tabs),
    status,
    main,
  )
  window.addEventListener('hashchange', show)
  selector.addEventListener('change', () => {
    setCustomer(selector.value === '' ? null : selector.value)
    void page.refresh()
  })
  show()
  setInterval(() => {
    if (document.visibilityState === 'visible') void page.refresh()
  }, POLL_MS)
}
