// Injected into CommonJS bundles for `import.meta.url`, which esbuild cannot keep in that format.
export const importMetaUrl = require('node:url').pathToFileURL(__filename).href;
