import { readFile } from 'node:fs/promises';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { repoRoot } from './cli.js';

/** A validator for one NDJSON event line, from the schema shipped in `schemas/`. */
export async function eventLineValidator() {
  const schema = JSON.parse(await readFile(path.join(repoRoot, 'schemas/events.schema.json'), 'utf8'));
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(schema);
}
