// Real terraform, every order-placing operation × faults e and f of the matrix (test/faults/matrix.ts).
import { faultsOf } from './matrix.js'
import { terraformMatrix } from './terraform-cells.js'

terraformMatrix('terraform-gone', faultsOf('ef'))
