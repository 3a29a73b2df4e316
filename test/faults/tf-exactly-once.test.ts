// Real terraform, issue 8 cases 1 to 5 (faults i to m of test/support/faults/matrix.ts), each followed by a
// re-run, for the operations of exactlyOnceOperations: by default the create kinds of three API
// families and the migration; FAULT_OPS=all (or a list of operation keys) every order kind.
import { terraformExactlyOnce } from '../support/faults/exactly-once-cells.js'
import { exactlyOnceOperations, faultsOf } from '../support/faults/matrix.js'

terraformExactlyOnce('terraform-exactly-once', faultsOf('ijklm'), exactlyOnceOperations())
