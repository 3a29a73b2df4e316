// The built Pulumi plugin over gRPC, every order-placing operation × faults abcd of the matrix (test/faults/matrix.ts).
import { faultsOf } from './matrix.js'
import { pulumiMatrix } from './pulumi-cells.js'

pulumiMatrix('pulumi-order-reads', faultsOf('abcd'))
