// Real terraform, issue 8 cases 1 to 5 (faults i to m of test/faults/matrix.ts), each followed by a
// re-run: every column for the create kinds of three API families and the migration (an upgrade whose
// outcome a key-ignoring service leaves to be read back) by default; FAULT_OPS=all (or a list of
// operation keys) runs every order kind of the matrix.
import { terraformExactlyOnce } from './exactly-once-cells.js'
import { CREATE_KEYS, faultsOf, OPERATIONS } from './matrix.js'

const only = process.env.FAULT_OPS?.split(',').filter(Boolean)
const defaults = [...CREATE_KEYS, 'vm-migrate']
const operations = only?.includes('all') ? OPERATIONS : OPERATIONS.filter((op) => (only && only.length > 0 ? only : defaults).includes(op.key))
terraformExactlyOnce('terraform-exactly-once', faultsOf('ijklm'), operations)
