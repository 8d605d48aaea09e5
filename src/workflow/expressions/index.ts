/**
 * The workflow expression language: GitHub Actions' `${{ … }}` expressions, parsed and
 * evaluated by GitHub's own `@actions/expressions`, with rho's contexts, status functions and
 * `rho_` functions. The rest of rho parses a string once, asks what it reads, and evaluates it
 * against a context.
 */
export type { ValueSource } from './analysis.js';
export type { ExpressionContext, RunStatus } from './context.js';
export { evaluateDeep, walkTemplates, type TextPlaces, type ValuePath } from './deep.js';
export { ExpressionError } from './errors.js';
export { evaluateExpressionSource, evaluateTemplate } from './evaluate.js';
export { isTruthy } from './truthy.js';
export { closingBraces, isLiteralTemplate, parseTemplate, templateReferences, type ParseOptions, type Template } from './template.js';
