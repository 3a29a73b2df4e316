// Real terraform, every order-placing operation × faults a and b of the matrix (test/faults/matrix.ts).
import { faultsOf } from './matrix.js'
import { terraformMatrix } from './terraform-cells.js'

terraformMatrix('terraform-order', faultsOf('ab'))
