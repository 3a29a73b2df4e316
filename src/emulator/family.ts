// The contract of an API family (one module under src/emulator/families/) and the one builder that turns
// the registry's list of families into the router, the account kinds with their rules and the sequences.
// Here: shared machinery only; nothing in this file may name a family or a kind.
import type { JsonObject } from './json.js'
import type { AccountRegistry, KindRules, Ledger } from './kinds.js'
import type { Account } from './model.js'
import { type Route, Router } from './router.js'

/**
 * A change a customer can make to an account in the service's web portal, as the API call the portal makes
 * (POST /_emulator/portal makes it, out of band): `body` is the fixed part, `input` the field a value typed
 * by the user goes in.
 */
export interface PortalChange {
  readonly method: string
  /** Under /v1. */
  readonly path: string
  readonly body?: JsonObject
  readonly input?: { readonly field: string; readonly type: 'string' | 'integer' }
}
/** An account's portal changes by name (`rename`, `stop`, `start`, `resize`, ...). */
export type PortalChanges = Readonly<Record<string, PortalChange>>

/** Everything one family adds to the emulator; registered by one line in families/index.ts. */
export interface Family {
  /** The family's name, for messages about the registry itself. */
  readonly name: string
  /** Its name as the docs give it (docs/emulator-api.md), e.g. "Metal servers": the web console heads its accounts with it. */
  readonly title: string
  /** Its routes, in the order they are matched among equals (the API's path rules). */
  readonly routes: readonly Route[]
  /** Its account kinds with their rules, in the order the control API lists them. */
  readonly kinds?: Readonly<Record<string, KindRules>>
  /** The sequences it draws ids or addresses from, with their first values. */
  readonly sequences?: Readonly<Record<string, number>>
  /** Reacts to any account leaving (terminated or purged), e.g. by dropping references to it. */
  released?(account: Account, ledger: Ledger): void
  /** By kind: the changes the service's portal offers on an account of that kind (the console offers them). */
  readonly portal?: Readonly<Record<string, (account: Account) => PortalChanges>>
}

/** The sequences of the store itself, around the families' own (state files keep this key order). */
const STORE_SEQUENCES_FIRST = { account: 100001, order: 500001, invoice: 700001, payment: 880001 }
const STORE_SEQUENCES_LAST = { request: 1, fault: 1 }

export interface Registry extends AccountRegistry {
  readonly router: Router<Route>
  /** The portal changes of an account; none for a kind whose family declares none. */
  portalOf(account: Account): PortalChanges
  /** The title of the family of a kind (Family.title); the kind itself for one no family registers. */
  titleOf(kind: string): string
}

/** Builds the registry; two families claiming one kind, or one sequence with two first values, is a bug here. */
export function registryOf(families: readonly Family[]): Registry {
  const rules = new Map<string, KindRules>()
  const portals = new Map<string, (account: Account) => PortalChanges>()
  const titles = new Map<string, string>()
  const sequences: Record<string, number> = { ...STORE_SEQUENCES_FIRST }
  for (const family of families) {
    for (const [kind, rule] of Object.entries(family.kinds ?? {})) {
      if (rules.has(kind)) throw new Error(`family ${family.name}: kind ${kind} is registered twice`)
      rules.set(kind, rule)
      titles.set(kind, family.title)
    }
    for (const [kind, changes] of Object.entries(family.portal ?? {})) portals.set(kind, changes)
    for (const [name, first] of Object.entries(family.sequences ?? {})) {
      if (name in sequences && sequences[name] !== first) throw new Error(`family ${family.name}: sequence ${name} starts twice`)
      sequences[name] = first
    }
  }
  Object.assign(sequences, STORE_SEQUENCES_LAST)
  const reactions = families.flatMap((f) => (f.released ? [f.released.bind(f)] : []))
  return {
    router: new Router<Route>(families.flatMap((f) => f.routes)),
    kinds: [...rules.keys()],
    rulesOf: (kind) => rules.get(kind),
    // A terminated account is gone for the portal too: it offers nothing on it.
    portalOf: (account) => (account.status === 'Terminated' ? {} : (portals.get(account.kind)?.(account) ?? {})),
    titleOf: (kind) => titles.get(kind) ?? kind,
    firstSequences: () => ({ ...sequences }),
    released(account, ledger) {
      for (const react of reactions) react(account, ledger)
    },
  }
}
