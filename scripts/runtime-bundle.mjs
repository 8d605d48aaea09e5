/**
 * How rho bundles code that runs at start-up: one minified CommonJS file for Node 20 (the format
 * V8's code cache can be used with, see src/boot/compile-cache.ts), `import.meta.url` kept,
 * zod's locales cut to English. Shared by the CLI's build (scripts/bundle-cli.mjs) and the
 * benchmark that measures the libraries' own start-up floor.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * zod's classic API re-exports every locale (≈ 60 % of its minified size); rho configures and
 * uses only English, which zod loads on its own, so the re-export resolves to English alone.
 */
const englishOnlyZodLocales = {
  name: 'english-only-zod-locales',
  setup(bundler) {
    bundler.onResolve({ filter: /\/locales\/index\.js$/ }, ({ importer, resolveDir }) =>
      importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`)
        ? { path: path.join(resolveDir, 'en-only'), namespace: 'zod-locales', pluginData: resolveDir }
        : undefined,
    );
    bundler.onLoad({ filter: /.*/, namespace: 'zod-locales' }, ({ pluginData }) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(pluginData, '..', 'locales', 'en.js'))};`,
      resolveDir: pluginData,
    }));
  },
};

/**
 * yaml's parser reads `process.env.LOG_TOKENS` (its own debug switch) once per token, and each
 * read of the real `process.env` is a call into C++: 10–20 % of parsing a large workflow. The
 * bundle reads it as unset. The build fails if yaml no longer has the line as written.
 */
const yamlTokenLogOff = {
  name: 'yaml-token-log-off',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]yaml[\\/]dist[\\/]parse[\\/]parser\.js$/ }, async ({ path: file }) => {
      const source = await readFile(file, 'utf8');
      const from = 'if (node_process.env.LOG_TOKENS)';
      if (source.split(from).length !== 2) throw new Error(`${file}: expected one ${JSON.stringify(from)} to replace (scripts/runtime-bundle.mjs)`);
      return { contents: source.replace(from, 'if (false)'), loader: 'js' };
    });
  },
};

/**
 * esbuild options for a runtime bundle; `options` adds the entry point and output file. Modules
 * are resolved from `root`'s node_modules, wherever the entry file is.
 */
export function runtimeBundleOptions(root, options) {
  return {
    absWorkingDir: root,
    nodePaths: [path.join(root, 'node_modules')],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    legalComments: 'linked',
    // Code compiled from V8's code cache cannot run import() on Node 20: a dynamic import of a
    // module outside the bundle becomes a require of the package's CommonJS build.
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': 'importMetaUrl' },
    inject: [fileURLToPath(new URL('import-meta-url.mjs', import.meta.url))],
    logLevel: 'warning',
    ...options,
    // tsx loads module tools at run time with a loader of its own; typescript is only oclif's
    // optional development path. Neither belongs in a runtime bundle.
    external: ['tsx', 'tsx/*', 'typescript', ...(options.external ?? [])],
    plugins: [englishOnlyZodLocales, yamlTokenLogOff, ...(options.plugins ?? [])],
  };
}
