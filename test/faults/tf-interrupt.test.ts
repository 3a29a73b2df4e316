// Real terraform, every order-placing operation × faults g and h of the matrix (test/support/faults/matrix.ts).
import { faultsOf } from '../support/faults/matrix.js'
import { terraformMatrix } from '../support/faults/terraform-cells.js'

terraformMatrix('terraform-interrupt', faultsOf('gh'))
