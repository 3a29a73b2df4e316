// waitForActive on a fake clock: the poll interval and its backoff, an unpaid invoice, Suspended and
// Terminated, the 404 window of a fresh order, timeouts and cancellation, and errors that name the
// account and order.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ApiError, TransportError, WaitError } from './errors.js'
import { fail, ok, testClient } from '../../test/support/fake-fetch.js'

const PAID = {
  id: 700017,
  paid_id: 880017,
  status: 'Paid',
  date: '2025-03-01',
  duedate: '2025-03-01',
  paybefore: '2025-03-04',
  datepaid: '2025-03-01 09:15:02',
  invoice_type: 'new',
}
const UNPAID = { ...PAID, id: 700018, paid_id: null, status: 'Unpaid', datepaid: null }

function vm(status: string, invoice: object = PAID) {
  return {
    account_id: 100042,
    status,
    billingcycle: 'Monthly',
    date_created: '2025-03-01',
    next_due: '2025-04-01',
    recurring_amount: 60000,
    product_id: 101,
    product_name: 'XS 1.1',
    description: '',
    order_id: '500017',
    last_invoice: invoice,
    extra_details: { name: 'web-server-01', keypair_id: 7, disk_size: '20', snapshot_id: null },
  }
}

async function waitError(promise: Promise<unknown>): Promise<WaitError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof WaitError, `expected WaitError, got ${String(error)}`)
    return error
  }
  assert.fail('expected a WaitError')
}

describe('waitForActive', () => {
  test('polls at once, then at the interval with a gentle backoff, until Active', async () => {
    const replies = [ok(vm('Pending')), ok(vm('pending')), ok(vm('Pending')), ok(vm('active'))]
    const { client, clock, requests } = testClient(replies)
    const result = await client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 600_000 })
    assert.equal(result.account.status, 'Active')
    assert.equal(result.unpaidInvoice, undefined)
    assert.equal(requests.length, 4)
    assert.deepEqual(clock.sleeps, [5000, 7500, 11250])
  })

  test('says where it stands as a status line: at the first read, at each change of status and every 10 s', async () => {
    // Reads at 0, 5 s, 12.5 s, 23.75 s, 40.6 s, 65.9 s: a report at the first read, at each read 10 s or more
    // after the last report, and at the end.
    const replies = [ok(vm('Pending')), ok(vm('Pending')), ok(vm('Pending')), ok(vm('Pending')), ok(vm('Pending')), ok(vm('Active'))]
    const { client, logs } = testClient(replies)
    await client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 1_200_000, describe: 'Lite VM', accountId: '100042' })
    assert.deepEqual(
      logs.filter((l) => l.level === 'status').map((l) => l.message),
      [
        'waiting for Lite VM 100042 to become Active: Pending (gives up after 20m0s)',
        'waiting for Lite VM 100042 to become Active: Pending after 13s (gives up after 20m0s)',
        'waiting for Lite VM 100042 to become Active: Pending after 24s (gives up after 20m0s)',
        'waiting for Lite VM 100042 to become Active: Pending after 41s (gives up after 20m0s)',
        'Lite VM 100042 is Active after 1m6s',
      ],
    )
  })

  test('the interval grows no further than pollMaxIntervalMs', async () => {
    const replies = [...Array.from({ length: 6 }, () => ok(vm('Pending'))), ok(vm('Active'))]
    const { client, clock } = testClient(replies, { pollIntervalMs: 1000, pollMaxIntervalMs: 2000 })
    await client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 600_000 })
    assert.deepEqual(clock.sleeps, [1000, 1500, 2000, 2000, 2000, 2000])
  })

  test('Pending with an unpaid invoice stops the wait with the invoice', async () => {
    const { client, requests } = testClient([ok(vm('Pending', UNPAID))])
    const result = await client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 600_000 })
    assert.equal(result.account.status, 'Pending')
    assert.equal(result.unpaidInvoice?.id, 700018)
    assert.equal(result.unpaidInvoice?.status, 'Unpaid')
    assert.equal(requests.length, 1)
  })

  test('Suspended and Terminated fail with the status and the account', async () => {
    for (const status of ['Suspended', 'TERMINATED']) {
      const { client } = testClient([ok(vm('Pending')), ok(vm(status))])
      const error = await waitError(client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 600_000, describe: 'Lite VM' }))
      assert.equal(error.reason, 'status')
      assert.equal(error.accountId, '100042')
      assert.equal(error.orderId, '500017')
      assert.equal(error.lastStatus, status === 'TERMINATED' ? 'Terminated' : status)
      assert.match(error.message, /Lite VM 100042 is (Suspended|Terminated)/)
    }
  })

  test('a 404 soon after the order is tolerated; later it means gone', async () => {
    const { client, clock } = testClient([fail(404, 'no such account'), fail(404, 'no such account'), ok(vm('Active'))])
    const orderedAt = client.now()
    const result = await client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 600_000, orderedAt })
    assert.equal(result.account.status, 'Active')
    assert.deepEqual(clock.sleeps, [5000, 7500])

    const replies = Array.from({ length: 10 }, () => fail(404, 'no such account'))
    const later = testClient(replies)
    const error = await waitError(
      later.client.waitForActive(() => later.client.lites.getVm('100042'), {
        timeoutMs: 600_000,
        orderedAt: later.client.now(),
        orderId: '500017',
      }),
    )
    assert.equal(error.reason, 'gone')
    assert.equal(error.accountId, '100042')
    assert.equal(error.orderId, '500017')
    assert.ok(error.cause instanceof ApiError)
    // Polls at 0, 5, 12.5, 23.75 s are inside the grace window; 40.6 s is not.
    assert.equal(later.requests.length, 5)
  })

  test('a 404 without orderedAt is gone at once', async () => {
    const { client } = testClient([fail(404, 'no such account')])
    const error = await waitError(client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 60_000 }))
    assert.equal(error.reason, 'gone')
    assert.match(error.message, /account 100042 is gone/)
  })

  test('a timeout names the account, the last status and the elapsed time', async () => {
    const replies = Array.from({ length: 20 }, () => ok(vm('Pending')))
    const { client, clock } = testClient(replies)
    const error = await waitError(client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 60_000, describe: 'Lite VM' }))
    assert.equal(error.reason, 'timeout')
    assert.equal(error.accountId, '100042')
    assert.equal(error.lastStatus, 'Pending')
    assert.equal(error.elapsedMs, 60_000)
    assert.equal(error.message, 'Timed out after 1m0s waiting for Lite VM 100042 to become Active (last status: Pending)')
    // Never sleeps past the deadline: the last poll happens at it.
    assert.equal(
      clock.sleeps.reduce((a, b) => a + b, 0),
      60_000,
    )
  })

  test('errors of the read carry the account and order ids', async () => {
    const { client } = testClient([fail(401, 'Invalid or missing API token')])
    const read = () => client.lites.getSnapshot('100051')
    await assert.rejects(client.waitForActive(read, { timeoutMs: 60_000, orderId: '500020' }), (error: unknown) => {
      assert.ok(error instanceof ApiError)
      assert.equal(error.accountId, '100051')
      assert.equal(error.orderId, '500020')
      assert.match(error.message, /account 100051, order 500020/)
      return true
    })
  })

  test('a read that fails to the end names the account given in the options', async () => {
    const { client } = testClient([])
    const read = () => Promise.reject(new TransportError('network', 'reset', { method: 'GET', path: '/x' }))
    const error = await waitError(client.waitForActive(read, { timeoutMs: 60_000, accountId: '100042' }))
    assert.equal(error.reason, 'timeout')
    assert.ok(error.cause instanceof TransportError && error.cause.accountId === '100042')
  })

  test('a service that fails for a while does not end the wait: it goes on until Active', async () => {
    // Four 503s use up one read's attempts (the transport retries a GET); the wait polls again.
    const outage = Array.from({ length: 8 }, () => fail(503, 'Service Unavailable'))
    const { client, requests } = testClient([ok(vm('Pending')), ...outage, ok(vm('Pending')), ok(vm('Active'))])
    const result = await client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 3_600_000, describe: 'Metal server' })
    assert.equal(result.account.status, 'Active')
    assert.equal(requests.length, 11)
  })

  test('a read that fails until the timeout ends it as a timeout, naming the last status and the failure', async () => {
    const failing = Array.from({ length: 200 }, () => fail(502, 'Bad Gateway'))
    const { client } = testClient([ok(vm('Pending')), ...failing])
    const error = await waitError(client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 60_000, describe: 'Lite VM' }))
    assert.equal(error.reason, 'timeout')
    assert.equal(error.lastStatus, 'Pending')
    assert.match(
      error.message,
      /^Timed out after 1m\d+s waiting for Lite VM 100042 to become Active \(last status: Pending; the service failed the last read: HTTP 502/,
    )
    assert.ok(error.cause instanceof ApiError && error.cause.status === 502)
  })

  test('a server error the service does not answer for a passing outage (501) ends the wait at once, as the transport does not ask again', async () => {
    const { client, requests } = testClient([ok(vm('Pending')), fail(501, 'Not Implemented')])
    await assert.rejects(
      client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 3_600_000, describe: 'Metal server' }),
      (error: unknown) => error instanceof ApiError && error.status === 501,
    )
    assert.equal(requests.length, 2, 'no poll after the 501')
  })

  test('a read refused for a reason of the caller (401) still ends the wait at once', async () => {
    const { client, requests } = testClient([ok(vm('Pending')), fail(401, 'Invalid or missing API token')])
    await assert.rejects(
      client.waitForActive(() => client.lites.getVm('100042'), { timeoutMs: 60_000 }),
      (error: unknown) => error instanceof ApiError && error.status === 401,
    )
    assert.equal(requests.length, 2)
  })

  test('a signal cancels the wait', async () => {
    const controller = new AbortController()
    const { client } = testClient([ok(vm('Pending')), ok(vm('Pending'))], {
      sleep: async () => controller.abort(),
    })
    const error = await waitError(
      client.waitForActive(() => client.lites.getVm('100042', { signal: controller.signal }), {
        timeoutMs: 60_000,
        signal: controller.signal,
      }),
    )
    assert.equal(error.reason, 'cancelled')
    assert.equal(error.accountId, '100042')
  })
})
