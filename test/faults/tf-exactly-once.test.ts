// Real terraform, issue 8 cases 1 to 5 (faults i to m of test/faults/matrix.ts), each followed by a
// re-run: every column for the create kinds of three API families by default; FAULT_OPS=all (or a
// list of operation keys) runs every order kind of the matrix.
import { terraformExactlyOnce } from './exactly-once-cells.js'
import { CREATE_KEYS, faultsOf, OPERATIONS } from './matrix.js'

const only = process.env.FAULT_OPS?.split(',').filter(Boolean)
const operations = only?.includes('all') ? OPERATIONS : OPERATIONS.filter((op) => (only && only.length > 0 ? only : CREATE_KEYS).includes(op.key))
terraformExactlyOnce('terraform-exactly-once', faultsOf('ijklm'), operations)
