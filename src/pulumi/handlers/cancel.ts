/**
 * Cancel: the server stops in-flight operations at their next step boundary; later calls start afresh.
 * The engine calls it at the end of every command too, so it is no news to the user (debug).
 */
import type { PulumiServer } from '../server.js'

export function cancel(ps: PulumiServer): void {
  ps.log('debug', 'cancel requested: stopping in-flight operations at their next step boundary')
  ps.server.interrupt(new Error('Pulumi cancelled the operation'))
}
