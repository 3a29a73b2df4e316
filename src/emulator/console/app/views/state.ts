// The emulator's own state: the clock (advance it; in manual mode nothing else moves it), the quirks (a
// service without Idempotency-Key, ids as strings, lists without the envelope), named snapshots (save,
// restore, delete) and the reset.
import { control, type SnapshotSummary } from '../api.js'
import { button, el, form, input, KeptTable, text } from '../dom.js'
import { act, type Page, type View } from '../view.js'

interface Config {
  quirks: Record<string, boolean>
}
const QUIRKS: Record<string, string> = {
  ignore_idempotency_keys: 'Ignore Idempotency-Key (neither honoured nor echoed)',
  ids_as_strings: 'Ids as numeric strings',
  bare_lists: 'Lists without the envelope',
}

function clockPart(page: Page): { root: HTMLElement; refresh(): Promise<void> } {
  const now = el('p', { id: 'clock-now' })
  const advance = form(
    { class: 'inline', 'aria-label': 'Advance the clock' },
    (fields) =>
      act(page, async () => {
        const seconds = Number(String(fields.get('seconds') ?? '0'))
        const moved = await control<{ now: string }>('POST', '/clock', { advance_ms: Math.round(seconds * 1000) })
        return `clock now ${moved.now}`
      }),
    input('Advance by (s)', 'seconds', { type: 'number', min: '0', step: 'any', value: '60', size: '6' }),
    el('button', { type: 'submit' }, 'Advance'),
  )
  return {
    root: el('div', {}, el('h3', {}, 'Clock'), now, advance),
    async refresh() {
      const clock = await control<{ now: string; mode: string }>('GET', '/clock')
      const how = clock.mode === 'manual' ? 'manual: it moves only when advanced here' : 'real: it runs by itself; advancing adds an offset'
      text(now, `${clock.now} UTC (${how})`)
    },
  }
}

function quirksPart(page: Page): { root: HTMLElement; refresh(): Promise<void> } {
  // A poll must not undo a click: a configuration read while a change is on its way (or begun meanwhile)
  // may be older than the click, so it is not shown; the next poll's is.
  let clicks = 0
  let sending = 0
  const boxes = Object.entries(QUIRKS).map(([name, label]) => {
    const box = el('input', { type: 'checkbox', name })
    box.addEventListener('change', () => {
      const on = box.checked
      clicks++
      sending++
      return act(page, async () => {
        try {
          await control('PATCH', '/config', { quirks: { [name]: on } })
        } finally {
          sending--
        }
        return `${name} ${on ? 'on' : 'off'}`
      })
    })
    return { name, box, label: el('label', { class: 'check' }, box, ` ${label}`) }
  })
  return {
    root: el('div', {}, el('h3', {}, 'Quirks'), ...boxes.map((b) => b.label)),
    async refresh() {
      const before = clicks
      const config = await control<Config>('GET', '/config')
      if (sending > 0 || clicks !== before) return
      for (const { name, box } of boxes) box.checked = config.quirks[name] === true
    },
  }
}

function snapshotsPart(page: Page): { root: HTMLElement; refresh(): Promise<void> } {
  const list = new KeptTable<SnapshotSummary>()
  /** The snapshots as last read: a save under a name already taken replaces that snapshot, so it asks first. */
  let known: SnapshotSummary[] = []
  const save = form(
    { class: 'inline', 'aria-label': 'Save a snapshot' },
    (fields) => {
      const name = String(fields.get('name') ?? '').trim()
      const taken = known.find((s) => s.name === name)
      if (taken && !window.confirm(`Replace snapshot ${name}, saved at ${taken.saved_at}, with the state now? The older one is lost.`))
        return
      return act(page, async () => {
        const saved = await control<SnapshotSummary>('POST', '/snapshots', { name })
        return taken ? `snapshot ${saved.name} replaced` : `snapshot ${saved.name} saved`
      })
    },
    input('Name', 'name', { placeholder: 'baseline', pattern: '[A-Za-z0-9._\\-]{1,64}', required: 'required' }),
    el('button', { type: 'submit' }, 'Save snapshot'),
  )
  // Both undo what nothing else brings back (the state now, the snapshot), so each asks first, as the reset does.
  const named = (verb: string, question: (name: string) => string, run: (name: string) => Promise<unknown>) => (s: SnapshotSummary) =>
    button(
      verb,
      () => {
        if (!window.confirm(question(s.name))) return
        return act(page, async () => {
          await run(s.name)
          return `snapshot ${s.name}: ${verb.toLowerCase()} done`
        })
      },
      { 'aria-label': `${verb} snapshot ${s.name}` },
    )
  const restore = named(
    'Restore',
    (name) => `Replace the whole state with snapshot ${name}? What is there now is lost unless saved as a snapshot first.`,
    (name) => control('POST', `/snapshots/${encodeURIComponent(name)}/restore`),
  )
  const remove = named(
    'Delete',
    (name) => `Delete snapshot ${name}?`,
    (name) => control('DELETE', `/snapshots/${encodeURIComponent(name)}`),
  )
  return {
    root: el('div', {}, el('h3', {}, 'Snapshots'), list.root, save),
    async refresh() {
      const snapshots = await control<SnapshotSummary[]>('GET', '/snapshots')
      known = snapshots
      const columns = [
        { title: 'Name', cell: (s: SnapshotSummary) => s.name },
        { title: 'Saved', cell: (s: SnapshotSummary) => s.saved_at },
        { title: 'Accounts', cell: (s: SnapshotSummary) => s.accounts },
        { title: 'Keypairs', cell: (s: SnapshotSummary) => s.keypairs },
        { title: 'Orders', cell: (s: SnapshotSummary) => s.orders },
        { title: '', cell: (s: SnapshotSummary) => el('span', {}, restore(s), ' ', remove(s)) },
      ]
      list.show(columns, snapshots, (s) => s.name, 'No snapshots saved.')
    },
  }
}

export function stateView(page: Page): View {
  const parts = [clockPart(page), quirksPart(page), snapshotsPart(page)]
  const reset = button(
    'Reset the emulator',
    () => {
      // The one action nothing undoes (the snapshots stay): asked once more.
      if (!window.confirm('Forget every account, keypair, order, rule and log entry?')) return
      return act(page, async () => {
        await control('POST', '/reset')
        return 'emulator reset: every account, order, rule and log entry forgotten (snapshots kept)'
      })
    },
    { class: 'danger' },
  )
  return {
    id: 'state',
    title: 'Clock and state',
    root: el('section', { id: 'view-state' }, el('h2', {}, 'Clock and state'), ...parts.map((p) => p.root), el('h3', {}, 'Reset'), reset),
    async refresh() {
      await Promise.all(parts.map((p) => p.refresh()))
    },
  }
}
