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
  // One path, pushed and popped, copied only when a key is found: a workflow file's data has a
  // node per value, and a new path per node was most of this walk's cost.
  const path: (string | number)[] = [];
  const walk = (node: unknown): boolean => {
    if (node === null || typeof node !== 'object' || path.length > maxDepth) return false;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        path.push(index);
        if (walk(node[index])) return true;
        path.pop();
      }
      return false;
    }
    if (Object.hasOwn(node, '__proto__')) {
      path.push('__proto__');
      return true;
    }
    for (const key of Object.keys(node)) {
      path.push(key);
      if (walk((node as Record<string, unknown>)[key])) return true;
      path.pop();
    }
    return false;
  };
  return walk(value) ? path : undefined;
}

/** `with.headers.__proto__` for messages. */
export function describeKeyPath(path: readonly (string | number)[]): string {
  return path.map(String).join('.');
}
