/**
 * Names JavaScript objects treat specially. Assigning `__proto__` replaces an object's prototype
 * instead of adding a key (so a `__proto__` key in untrusted data vanishes, or changes what the
 * object inherits); `constructor` and `prototype` name members a lookup finds on any object.
 * Data keys are refused only when they are `__proto__`; ids that become keys which rho looks
 * up (question ids, input names) are refused for all three.
 */
export const prototypeKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Why an id cannot be one of the prototype names, for messages. */
export const prototypeKeyReason = 'it is a name JavaScript objects reserve (__proto__, constructor, prototype)';

/**
 * The path to the first own `__proto__` key in a JSON-like value (as `JSON.parse` and yaml make
 * them), or undefined. Depth is bounded so a deep value cannot exhaust the stack.
 */
export function findProtoKey(value: unknown, maxDepth = 256): (string | number)[] | undefined {
  const walk = (node: unknown, path: (string | number)[]): (string | number)[] | undefined => {
    if (node === null || typeof node !== 'object' || path.length > maxDepth) return undefined;
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) {
        const found = walk(item, [...path, index]);
        if (found) return found;
      }
      return undefined;
    }
    if (Object.hasOwn(node, '__proto__')) return [...path, '__proto__'];
    for (const [key, item] of Object.entries(node)) {
      const found = walk(item, [...path, key]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(value, []);
}

/** `with.headers.__proto__` for messages. */
export function describeKeyPath(path: readonly (string | number)[]): string {
  return path.map(String).join('.');
}
