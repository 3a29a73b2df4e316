// Listing the objects an API key can see (core/list.ts): each read as an import reads it, the filters and
// the limit, gone or unreadable objects left out, failures and aborts, and the load-time check of a declaration.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { BoxService, boxDefinition } from '../../test/support/box-resource.js'
import type { Session } from './apply.js'
import { checkResource, DefinitionError } from './definition.js'
import { type AnyResource, silentLogger } from './definition-types.js'
import { type ListEvent, listResources } from './list.js'
import { pattern } from './validators.js'

/** The test box, listable: its ids in the service's order, two filters, shown by its name. */
const box: AnyResource = {
  ...boxDefinition,
  list: {
    ids: async ({ client }) => {
      const service = client as BoxService
      service.call('list')
      return [...service.boxes.keys()]
    },
    filters: {
      name_prefix: { attribute: 'name', match: 'prefix', description: 'Name prefix.', example: 'b' },
      status: { attribute: 'status', match: 'equals', description: 'Status.', example: 'ready' },
    },
    displayName: 'name',
  },
}

function serviceWith(...boxes: [string, string, string][]): BoxService {
  const service = new BoxService()
  for (const [id, name, status] of boxes) service.boxes.set(id, { id, name, size: 10, label: 'l', power: 'on', status })
  return service
}

function session(service: BoxService, signal = new AbortController().signal): Session<BoxService> {
  return { client: service, log: silentLogger, signal }
}

async function all(events: AsyncIterable<ListEvent>): Promise<ListEvent[]> {
  const out: ListEvent[] = []
  for await (const event of events) out.push(event)
  return out
}

const ids = (events: ListEvent[]) => events.flatMap((e) => ('listed' in e ? [e.listed.id] : []))

describe('listing', () => {
  test('every object, in the service order, read as its import reads it, shown by its display attribute', async () => {
    const service = serviceWith(['3', 'gamma', 'Active'], ['1', 'alpha', 'Active'])
    const events = await all(listResources(box, {}, session(service)))
    assert.deepEqual(ids(events), ['3', '1'])
    const first = events[0]
    assert.ok(first && 'listed' in first)
    assert.equal(first.listed.displayName, 'gamma')
    // The import's state: the read's values, defaults for what the service cannot tell.
    assert.deepEqual(first.listed.state, {
      id: '3',
      name: 'gamma',
      coupon: null,
      size: 10,
      label: 'l',
      power: null,
      paid: true,
      status: 'Active',
      serial: 'S-3',
      timeouts: null,
    })
    assert.deepEqual(service.calls, ['list', 'read', 'read'])
  })

  test('the filters set must all match: a prefix, a whole value; unset filters keep everything', async () => {
    const service = serviceWith(['1', 'web-1', 'Active'], ['2', 'web-2', 'Pending'], ['3', 'db-1', 'Active'])
    assert.deepEqual(ids(await all(listResources(box, { name_prefix: 'web' }, session(service)))), ['1', '2'])
    assert.deepEqual(ids(await all(listResources(box, { name_prefix: 'web', status: 'Active' }, session(service)))), ['1'])
    assert.deepEqual(ids(await all(listResources(box, { status: 'Act' }, session(service)))), [], 'equals is not a prefix')
    assert.deepEqual(ids(await all(listResources(box, { name_prefix: null, status: null }, session(service)))), ['1', '2', '3'])
  })

  test('the limit counts kept objects, and reading stops there', async () => {
    const service = serviceWith(['1', 'db-1', 'Active'], ['2', 'web-1', 'Active'], ['3', 'web-2', 'Active'], ['4', 'web-3', 'Active'])
    assert.deepEqual(ids(await all(listResources(box, { name_prefix: 'web' }, session(service), 2))), ['2', '3'])
    assert.equal(service.calls.filter((c) => c === 'read').length, 3, 'the fourth box is never read')
  })

  test('a gone object is left out silently; one whose read fails is left out with a warning naming it', async () => {
    const service = serviceWith(['1', 'alpha', 'Terminated'], ['2', 'beta', 'Active'], ['3', 'gamma', 'Active'])
    const failing: AnyResource = {
      ...box,
      read: async (ctx) => {
        if (ctx.id === '3') throw new Error('the service broke')
        return box.read(ctx)
      },
    }
    const events = await all(listResources(failing, {}, session(service)))
    assert.deepEqual(ids(events), ['2'])
    const warnings = events.flatMap((e) => ('diagnostics' in e ? e.diagnostics : []))
    assert.equal(warnings.length, 1)
    assert.equal(warnings[0]?.severity, 'warning')
    assert.equal(warnings[0]?.summary, 'box 3 is left out of the list')
    assert.match(warnings[0]?.detail ?? '', /the service broke/)
  })

  test('a listing that fails yields its error; an aborted session stops before the next read', async () => {
    const broken: AnyResource = {
      ...box,
      list: {
        ...(box.list as NonNullable<AnyResource['list']>),
        ids: async () => {
          throw new Error('listing refused')
        },
      },
    }
    const [event] = await all(listResources(broken, {}, session(new BoxService())))
    assert.ok(event && 'diagnostics' in event)
    assert.equal(event.diagnostics[0]?.severity, 'error')
    assert.match(`${event.diagnostics[0]?.summary} ${event.diagnostics[0]?.detail}`, /listing refused/)

    const service = serviceWith(['1', 'a1', 'Active'], ['2', 'a2', 'Active'], ['3', 'a3', 'Active'])
    const stop = new AbortController()
    const seen: string[] = []
    for await (const e of listResources(box, {}, session(service, stop.signal))) {
      if ('listed' in e) seen.push(e.listed.id)
      stop.abort()
    }
    assert.deepEqual(seen, ['1'])
    assert.equal(service.calls.filter((c) => c === 'read').length, 1)
  })

  test('the definition check refuses a filter or display attribute the resource does not have', () => {
    const bad = (list: NonNullable<AnyResource['list']>, message: RegExp) =>
      assert.throws(
        () => checkResource({ ...box, list }),
        (e: unknown) => e instanceof DefinitionError && message.test(e.message),
      )
    const list = box.list as NonNullable<AnyResource['list']>
    bad(
      { ...list, filters: { owner: { attribute: 'owner', match: 'equals', description: 'x', example: 'x' } } },
      /list filter owner reads unknown attribute owner/,
    )
    bad(
      { ...list, filters: { Name: { attribute: 'name', match: 'equals', description: 'x', example: 'x' } } },
      /list filter Name is not snake_case/,
    )
    bad(
      { ...list, filters: { name: { attribute: 'name', match: 'equals', description: '', example: 'x' } } },
      /list filter name has no description/,
    )
    // The example is what the reference page's `list` block sets: one the filter refuses would fail as written.
    bad(
      { ...list, filters: { status: { attribute: 'status', match: 'equals', description: 'x', values: ['ready'], example: '...' } } },
      /list filter status has no example the filter takes \("\.\.\." is none of ready\)/,
    )
    bad(
      {
        ...list,
        filters: {
          name: { attribute: 'name', match: 'equals', description: 'x', validate: [pattern(/^[0-9]+$/, 'digits')], example: 'x' },
        },
      },
      /list filter name has no example the filter takes/,
    )
    bad({ ...list, displayName: 'title' }, /list displayName names unknown attribute title/)
    assert.doesNotThrow(() => checkResource(box))
  })
})
