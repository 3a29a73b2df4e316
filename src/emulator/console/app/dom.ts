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

export function button(label: string, onClick: () => void | Promise<void>, attrs: Record<string, string> = {}): HTMLButtonElement {
  const node = el('button', { type: 'button', ...attrs }, label)
  node.addEventListener('click', () => void onClick())
  return node
}

/** A column: its heading and what a row shows in it (text, or a node such as a button). */
export interface Column<T> {
  readonly title: string
  readonly cell: (row: T) => Child
}

/** A table of `rows`, or a line saying there is nothing when there are none. */
export function table<T>(
  columns: readonly Column<T>[],
  rows: readonly T[],
  empty: string,
  attrs: Record<string, string> = {},
): HTMLElement {
  if (rows.length === 0) return el('p', { class: 'empty' }, empty)
  return el(
    'table',
    attrs,
    el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', {}, c.title)))),
    el('tbody', {}, ...rows.map((row) => el('tr', {}, ...columns.map((c) => el('td', {}, c.cell(row)))))),
  )
}

/** A labelled input. */
export function input(label: string, name: string, attrs: Record<string, string> = {}): HTMLLabelElement {
  return el('label', {}, label, el('input', { name, ...attrs }))
}

/** A labelled select of `options` ([value, label]). */
export function select(label: string, name: string, options: readonly (readonly [string, string])[]): HTMLLabelElement {
  return el('label', {}, label, el('select', { name }, ...options.map(([value, text]) => el('option', { value }, text))))
}

/** A form whose submit calls `onSubmit` with its fields (no page load). */
export function form(
  attrs: Record<string, string>,
  onSubmit: (fields: FormData) => void | Promise<void>,
  ...children: Child[]
): HTMLFormElement {
  const node = el('form', attrs, ...children)
  node.addEventListener('submit', (event) => {
    event.preventDefault()
    void onSubmit(new FormData(node))
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
