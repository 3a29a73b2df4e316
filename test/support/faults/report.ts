// The closing-note table: each fault test file records its rows in build/fault-report/<part>.json and
// re-renders build/fault-report.md from every part present, so the table is whole after any run order.
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../e2e/harness.js'
import { ACTIONS, FAULTS, OPERATIONS } from './matrix.js'

const DIR = join(ROOT, 'build', 'fault-report')
const OUT = join(ROOT, 'build', 'fault-report.md')

export interface CellRow {
  readonly kind: 'cell'
  readonly front: 'terraform' | 'pulumi'
  readonly op: string
  readonly fault: string
  readonly intended: Record<string, number>
  readonly placed: Record<string, number>
  readonly lost: readonly string[]
  /** How the faulted run ended, e.g. `ok`, `kept, incomplete`, `error (gone)`. */
  readonly outcome: string
  /** The plan or preview after the re-run is empty. */
  readonly converged: boolean
  readonly status: 'pass' | 'fail' | 'todo'
  readonly note?: string
}

/** What a cell observed, in the terms of its row, and what else its pass requires. */
export interface CellFacts extends Omit<CellRow, 'kind' | 'status'> {
  /** The re-run ended without an error. */
  readonly rerunOk: boolean
  /** Further conditions of a pass, each with what its failure means (e.g. the provider outlived terraform). */
  readonly also?: readonly (readonly [boolean, string])[]
}

function sorted(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)))
}

/** The report row of a cell: it passes when it placed what it intended, lost nothing, re-ran cleanly and converged. */
export function cellRow(facts: CellFacts): CellRow {
  const same = JSON.stringify(sorted(facts.placed)) === JSON.stringify(sorted(facts.intended))
  const passed = same && facts.lost.length === 0 && facts.rerunOk && facts.converged && (facts.also ?? []).every(([ok]) => ok)
  return {
    kind: 'cell',
    front: facts.front,
    op: facts.op,
    fault: facts.fault,
    intended: facts.intended,
    placed: facts.placed,
    lost: facts.lost,
    outcome: facts.outcome,
    converged: facts.converged,
    status: passed ? 'pass' : 'fail',
    ...(facts.note ? { note: facts.note } : {}),
  }
}

/** Adds the cell's row to `report`, then fails the test on the first unmet condition, with `context` (the runs' output). */
export function recordCell(report: Report, facts: CellFacts, context: string): void {
  report.add(cellRow(facts))
  assert.deepEqual(sorted(facts.placed), sorted(facts.intended), `orders placed vs intended\n${context}`)
  assert.deepEqual(facts.lost, [], `accounts ordered but not managed\n${context}`)
  for (const [ok, what] of facts.also ?? []) assert.ok(ok, `${what}\n${context}`)
  assert.ok(facts.rerunOk, `the re-run failed\n${context}`)
  assert.ok(facts.converged, `the plan after the re-run is not empty\n${context}`)
}

export interface InputRow {
  readonly kind: 'input'
  readonly front: 'terraform' | 'pulumi'
  readonly target: string
  readonly tried: number
  readonly rejected: number
  readonly apiCalls: number
}

export interface SecretRow {
  readonly kind: 'secret'
  readonly where: string
  readonly lines: number
  readonly leaks: number
}

export type Row = CellRow | InputRow | SecretRow

export class Report {
  private readonly rows: Row[] = []
  constructor(private readonly part: string) {}

  add(row: Row): void {
    this.rows.push(row)
    this.flush()
  }

  private flush(): void {
    mkdirSync(DIR, { recursive: true })
    writeFileSync(join(DIR, `${this.part}.json`), JSON.stringify(this.rows, null, 1))
    writeFileSync(OUT, render(readAll()))
  }
}

function readAll(): Row[] {
  const rows: Row[] = []
  for (const name of readdirSync(DIR).sort()) {
    if (!name.endsWith('.json')) continue
    try {
      rows.push(...(JSON.parse(readFileSync(join(DIR, name), 'utf8')) as Row[]))
    } catch {
      // A part being written by another file right now: the next flush includes it.
    }
  }
  return rows
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0)

function cellText(row: CellRow | undefined): string {
  if (!row) return '–'
  const mark = row.status === 'pass' ? '✓' : row.status === 'todo' ? 'todo' : '✗'
  const lost = row.lost.length > 0 ? ` lost ${row.lost.join(',')}` : ''
  return `${mark} ${total(row.placed)}/${total(row.intended)}${lost}`
}

export function render(rows: readonly Row[]): string {
  const cells = rows.filter((r): r is CellRow => r.kind === 'cell')
  const out: string[] = ['# Fault matrix report', '']
  out.push(
    'Each cell: ✓/✗, orders placed/intended (emulator order counters, faulted run plus re-run), and any id lost',
    '(an account not Terminated that neither the state nor the error output names). f intends one re-create on the re-run.',
    '',
  )
  for (const front of ['terraform', 'pulumi'] as const) {
    out.push(`## ${front === 'terraform' ? 'Terraform CLI' : 'Pulumi engine protocol'}`, '')
    out.push(`| operation | ${FAULTS.map((f) => `${f.key}`).join(' | ')} |`)
    out.push(`|---|${FAULTS.map(() => '---').join('|')}|`)
    // The one-shot actions have rows only where a front end ran them.
    const actions = ACTIONS.filter((a) => cells.some((c) => c.front === front && c.op === a.key))
    for (const op of [...OPERATIONS, ...actions]) {
      const line = FAULTS.map((f) => cellText(cells.find((c) => c.front === front && c.op === op.key && c.fault === f.key)))
      out.push(`| ${op.title} | ${line.join(' | ')} |`)
    }
    const mine = cells.filter((c) => c.front === front)
    const intended = mine.reduce((n, c) => n + total(c.intended), 0)
    const placed = mine.reduce((n, c) => n + total(c.placed), 0)
    const lost = mine.reduce((n, c) => n + c.lost.length, 0)
    out.push(
      '',
      `Cells run: ${mine.length}; orders intended ${intended}, placed ${placed}; ids lost ${lost}; ` +
        `not converged ${mine.filter((c) => !c.converged).length}; failed ${mine.filter((c) => c.status === 'fail').length}.`,
      '',
    )
  }
  out.push('Faults: ' + FAULTS.map((f) => `${f.key} = ${f.title}`).join('; ') + '.', '')
  const outcomes = cells.filter((c) => c.outcome !== 'ok' || c.note)
  if (outcomes.length > 0) {
    out.push(
      '### How the faulted runs ended (cells that did not simply succeed)',
      '',
      '| front | operation | fault | outcome | note |',
      '|---|---|---|---|---|',
    )
    for (const c of outcomes) out.push(`| ${c.front} | ${c.op} | ${c.fault} | ${c.outcome} | ${c.note ?? ''} |`)
    out.push('')
  }
  const inputs = rows.filter((r): r is InputRow => r.kind === 'input')
  if (inputs.length > 0) {
    out.push(
      '## Bad input (plan / Check)',
      '',
      '| front | resource or lookup | inputs tried | rejected with field and rule | API calls |',
      '|---|---|---|---|---|',
    )
    for (const r of inputs) out.push(`| ${r.front} | ${r.target} | ${r.tried} | ${r.rejected} | ${r.apiCalls} |`)
    out.push('')
  }
  const secrets = rows.filter((r): r is SecretRow => r.kind === 'secret')
  if (secrets.length > 0) {
    out.push('## Secret hygiene', '', '| log | lines | secrets found |', '|---|---|---|')
    for (const r of secrets) out.push(`| ${r.where} | ${r.lines} | ${r.leaks} |`)
    out.push('')
  }
  return out.join('\n')
}
