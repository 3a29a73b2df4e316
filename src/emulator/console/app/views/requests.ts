// The request log, live: each API request (method, path, status, latency, Idempotency-Key, the fault that
// applied and, where the emulator tells, the customer and the masked API key), newest first, filtered by a
// part of the path and a status. Polled while the view is on show.
import { control, type LogEntry, listPath } from '../api.js'
import { button, type Column, el, input, KeptTable } from '../dom.js'
import { act, ownerColumn, type Page, type View } from '../view.js'

/** How many entries the page keeps (the newest); the emulator keeps its own log whole. */
const KEPT = 500

const COLUMNS: Column<LogEntry>[] = [
  { title: '#', cell: (e) => e.seq },
  { title: 'Time', cell: (e) => e.time },
  { title: 'Method', cell: (e) => e.method },
  { title: 'Path', cell: (e) => e.path },
  { title: 'Status', cell: (e) => el('span', { class: `http http-${String(e.status ?? 0).charAt(0)}xx` }, e.status ?? 'dropped') },
  { title: 'Latency ms', cell: (e) => e.latency_ms },
  { title: 'Idempotency-Key', cell: (e) => (e.idempotency_key ?? '–') + (e.replayed ? ' (replayed)' : '') },
  { title: 'Fault', cell: (e) => e.fault_id ?? '–' },
]
const API_KEY: Column<LogEntry>[] = [{ title: 'API key', cell: (e) => e.api_key ?? '–' }]

/** Whether `entry` passes the filters: `path` a part of its path, `status` a prefix of its status (`4` is every 4xx). */
export function matches(entry: LogEntry, path: string, status: string): boolean {
  if (path !== '' && !entry.path.includes(path)) return false
  return status === '' || String(entry.status ?? 'dropped').startsWith(status)
}

export function requestsView(page: Page): View {
  let entries: LogEntry[] = []
  const list = new KeptTable<LogEntry>({ id: 'request-log' })
  const filters = el(
    'form',
    { class: 'inline', 'aria-label': 'Filter requests' },
    input('Path contains', 'path', { placeholder: '/lites' }),
    input('Status', 'status', { placeholder: '4 or 409', size: '5' }),
  )
  const render = () => {
    const fields = new FormData(filters)
    const path = String(fields.get('path') ?? '').trim()
    const status = String(fields.get('status') ?? '').trim()
    const shown = entries.filter((e) => matches(e, path, status))
    // The masked key tells a customer's keys apart (rw and ro), so it shows wherever the emulator has keys.
    const columns = [...COLUMNS, ...ownerColumn(entries), ...(entries.some((e) => e.api_key !== undefined) ? API_KEY : [])]
    list.show(columns, [...shown].reverse(), (e) => e.seq, entries.length === 0 ? 'No requests yet.' : 'No request matches the filters.')
  }
  filters.addEventListener('input', render)
  filters.addEventListener('submit', (event) => event.preventDefault())
  const clear = button('Clear the log', () =>
    act(page, async () => {
      await control('DELETE', '/requests')
      entries = []
      return 'request log emptied'
    }),
  )
  const root = el('section', { id: 'view-requests' }, el('h2', {}, 'Request log'), filters, clear, list.root)
  return {
    id: 'requests',
    title: 'Requests',
    root,
    async refresh() {
      // The whole log each time: overlapping requests are logged out of `seq` order and a reset restarts
      // `seq`, so asking for what came after the newest entry seen could miss some.
      entries = (await control<LogEntry[]>('GET', listPath('/requests'))).slice(-KEPT)
      render()
    },
  }
}
