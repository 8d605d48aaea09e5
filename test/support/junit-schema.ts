import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { repoRoot } from './cli.js';

const schemaFile = path.join(repoRoot, 'test/fixtures/junit/junit.xsd');

/** Validates a JUnit report against the common JUnit schema with libxml2 (xmllint); returns its errors. */
export async function junitSchemaErrors(xml: string): Promise<string[]> {
  const schema = await readFile(schemaFile, 'utf8');
  const result = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [{ fileName: 'junit.xsd', contents: schema }] });
  return result.errors.map((error) => error.rawMessage);
}
