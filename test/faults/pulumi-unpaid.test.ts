// Every order-placing operation with its invoice left unpaid, under the engine's rules (pulumi-cells.ts).
import { pulumiUnpaidMatrix } from './pulumi-cells.js'

pulumiUnpaidMatrix()
