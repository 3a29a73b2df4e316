// Real terraform, every order-placing operation × faults g and h of the matrix (test/faults/matrix.ts).
import { faultsOf } from './matrix.js'
import { terraformMatrix } from './terraform-cells.js'

terraformMatrix('terraform-interrupt', faultsOf('gh'))
