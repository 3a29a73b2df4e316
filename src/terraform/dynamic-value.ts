/** Terraform's DynamicValue <-> canonical values: msgpack (or JSON state) decoded with a schema view. */
import { create } from '@bufbuild/protobuf'
import type { ValueMap } from '../core/index.js'
import type { CtyValue } from './cty.js'
import { type DynamicValue, DynamicValueSchema } from './gen/tfplugin6.10_pb.js'
import { decodeJsonState } from './json-state.js'
import { decodeMsgpack, encodeMsgpack } from './msgpack.js'
import { fromCty, type TfView, toCty } from './schema.js'

export function decode(view: TfView, value: DynamicValue | undefined): ValueMap | null {
  if (!value) return null
  if (value.msgpack.length > 0) return fromCty(view, decodeMsgpack(value.msgpack, view.type))
  if (value.json.length > 0) return decodeJson(view, value.json)
  return null
}

/** A stored state as Terraform hands it over for an upgrade or a move: JSON, or nothing. */
export function decodeJson(view: TfView, json: Uint8Array | undefined): ValueMap | null {
  return json !== undefined && json.length > 0 ? fromCty(view, decodeJsonState(json, view.type)) : null
}

export function encode(view: TfView, value: ValueMap | null): DynamicValue {
  return create(DynamicValueSchema, { msgpack: encodeMsgpack(toCty(view, value) as CtyValue, view.type) })
}
