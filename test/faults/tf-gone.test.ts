// Real terraform, every order-placing operation × faults e and f of the matrix (test/support/faults/matrix.ts).
import { faultsOf } from '../support/faults/matrix.js'
import { terraformMatrix } from '../support/faults/terraform-cells.js'

terraformMatrix('terraform-gone', faultsOf('ef'))
