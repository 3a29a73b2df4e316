// What every view of the console is, and what it is given: a section of the page with a refresh (the page
// polls the view on show), and the page's status line to say what an action did or why it failed.

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
