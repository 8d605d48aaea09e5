import type { z } from 'zod';
import { describeIssues } from '../host/arguments.js';
import { workflowSchema } from './schema.js';
import { knownKeysAt } from './schema-keys.js';
import type { NodePath } from './source.js';
import { closestNames } from './suggest.js';

type Issue = z.core.$ZodIssue;
type Report = (nodePath: NodePath, message: string, options?: { key?: boolean; offset?: number }) => void;

/** Reports the issues of a file that fails the schema, each at its place in the file, in the words a person fixes it by. */
export function reportSchemaIssues(data: unknown, issues: readonly Issue[], report: Report): void {
  for (const issue of issues) {
    const where = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    // A step may be a string or a map, an MCP server started or reached by URL: what is wrong is the problem of the form meant.
    if (issue.code === 'invalid_union') {
      const chosen = unionProblem(issue, valueAt(data, issue.path));
      reportSchemaIssues(data, chosen.issues, report);
      if (chosen.message !== undefined) report(issue.path, `${where}${chosen.message}`);
      continue;
    }
    // A short step's command line refused at one of its characters, or a key it cannot have.
    const params = issue.code === 'custom' ? (issue.params as { offset?: unknown; key?: unknown } | undefined) : undefined;
    if (typeof params?.offset === 'number' || params?.key === true) {
      report(issue.path, issue.message, typeof params.offset === 'number' ? { offset: params.offset } : { key: true });
      continue;
    }
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(workflowSchema, issue.path);
      for (const key of issue.keys) {
        // A key another form of a union knows: the value mixes the forms.
        if (known.includes(key)) {
          report([...issue.path, key], `"${key}" belongs to another form of ${issue.path.map(String).join('.')} than the keys beside it; keep one form's keys`, { key: true });
          continue;
        }
        const suggestions = closestNames(key, known);
        const hint = suggestions.length > 0 ? `; did you mean "${suggestions[0]}"?` : known.length > 0 ? ` (expected one of: ${known.join(', ')})` : '';
        report([...issue.path, key], `unknown key "${key}"${hint}`, { key: true });
      }
      continue;
    }
    if (issue.code === 'invalid_key') {
      report(issue.path, `${where}${issue.issues.map((inner) => inner.message).join('; ')}`, { key: true });
      continue;
    }
    const missing = missingKey(data, issue);
    if (missing !== undefined) {
      const parent = issue.path.slice(0, -1);
      report(parent, `${parent.length > 0 ? `${parent.map(String).join('.')}: ` : ''}missing required key "${missing}"`);
      continue;
    }
    report(issue.path, `${where}${describeIssues([issue]).replace(/^[^:]*: /, '')}`);
  }
}

/** The key an issue says is absent from its map: a type refused where the value is not there at all. */
function missingKey(data: unknown, issue: Issue): string | undefined {
  return issue.code === 'invalid_type' && issue.path.length > 0 && valueAt(data, issue.path) === undefined ? String(issue.path.at(-1)) : undefined;
}

/**
 * What to report of a value no option of a union accepts. The options the value has the kind of
 * (a map, a list, text) are candidates; of them, the one that knows the most of the value's keys
 * is the form meant (`url:` makes an HTTP server, `command:` one rho starts), and its own issues
 * are reported at their full paths. Of candidates that tie, the keys none of them knows are
 * reported (with what was meant) if there are any; else the issues they share are, and a
 * message says what sets the forms apart.
 */
function unionProblem(issue: z.core.$ZodIssueInvalidUnion, value: unknown): { issues: Issue[]; message?: string } {
  const candidates = issue.errors.filter((errors) => !failsOnKind(errors, value));
  if (candidates.length === 0) return { issues: [], message: `expected ${kindsExpected(issue.errors)}` };
  const fewest = Math.min(...candidates.map((errors) => unknownKeys(errors).length));
  const closest = candidates.filter((errors) => unknownKeys(errors).length === fewest);
  const atFullPath = (inner: Issue): Issue => ({ ...inner, path: [...issue.path, ...inner.path] });
  if (closest.length === 1) return { issues: closest[0]!.map(atFullPath) };
  const unknown = unknownKeys(closest[0]!);
  if (unknown.length > 0 && closest.every((errors) => sameKeys(unknownKeys(errors), unknown))) {
    return { issues: [{ code: 'unrecognized_keys', keys: unknown, path: issue.path, message: '' }] };
  }
  const inEvery = (inner: Issue) => closest.every((errors) => errors.some((other) => sameIssue(other, inner)));
  const shared = closest[0]!.filter(inEvery);
  const own = closest.map((errors) => errors.filter((inner) => !inEvery(inner)));
  // A form with no issue of its own fits as well as it can: what it shares with the others is all there is to fix.
  return { issues: shared.map(atFullPath), ...(own.every((errors) => errors.length > 0) && { message: tieMessage(own, value) }) };
}

function sameIssue(a: Issue, b: Issue): boolean {
  return a.code === b.code && a.message === b.message && a.path.length === b.path.length && a.path.every((segment, index) => segment === b.path[index]);
}

/**
 * What sets forms that fit a value equally well apart, from the issues each has alone: the key
 * one of them needs (`command` or `url`), keys of different forms written together, else each
 * form's issues.
 */
function tieMessage(forms: readonly (readonly Issue[])[], value: unknown): string {
  const quoted = (keys: readonly string[], and: string) => keys.map((key) => `"${key}"`).join(and);
  const missingHere = (inner: Issue) => inner.path.length === 1 && missingKey(value, inner) !== undefined;
  if (forms.every((errors) => errors.every(missingHere))) {
    const needed = forms.map((errors) => errors.map((inner) => String(inner.path[0])));
    const several = needed.some((keys) => keys.length > 1);
    return `missing required key${several ? 's' : ''} ${needed.map((keys) => quoted(keys, ' and ')).join(several ? ', or ' : ' or ')}`;
  }
  if (forms.every((errors) => errors.every((inner) => inner.code === 'unrecognized_keys' && inner.path.length === 0))) {
    return `${quoted([...new Set(forms.flatMap(unknownKeys))], ' and ')} belong to different forms; keep the one meant`;
  }
  return `fits none of its forms: ${forms.map((errors) => `[${errors.map((inner) => innerProblem(value, inner)).join('; ')}]`).join(' or ')}`;
}

/** Whether an option refuses the value's very kind (a map where text goes), not something it holds. */
function failsOnKind(errors: readonly Issue[], value: unknown): boolean {
  // An enum or a literal refuses a map as a value it does not list: that is a refusal of the kind too.
  const isCollection = value !== null && typeof value === 'object';
  return errors.some((inner) => inner.path.length === 0 && (inner.code === 'invalid_type' || (inner.code === 'invalid_value' && isCollection)));
}

/** The keys of the value that an option (a strict map) does not know. */
function unknownKeys(errors: readonly Issue[]): string[] {
  return errors.flatMap((inner) => (inner.code === 'unrecognized_keys' && inner.path.length === 0 ? inner.keys : []));
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key) => b.includes(key));
}

const kindNames: Readonly<Record<string, string>> = { object: 'a map', array: 'a list', string: 'a string', number: 'a number', boolean: 'a boolean', null: 'nothing' };

/** The kinds of value the options of a union take, as "a string, a number or a boolean". */
function kindsExpected(errors: readonly (readonly Issue[])[]): string {
  const kinds = errors.flatMap((options) =>
    options.flatMap((inner) => {
      if (inner.path.length > 0) return [];
      if (inner.code === 'invalid_type') return [kindNames[inner.expected] ?? inner.expected];
      if (inner.code === 'invalid_value') return inner.values.map((allowed) => JSON.stringify(allowed));
      return [];
    }),
  );
  const unique = [...new Set(kinds)];
  return unique.length > 1 ? `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}` : (unique[0] ?? 'another kind of value');
}

/** One issue of one form of a union, short, with its path from the union's value. */
function innerProblem(value: unknown, inner: Issue): string {
  if (inner.code === 'unrecognized_keys') return inner.keys.map((key) => `unknown key "${key}"`).join(', ');
  const missing = missingKey(value, inner);
  if (missing !== undefined) return `missing required key "${[...inner.path.slice(0, -1), missing].map(String).join('.')}"`;
  return `${inner.path.length > 0 ? `${inner.path.map(String).join('.')}: ` : ''}${inner.message}`;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}
