// Building the console's DOM: elements from a tag, attributes and children, where every value from the
// emulator goes in as a text node (textContent), never as markup; tables of rows; small forms. The only
// module that creates elements, so the rule "data is text" is kept in one place.

export type Child = Node | string | number | null | undefined | false

/** An element with `attrs` (attributes, `class` included) and `children` (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue
    node.setAttribute(name, value === true ? '' : value)
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    node.append(typeof child === 'object' ? child : document.createTextNode(String(child)))
  }
  return node
}

/**
 * A button that runs `onClick`; a click while its last run is still on its way is ignored, so a double
 * click pays an invoice (or removes a rule) once, not once and then a second time refused. (The button is
 * not disabled meanwhile: a disabled button loses the keyboard's focus.)
 */
export function button(label: string, onClick: () => void | Promise<void>, attrs: Record<string, string> = {}): HTMLButtonElement {
  const node = el('button', { type: 'button', ...attrs }, label)
  const click = oneAtATime(onClick)
  node.addEventListener('click', () => click())
  return node
}

/** `run`, with a call made while its last one is still on its way ignored (a button's click, a form's submit). */
function oneAtATime<A extends unknown[]>(run: (...args: A) => void | Promise<void>): (...args: A) => void {
  let running = false
  return (...args) => {
    if (running) return
    running = true
    void Promise.resolve()
      .then(() => run(...args))
      .finally(() => {
        running = false
      })
  }
}

/** A column: its heading and what a row shows in it (text, or a node such as a button). */
export interface Column<T> {
  readonly title: string
  readonly cell: (row: T) => Child
}

/**
 * A table kept across the refreshes of its view, in a box that scrolls sideways when the table is wider
 * than the window (so that the page itself does not). show() leaves every row whose data did not change as
 * it is, elements and all, and builds only the others: when nothing changed the page is not touched, and
 * text selected in a row (an id, an Idempotency-Key, to copy) stays selected while other rows change. A
 * row is known by its key; its data (what its cells show) is its JSON unless the view says otherwise.
 */
export class KeptTable<T> {
  readonly root = el('div', { class: 'table-box' })
  readonly #table: HTMLTableElement
  readonly #head = el('thead')
  readonly #body = el('tbody')
  readonly #empty = el('p', { class: 'empty' })
  #titles: string | undefined
  #rows = new Map<string, { data: string; node: HTMLTableRowElement }>()
  readonly #keys = new WeakMap<Element, string>()

  constructor(attrs: Record<string, string> = {}) {
    this.#table = el('table', attrs, this.#head, this.#body)
  }

  /** Shows `rows` (or the line `empty` when there are none); `key` tells a row from the others. */
  show(
    columns: readonly Column<T>[],
    rows: readonly T[],
    key: (row: T) => string | number,
    empty: string,
    data: (row: T) => string = (row) => JSON.stringify(row),
  ): void {
    const titles = JSON.stringify(columns.map((c) => c.title))
    if (titles !== this.#titles) {
      // Other columns: every row is built again.
      this.#titles = titles
      this.#rows = new Map()
      place(this.#head, [el('tr', {}, ...columns.map((c) => el('th', {}, c.title)))])
    }
    const focus = this.#focused()
    const rowsNow = new Map<string, { data: string; node: HTMLTableRowElement }>()
    const nodes = rows.map((row) => {
      const id = String(key(row))
      const shown = data(row)
      const kept = this.#rows.get(id)
      const node =
        kept && kept.data === shown && !rowsNow.has(id) ? kept.node : el('tr', {}, ...columns.map((c) => el('td', {}, c.cell(row))))
      this.#keys.set(node, id)
      rowsNow.set(id, { data: shown, node })
      return node
    })
    this.#rows = rowsNow
    if (rows.length === 0) {
      text(this.#empty, empty)
      place(this.root, [this.#empty])
    } else {
      place(this.#body, nodes)
      place(this.root, [this.#table])
    }
    if (focus) this.#refocus(focus, nodes)
  }

  /** Where the keyboard's focus is in the table, if it is: its row's key and place, its cell, what it is. */
  #focused(): { key: string; index: number; cell: number; like: string } | undefined {
    const active = document.activeElement
    if (!(active instanceof HTMLElement) || !this.#body.contains(active)) return undefined
    const cell = active.closest('td')
    const row = cell?.parentElement
    const key = row ? this.#keys.get(row) : undefined
    if (!cell || !row || key === undefined) return undefined
    return { key, index: [...this.#body.children].indexOf(row), cell: [...row.children].indexOf(cell), like: likeness(active) }
  }

  /**
   * A focused element whose row was rebuilt or removed (a Pay button once the invoice is paid, a Remove
   * button once its rule is gone) gives the focus to its like in the row built in its place, else to its
   * cell there (which says what the click did); a removed row's, to the row now in its place, else to the
   * table: never back to the page's start.
   */
  #refocus(focus: { key: string; index: number; cell: number; like: string }, nodes: HTMLTableRowElement[]): void {
    const active = document.activeElement
    if (active instanceof HTMLElement && active !== document.body && active.isConnected) return
    const same = nodes.find((node) => this.#keys.get(node) === focus.key)
    const row = same ?? nodes[Math.min(focus.index, nodes.length - 1)]
    const cell = row?.children[focus.cell]
    const like = same ? [...same.querySelectorAll<HTMLElement>('*')].find((node) => likeness(node) === focus.like) : undefined
    const control = same ? undefined : cell?.querySelector<HTMLElement>('button, a[href], input, select')
    focusOn(like ?? control ?? (cell instanceof HTMLElement ? cell : this.root.firstElementChild))
  }
}

/** Gives the keyboard's focus to `target`, made focusable (by script only) where it is not: a cell, a line of text. */
function focusOn(target: Element | null | undefined): void {
  if (!(target instanceof HTMLElement)) return
  if (target.tabIndex < 0 && !target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1')
  target.focus()
}

/**
 * Shows or hides `node`. A node hidden while it holds the keyboard's focus (a button whose work is done,
 * such as "Remove every rule" once no rule is left) gives the focus to `heir`, which says what is there
 * now: the focus never falls back to the page's start.
 */
export function shown(node: HTMLElement, on: boolean, heir: () => Element | null | undefined): void {
  const focused = !on && !node.hidden && node.contains(document.activeElement)
  node.hidden = !on
  if (focused) focusOn(heir())
}

/**
 * Makes `parent` hold exactly `nodes`, in order, moving as little as it can: a node already there stays
 * where it is unless the order changed (moving an element loses a selection in it), the others are
 * removed or inserted.
 */
export function place(parent: Element, nodes: readonly Node[]): void {
  const wanted = new Set(nodes)
  for (const child of [...parent.childNodes]) if (!wanted.has(child)) child.remove()
  let next = parent.firstChild
  for (const node of nodes) {
    if (node === next) next = next.nextSibling
    else parent.insertBefore(node, next)
  }
}

/** Sets what `node` says, touching it only when that changed (a selection in it stays). */
export function text(node: Element, value: string): void {
  if (node.textContent !== value) node.textContent = value
}

/** A labelled input. */
export function input(label: string, name: string, attrs: Record<string, string> = {}): HTMLLabelElement {
  return el('label', {}, label, el('input', { name, ...attrs }))
}

/** A labelled select of `options` ([value, label]). */
export function select(label: string, name: string, options: readonly (readonly [string, string])[]): HTMLLabelElement {
  return el('label', {}, label, el('select', { name }, ...options.map(([value, text]) => el('option', { value }, text))))
}

/**
 * A form whose submit calls `onSubmit` with its fields (no page load). A submit while the last one is
 * still on its way is ignored, as a button's click is: a double click on "Add rule" adds one rule.
 */
export function form(
  attrs: Record<string, string>,
  onSubmit: (fields: FormData) => void | Promise<void>,
  ...children: Child[]
): HTMLFormElement {
  const node = el('form', attrs, ...children)
  const submit = oneAtATime(onSubmit)
  node.addEventListener('submit', (event) => {
    event.preventDefault()
    submit(new FormData(node))
  })
  return node
}

/**
 * Replaces what `parent` holds with `children`. An element of it that had the keyboard's focus (a Pay
 * button the user tabbed to) gives it to its like in the new children, so that a refresh every second
 * does not throw the focus back to the page.
 */
export function fill(parent: Element, ...children: Child[]): void {
  const active = document.activeElement
  const focused = active instanceof HTMLElement && active !== parent && parent.contains(active) ? likeness(active) : undefined
  parent.replaceChildren(
    ...children
      .filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false)
      .map((c) => (typeof c === 'object' ? c : String(c))),
  )
  if (focused === undefined || !(active instanceof HTMLElement)) return
  for (const node of parent.querySelectorAll<HTMLElement>(active.tagName)) {
    if (likeness(node) === focused) {
      node.focus()
      return
    }
  }
}

/** What tells an element from the others of a refreshed view: its tag, name, data attributes and text. */
function likeness(node: HTMLElement): string {
  const attributes = [...node.attributes]
    .filter((a) => a.name === 'name' || a.name.startsWith('data-'))
    .map((a) => `${a.name}=${a.value}`)
    .sort()
  return JSON.stringify([node.tagName, attributes, node.textContent ?? ''])
}
