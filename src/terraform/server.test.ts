// The Terraform server builds each schema view on first use: a launch that plans one resource type
// must not walk the declarations of every other one, and a view, once built, is the same object.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type AnyProvider, type AnyResource, defineMethod } from '../core/index.js'
import { TypeIndex } from '../server/index.js'
import { boxDefinition } from '../../test/support/box-resource.js'
import { TerraformServer } from './server.js'
import { LazyMap, TERRAFORM_NAMING, viewsOf } from './views.js'
import { silentLogger } from './log.js'
import { providerSchemaResponse } from './provider-service.js'

describe('LazyMap', () => {
  test('builds a value on its first get only, once, and never for a key it does not hold', () => {
    const built: string[] = []
    const map = new LazyMap(['b', 'a'], (key) => {
      built.push(key)
      return { key }
    })
    assert.equal(map.size, 2)
    assert.equal(map.has('a'), true)
    assert.equal(map.has('c'), false)
    assert.equal(map.get('c'), undefined)
    assert.deepEqual([...map.keys()], ['b', 'a'], 'keys in the given order')
    assert.deepEqual(built, [], 'size, has and keys build nothing')
    const first = map.get('a')
    assert.equal(map.get('a'), first)
    assert.deepEqual(built, ['a'])
    assert.deepEqual(
      [...map].map(([key, value]) => [key, value.key]),
      [
        ['b', 'b'],
        ['a', 'a'],
      ],
    )
    assert.deepEqual(built, ['a', 'b'], 'iterating builds the rest, each once')
    const seen: string[] = []
    map.forEach((value, key, self) => {
      assert.equal(self, map)
      seen.push(`${key}=${value.key}`)
    })
    assert.deepEqual(seen, ['b=b', 'a=a'])
    assert.deepEqual([...map.values()], [map.get('b'), first])
  })
})

describe('Terraform schema views', () => {
  /** The box resource under `name`, counting every walk of its attributes. */
  function counted(name: string): { definition: AnyResource; walks: () => number } {
    let walks = 0
    const attributes = new Proxy(boxDefinition.attributes, {
      ownKeys(target) {
        walks++
        return Reflect.ownKeys(target)
      },
    })
    return { definition: { ...boxDefinition, name, attributes }, walks: () => walks }
  }
  const provider: AnyProvider = { description: 'Test.', attributes: {}, environment: {}, configure: () => ({}) }

  test('the server walks no declaration until a call needs its type, then only that type', () => {
    const box = counted('box')
    const other = counted('other_box')
    const tf = new TerraformServer({ provider, resources: [box.definition, other.definition], dataSources: [] }, silentLogger, 'test')
    assert.deepEqual([box.walks(), other.walks()], [0, 0], 'loading the service builds no view')
    const resource = tf.resource('provider_box')
    assert.equal(resource.view.typeName, 'provider_box')
    assert.ok(box.walks() > 0)
    assert.equal(other.walks(), 0, 'the other type is not walked')
    assert.equal(tf.resource('provider_box').view, resource.view, 'a view is built once')
  })

  test('GetProviderSchema builds every view: a declaration no view can be built from still fails the build', () => {
    const box = counted('box')
    const other = counted('other_box')
    const bytes = providerSchemaResponse({ provider, resources: [box.definition, other.definition], dataSources: [] })
    assert.ok(bytes.length > 0)
    assert.ok(box.walks() > 0 && other.walks() > 0, 'every type is walked')
    const views = viewsOf(new TypeIndex({ provider, resources: [box.definition], dataSources: [] }, TERRAFORM_NAMING), provider)
    assert.deepEqual([...views.resources.keys()], ['provider_box'])
  })

  test('two methods that would share an action type name are refused when the service loads, before any view', () => {
    const method = defineMethod({ name: 'power', description: 'Power.', timeout: '1m', inputs: {}, run: async () => undefined })
    const a = { ...boxDefinition, name: 'box_a', methods: [method] }
    // box + a_power and box_a + power both make provider_box_a_power.
    const b = { ...boxDefinition, name: 'box', methods: [{ ...method, name: 'a_power' }] }
    assert.throws(
      () => new TerraformServer({ provider, resources: [a, b], dataSources: [] }, silentLogger, 'test'),
      /two actions would be named provider_box_a_power/,
    )
  })
})
