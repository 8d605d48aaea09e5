/**
 * The workflow expression language: `${{ … }}` blocks inside string values, parsed once
 * (tokenizer → parser → tree) and evaluated against a read-only context. No `eval`.
 */
export type { ExpressionContext, RunStatus } from './context.js';
export { evaluateDeep, walkTemplates, type ValuePath } from './deep.js';
export { ExpressionError } from './errors.js';
export { maxNesting } from './parser.js';
export { templateReferences, type TemplateReferences } from './references.js';
export { evaluateTemplate, isLiteralTemplate, maxTemplateBytes, parseTemplate, type Template } from './template.js';
export { isTruthy } from './values.js';
