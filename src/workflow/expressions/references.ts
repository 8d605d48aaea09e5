import type { Expression } from './ast.js';
import { statusFunctionNames } from './functions.js';
import type { Template } from './template.js';
import { keyText } from './values.js';

/** What a template reads, for validation and for ordering steps by their data dependencies. */
export interface TemplateReferences {
  steps: Set<string>;
  inputs: Set<string>;
  secrets: Set<string>;
  env: Set<string>;
  rho: Set<string>;
  matrix: Set<string>;
  /** Uses success(), failure(), always() or cancelled(). */
  statusFunctions: boolean;
}

/**
 * Names read through `inputs.x`, `secrets['x']`, `env.x`, `rho.x` and `steps.x`, wherever they appear
 * (function arguments and index expressions included). A computed name (`inputs[env.which]`)
 * is not listed: its value is only known at run time.
 */
export function templateReferences(template: Template): TemplateReferences {
  const references: TemplateReferences = { steps: new Set(), inputs: new Set(), secrets: new Set(), env: new Set(), rho: new Set(), matrix: new Set(), statusFunctions: false };
  for (const part of template.parts) {
    if (part.kind === 'expression') collect(part.expression, references);
  }
  return references;
}

function collect(node: Expression, references: TemplateReferences): void {
  switch (node.kind) {
    case 'literal':
    case 'context':
      return;
    case 'step':
      references.steps.add(node.id);
      return;
    case 'access': {
      const [first] = node.keys;
      if (node.object.kind === 'context' && first?.kind === 'literal') references[node.object.root].add(keyText(first.value));
      collect(node.object, references);
      node.keys.forEach((key) => collect(key, references));
      return;
    }
    case 'not':
      collect(node.operand, references);
      return;
    case 'logical':
      node.operands.forEach((operand) => collect(operand, references));
      return;
    case 'comparison':
      collect(node.first, references);
      node.rest.forEach(({ operand }) => collect(operand, references));
      return;
    case 'call':
      if (statusFunctionNames.has(node.name)) references.statusFunctions = true;
      node.args.forEach((arg) => collect(arg, references));
      return;
  }
}
