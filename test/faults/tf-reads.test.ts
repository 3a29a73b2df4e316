// Real terraform, every order-placing operation × faults c and d of the matrix (test/faults/matrix.ts).
import { faultsOf } from './matrix.js'
import { terraformMatrix } from './terraform-cells.js'

terraformMatrix('terraform-reads', faultsOf('cd'))
