// Real terraform, every order-placing operation × faults a and b of the matrix (test/support/faults/matrix.ts).
import { faultsOf } from '../support/faults/matrix.js'
import { terraformMatrix } from '../support/faults/terraform-cells.js'

terraformMatrix('terraform-order', faultsOf('ab'))
