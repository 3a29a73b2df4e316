// What every view of the console is, and what it is given: a section of the page with a refresh (the page
// polls the view on show), and the page's status line to say what an action did or why it failed; and the
// column every table of the customers' things shares.
import type { Column } from './dom.js'

export interface Page {
  /** Empties the status line as an action starts, so what it says next is that action's. */
  working(): void
  /** Says what an action did, in the status line. */
  done(message: string): void
  /** Says why an action or a refresh failed, in the status line. */
  failed(error: unknown): void
  /** Refreshes the view on show now (after an action). */
  refresh(): Promise<void>
}

export interface View {
  /** The hash the tab links to, e.g. `accounts` for `#accounts`. */
  readonly id: string
  readonly title: string
  /** The section, built once; refresh() replaces the data in it, never the forms. */
  readonly root: HTMLElement
  refresh(): Promise<void>
}

/** Runs an action of a button or a form: its message, or its error, goes to the status line, then the view refreshes. */
export async function act(page: Page, action: () => Promise<string>): Promise<void> {
  page.working()
  try {
    page.done(await action())
  } catch (error) {
    page.failed(error)
  }
  await page.refresh()
}

/**
 * The Customer column, first in a table of things the emulator's customers own (accounts, orders,
 * keypairs, requests): shown only where its rows name two customers or more. With one, it would repeat
 * the same name on every row; the header's selector is hidden then too. A row of no customer (a request
 * refused 401 for a missing or unknown key: `customer` null) names none, so it does not make a second.
 */
export function ownerColumn<T extends { customer?: string | null }>(rows: readonly T[]): Column<T>[] {
  const owners = new Set(rows.flatMap((row) => (row.customer === undefined || row.customer === null ? [] : [row.customer])))
  return owners.size < 2 ? [] : [{ title: 'Customer', cell: (row) => row.customer ?? '–' }]
}
