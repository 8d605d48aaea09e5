import { z } from 'zod';
import { builtOnce } from '../built-once.js';

export interface PayloadBounds {
  /** Longest string a single field may carry, in UTF-8 bytes. */
  fieldBytes: number;
  /** Longest serialized envelope, in UTF-8 bytes. */
  envelopeBytes: number;
}

export const defaultPayloadBounds: PayloadBounds = { fieldBytes: 8 * 1024, envelopeBytes: 64 * 1024 };

/** Small enough bounds would leave no room for the envelope's own structure. */
export const minimumPayloadBounds: PayloadBounds = { fieldBytes: 256, envelopeBytes: 8 * 1024 };

/** One field that was shortened: a string cut to fewer bytes, or a list cut to fewer items. */
const truncatedFieldSchema = () =>
  z.strictObject({
    field: z.string().describe('Where the cut was made, e.g. payload.capability.script or payload.capability.argv'),
    limit: z.enum(['field', 'envelope']).describe('Which bound forced the cut'),
    unit: z.enum(['bytes', 'items']),
    original: z.number().int(),
    kept: z.number().int(),
  });

/** What an envelope says was cut; built on first use, once (its JSON Schema id may be registered only once). */
export const truncationSchema = builtOnce(() =>
  z
    .strictObject({
      truncated: z.boolean(),
      fields: z.array(truncatedFieldSchema()),
    })
    .meta({ id: 'Truncation' }),
);

export type TruncatedField = z.infer<ReturnType<typeof truncatedFieldSchema>>;
export type Truncation = z.infer<ReturnType<typeof truncationSchema>>;

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
type JsonObject = { [key: string]: JsonValue };

interface Leaf {
  field: string;
  bytes: number;
  set(value: string): void;
  value: string;
}

interface List {
  field: string;
  items: JsonValue[];
}

const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes without splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text;
  const { read } = encoder.encodeInto(text, new Uint8Array(Math.max(0, maxBytes)));
  return text.slice(0, read);
}

/**
 * Shortens the given sections of an envelope in place so that no string exceeds the field bound
 * and the whole serialized envelope fits the envelope bound, and reports every cut. The field
 * pass cuts each long string; the envelope pass then trims the largest string left (or halves
 * the longest list once strings are small) until it fits.
 */
export function boundSections(sections: JsonObject, serialize: (truncation: Truncation) => string, bounds: PayloadBounds): Truncation {
  const cuts = new Map<string, TruncatedField>();
  for (const leaf of leavesOf(sections)) {
    if (leaf.bytes <= bounds.fieldBytes) continue;
    cut(leaf, bounds.fieldBytes, 'field', cuts);
  }
  for (;;) {
    const truncation = report(cuts);
    const excess = utf8Length(serialize(truncation)) - bounds.envelopeBytes;
    if (excess <= 0) return truncation;
    const largest = maxBy(leavesOf(sections), (leaf) => leaf.bytes);
    if (largest && largest.bytes > smallestWorthCutting) {
      cut(largest, Math.max(0, largest.bytes - excess - recordAllowance), 'envelope', cuts);
      continue;
    }
    const longest = maxBy(listsOf(sections), (list) => list.items.length);
    if (!longest || longest.items.length === 0) return truncation;
    shorten(longest, Math.floor(longest.items.length / 2), cuts);
  }
}

/** Below this a string is not worth cutting further: halving a list saves more. */
const smallestWorthCutting = 64;
/** Room for the truncation record a cut adds, so one cut usually suffices. */
const recordAllowance = 160;

function cut(leaf: Leaf, maxBytes: number, limit: TruncatedField['limit'], cuts: Map<string, TruncatedField>): void {
  const kept = cutUtf8(leaf.value, maxBytes);
  leaf.set(kept);
  const previous = cuts.get(leaf.field);
  cuts.set(leaf.field, { field: leaf.field, limit, unit: 'bytes', original: previous?.original ?? leaf.bytes, kept: utf8Length(kept) });
}

function shorten(list: List, keep: number, cuts: Map<string, TruncatedField>): void {
  const previous = cuts.get(list.field);
  const original = previous?.original ?? list.items.length;
  list.items.splice(keep);
  for (const field of [...cuts.keys()]) {
    const index = field.startsWith(`${list.field}[`) ? Number.parseInt(field.slice(list.field.length + 1), 10) : -1;
    if (index >= keep) cuts.delete(field);
  }
  cuts.set(list.field, { field: list.field, limit: 'envelope', unit: 'items', original, kept: keep });
}

function report(cuts: Map<string, TruncatedField>): Truncation {
  const fields = [...cuts.values()];
  return { truncated: fields.length > 0, fields };
}

function maxBy<T>(items: Iterable<T>, measure: (item: T) => number): T | undefined {
  let best: T | undefined;
  let bestMeasure = -Infinity;
  for (const item of items) {
    const value = measure(item);
    if (value > bestMeasure) {
      best = item;
      bestMeasure = value;
    }
  }
  return best;
}

function* leavesOf(value: JsonValue, field = ''): Generator<Leaf> {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item = value[index] as JsonValue;
      const path = `${field}[${index}]`;
      if (typeof item === 'string') yield leaf(path, item, (next) => (value[index] = next));
      else yield* leavesOf(item, path);
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const path = joinField(field, key);
      if (typeof item === 'string') yield leaf(path, item, (next) => (value[key] = next));
      else yield* leavesOf(item, path);
    }
  }
}

function* listsOf(value: JsonValue, field = ''): Generator<List> {
  if (Array.isArray(value)) {
    yield { field, items: value };
    for (let index = 0; index < value.length; index++) yield* listsOf(value[index] as JsonValue, `${field}[${index}]`);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) yield* listsOf(item, joinField(field, key));
  }
}

function leaf(field: string, value: string, set: (next: string) => void): Leaf {
  return { field, value, bytes: utf8Length(value), set };
}

function joinField(parent: string, key: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

export type { JsonObject, JsonValue };
