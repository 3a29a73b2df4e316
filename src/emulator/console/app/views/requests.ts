// The request log, live: each API request (method, path, status, latency, Idempotency-Key, the fault that
// applied and, where the emulator tells, the customer and the masked API key), newest first, filtered by a
// part of the path and a status. Polled while the view is on show: the first poll reads the whole log, each
// next one only what was logged since (`?after=`), so a long log costs its new entries, not its length; the
// filters search the whole log the page holds, and the table shows the newest of what they match.
import { chosenCustomer, control, type LogEntry, listPath } from '../api.js'
import { button, type Column, el, input, KeptTable, text } from '../dom.js'
import { act, ownerColumn, type Page, type View } from '../view.js'

/** How many rows the table shows at most: the newest that match the filters (the line above it says so). */
const SHOWN = 500

/** What `GET /_emulator/requests?after=` answers (docs/emulator-api.md, Polling the log). */
interface LogRead {
  cursor: string
  whole: boolean
  entries: (LogEntry & { body?: unknown; query?: unknown })[]
}

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

const count = (n: number) => n.toLocaleString('en-US')
/** `n` requests, in words: "1 request", "2 requests". */
const requests = (n: number) => `${count(n)} request${n === 1 ? '' : 's'}`

/** The line above the table: how many requests match, and how many of them are shown when not all are. */
export function tally(matching: number, total: number, filtered: boolean): string {
  if (total === 0) return ''
  const shown = Math.min(matching, SHOWN)
  if (!filtered) return shown < total ? `Showing the newest ${count(shown)} of ${count(total)} requests.` : `${requests(total)}.`
  if (shown < matching) return `Showing the newest ${count(shown)} of ${count(matching)} matching requests (${count(total)} in the log).`
  return `${count(matching)} of ${count(total)} requests match.`
}

/** `fresh` merged into `entries` (both in `seq` order): a slow request is logged after later ones. */
function merge(entries: LogEntry[], fresh: readonly LogEntry[]): void {
  const newest = entries.at(-1)?.seq ?? Number.NEGATIVE_INFINITY
  entries.push(...fresh)
  if ((fresh[0]?.seq ?? newest) < newest) entries.sort((a, b) => a.seq - b.seq)
}

/** An entry as the page keeps it: the body and the query, which it never shows, are left out. */
function kept(entry: LogRead['entries'][number]): LogEntry {
  const { body: _body, query: _query, ...rest } = entry
  return rest
}

export function requestsView(page: Page): View {
  /** The whole log (of the customer chosen), in `seq` order, and where the last poll left it. */
  let entries: LogEntry[] = []
  let cursor = ''
  /** The call the cursor is for: another customer chosen reads the whole log again. */
  let scope = ''
  const list = new KeptTable<LogEntry>({ id: 'request-log' })
  const summary = el('p', { class: 'hint', id: 'request-count', 'aria-live': 'polite' })
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
    const filtered = path !== '' || status !== ''
    const matching = filtered ? entries.filter((e) => matches(e, path, status)) : entries
    // The masked key tells a customer's keys apart (rw and ro), so it shows wherever the emulator has keys.
    const columns = [...COLUMNS, ...ownerColumn(entries), ...(entries.some((e) => e.api_key !== undefined) ? API_KEY : [])]
    text(summary, tally(matching.length, entries.length, filtered))
    list.show(
      columns,
      matching.slice(-SHOWN).reverse(),
      (e) => e.seq,
      entries.length === 0 ? 'No requests yet.' : 'No request matches the filters.',
    )
  }
  filters.addEventListener('input', render)
  filters.addEventListener('submit', (event) => event.preventDefault())
  // With a customer chosen, only that customer's requests: the log shown is theirs.
  const clear = button('Clear the log', () =>
    act(page, async () => {
      const customer = chosenCustomer()
      await control('DELETE', listPath('/requests'))
      return customer === null ? 'request log emptied' : `requests of ${customer} removed from the log`
    }),
  )
  const root = el('section', { id: 'view-requests' }, el('h2', {}, 'Request log'), filters, clear, summary, list.root)
  return {
    id: 'requests',
    title: 'Requests',
    root,
    async refresh() {
      const asked = listPath('/requests')
      if (asked !== scope) cursor = ''
      const read = await control<LogRead>('GET', listPath(`/requests?after=${encodeURIComponent(cursor)}`))
      const fresh = read.entries.map(kept)
      const changed = read.whole || fresh.length > 0 || asked !== scope
      scope = asked
      cursor = read.cursor
      if (read.whole) entries = fresh
      else merge(entries, fresh)
      // Nothing new: nothing to do (the filters' own changes render at once).
      if (changed) render()
    },
  }
}
