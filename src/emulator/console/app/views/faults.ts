// Fault and latency rules: the rules in force, in the order the emulator tries them (with their priority
// and the fires left), a small form to add one (method, path pattern, mode, status, detail, Retry-After,
// delay, count, probability, priority), a button to remove each, and the named profiles.
import { control, type Fault } from '../api.js'
import { button, el, fill, form, input, KeptTable, select, shown } from '../dom.js'
import { act, type Page, type View } from '../view.js'

const MODES = ['error', 'error_after', 'drop_after', 'hang', 'hang_after', 'delay'] as const

/**
 * The rule the form describes: empty fields are left to the emulator's defaults; a number field that
 * holds no number is refused here, naming it, rather than sent as null and refused for another reason.
 */
export function ruleFrom(fields: FormData): Record<string, unknown> {
  const text = (name: string) => String(fields.get(name) ?? '').trim()
  const number = (name: string, label: string, whole: boolean) => {
    const value = Number(text(name))
    if (!Number.isFinite(value) || (whole && !Number.isInteger(value)))
      throw new Error(`${label} must be ${whole ? 'a whole number' : 'a number'}, got '${text(name)}'`)
    return value
  }
  const rule: Record<string, unknown> = { method: text('method') || '*', path: text('path'), mode: text('mode') || 'error' }
  if (text('status') !== '') rule.status = number('status', 'Status', true)
  if (text('detail') !== '') rule.detail = text('detail')
  const delay = text('delay_ms')
  if (delay !== '') {
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(delay)
    rule.delay_ms = range ? [Number(range[1]), Number(range[2])] : number('delay_ms', 'Delay ms', true)
  }
  if (text('retry_after_s') !== '') rule.retry_after_s = number('retry_after_s', 'Retry-After s', true)
  if (text('count') !== '') rule.count = number('count', 'Count', true)
  if (text('probability') !== '') rule.probability = number('probability', 'Probability', false)
  if (text('priority') !== '') rule.priority = number('priority', 'Priority', true)
  return rule
}

/**
 * The rules in the order the emulator tries them (src/emulator/faults.ts, takeFault): highest priority
 * first (0 unless set; a profile's are -1, so they come after every rule added by hand), then oldest
 * first, as the control API lists them.
 */
export function triedOrder(faults: readonly Fault[]): Fault[] {
  return [...faults].sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0))
}

export function faultsView(page: Page): View {
  const list = new KeptTable<Fault>({ id: 'fault-rules' })
  const profiles = el('div', { class: 'inline' })
  const add = form(
    { class: 'inline', 'aria-label': 'Add a fault rule' },
    (fields) =>
      act(page, async () => {
        const added = await control<Fault>('POST', '/faults', ruleFrom(fields))
        return `rule ${added.fault_id} added`
      }),
    select(
      'Method',
      'method',
      ['*', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => [m, m] as const),
    ),
    input('Path under /v1', 'path', { placeholder: '/lites/** or /baremetals', required: 'required' }),
    select(
      'Mode',
      'mode',
      MODES.map((m) => [m, m] as const),
    ),
    input('Status', 'status', { placeholder: 'e.g. 503', size: '8' }),
    input('Detail', 'detail', { placeholder: 'the error text' }),
    input('Retry-After s', 'retry_after_s', { placeholder: 'none', size: '5' }),
    input('Delay ms', 'delay_ms', { placeholder: '150 or 100-300', size: '13' }),
    input('Count', 'count', { placeholder: '1 (-1: for ever)', size: '15' }),
    input('Probability', 'probability', { placeholder: '0 to 1', size: '5' }),
    input('Priority', 'priority', { placeholder: '0', size: '5' }),
    el('button', { type: 'submit' }, 'Add rule'),
  )
  const removeAll = button('Remove every rule', () =>
    act(page, async () => {
      await control('DELETE', '/faults')
      return 'every rule removed'
    }),
  )
  const root = el(
    'section',
    { id: 'view-faults' },
    el('h2', {}, 'Fault and latency rules'),
    el(
      'p',
      { class: 'hint' },
      'Tried from the top, highest priority first, then oldest first; the first that matches (and whose probability hits) applies. A profile\u2019s rules have priority -1.',
    ),
    list.root,
    removeAll,
    el('h3', {}, 'Add a rule'),
    add,
    el('h3', {}, 'Profiles'),
    profiles,
  )
  const remove = (id: string) => () =>
    act(page, async () => {
      await control('DELETE', `/faults/${encodeURIComponent(id)}`)
      return `rule ${id} removed`
    })
  return {
    id: 'faults',
    title: 'Faults',
    root,
    async refresh() {
      const [faults, named] = await Promise.all([
        control<Fault[]>('GET', '/faults'),
        control<Record<string, unknown[]>>('GET', '/profiles'),
      ])
      const columns = [
        { title: 'Priority', cell: (f: Fault) => f.priority ?? 0 },
        { title: 'ID', cell: (f: Fault) => f.fault_id },
        { title: 'Method', cell: (f: Fault) => f.method },
        { title: 'Path', cell: (f: Fault) => f.path },
        { title: 'Mode', cell: (f: Fault) => f.mode },
        { title: 'Status', cell: (f: Fault) => f.status ?? '–' },
        { title: 'Detail', cell: (f: Fault) => f.detail },
        { title: 'Retry-After s', cell: (f: Fault) => f.retry_after_s ?? '–' },
        { title: 'Delay ms', cell: (f: Fault) => (Array.isArray(f.delay_ms) ? f.delay_ms.join('–') : f.delay_ms) },
        { title: 'Left', cell: (f: Fault) => (f.remaining < 0 ? '∞' : f.remaining) },
        { title: 'Probability', cell: (f: Fault) => f.probability ?? 1 },
        {
          title: '',
          // Named by its rule: a screen reader's list of buttons says which rule each removes.
          cell: (f: Fault) => button('Remove', remove(f.fault_id), { 'data-fault': f.fault_id, 'aria-label': `Remove rule ${f.fault_id}` }),
        },
      ]
      list.show(columns, triedOrder(faults), (f) => f.fault_id, 'No rules: every request is answered normally.')
      // Nothing to remove: the button would do nothing. Pressed, it goes with the rules, and its focus to the line saying there are none.
      shown(removeAll, faults.length > 0, () => list.root.firstElementChild)
      const install = (name: string) => () =>
        act(page, async () => {
          await control('POST', `/profiles/${encodeURIComponent(name)}`)
          return `profile ${name} installed`
        })
      // Rebuilt only when the names changed: a button the user is on keeps the focus.
      const names = JSON.stringify(Object.keys(named))
      if (profiles.dataset.shown === names) return
      profiles.dataset.shown = names
      fill(profiles, ...Object.keys(named).map((name) => button(`Install ${name}`, install(name))))
    },
  }
}
