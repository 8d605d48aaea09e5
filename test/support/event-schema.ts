import { readFile } from 'node:fs/promises';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { repoRoot } from './cli.js';

/** A validator for one NDJSON event line, from the schema shipped in `schemas/`. */
export async function eventLineValidator() {
  const schema = JSON.parse(await readFile(path.join(repoRoot, 'schemas/events.schema.json'), 'utf8'));
  return new Ajv2020.default({ strict: false, allErrors: true }).compile(schema);
}
