import { describe, expect, it } from 'vitest';
import { findProtoKey } from '../../src/host/prototype-keys.js';

const withProto = (inner: unknown): Record<string, unknown> => JSON.parse(`{"__proto__": ${JSON.stringify(inner)}}`) as Record<string, unknown>;

describe('findProtoKey', () => {
  it('gives the path to the first own __proto__ key, through lists and maps, in order', () => {
    const value = { a: [1, { b: 2 }, { c: withProto({ d: withProto(1) }) }], e: withProto(2) };
    expect(findProtoKey(value)).toEqual(['a', 2, 'c', '__proto__']);
    expect(findProtoKey([withProto(1)])).toEqual([0, '__proto__']);
    expect(findProtoKey(withProto(1))).toEqual(['__proto__']);
  });

  it('finds nothing in data without one, and leaves a path from an earlier branch out of a later find', () => {
    expect(findProtoKey({ a: [{ b: [1, 2] }, 'x'], c: null, d: { constructor: 1, prototype: 2 } })).toBeUndefined();
    expect(findProtoKey({ a: [{ b: [1, 2] }], z: { y: withProto(0) } })).toEqual(['z', 'y', '__proto__']);
    expect(findProtoKey('text')).toBeUndefined();
  });

  it('stops at the depth limit', () => {
    let deep: unknown = withProto(1);
    for (let level = 0; level < 10; level++) deep = { k: deep };
    expect(findProtoKey(deep, 5)).toBeUndefined();
    expect(findProtoKey(deep, 10)).toHaveLength(11);
  });
});
