/**
 * Lines of oclif that cost every start of the bundled CLI and do nothing it needs; the bundle
 * gets them rewritten. The build fails if oclif no longer has a line as written, and so does
 * test/scripts/oclif-patches.test.ts against the installed @oclif/core, so an upgrade cannot drop
 * a patch silently.
 */
import { readFile } from 'node:fs/promises';

/**
 * `const NAME = require("node:MODULE");` made lazy: an object whose listed members require the
 * module when first read. Each of Node's own modules is compiled when first required (0.3–1 ms
 * each); these are required at the top of oclif modules every command loads, for code only some
 * paths run.
 */
function lazyBuiltin(name, module, members) {
  const getters = members.map((member) => `get ${member}() { return require(${JSON.stringify(module)}).${member}; }`);
  return { from: `const ${name} = require(${JSON.stringify(module)});`, to: `const ${name} = { ${getters.join(', ')} };` };
}

/** `const NAME = __importDefault(require("MODULE"));` made lazy: `NAME.default` requires the module when first read. */
function lazyModule(name, module) {
  return {
    from: `const ${name} = __importDefault(require(${JSON.stringify(module)}));`,
    to: `const ${name} = { get default() { return __importDefault(require(${JSON.stringify(module)})).default; } };`,
  };
}

/** Each patched file of @oclif/core, by its path in the package, with its replacements. */
export const patches = [
  {
    file: 'lib/config/plugin.js',
    replacements: [
      {
        // oclif sorts a plugin's commands with `localeCompare`, and the first `localeCompare` of a
        // process builds ICU's collator: 5–8 ms of every start. rho's help sorts commands again by
        // code unit, and rho's command ids sort alike both ways (test/commands/index.test.ts).
        from: '.sort((a, b) => a.id.localeCompare(b.id));',
        to: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));',
      },
    ],
  },
  {
    file: 'lib/index.js',
    replacements: [
      {
        // oclif's entry checks the Node version against `engines` of the package.json beside its
        // own directory, loading semver first. In the bundle that directory is dist/, which has no
        // package.json: the check always threw and was ignored, after semver had loaded.
        from: '\ncheckNodeVersion();\n',
        to: '\n',
      },
    ],
  },
  {
    file: 'lib/help/util.js',
    replacements: [
      lazyModule('ejs_1', 'ejs'),
      {
        // Help renders every summary, description and example as an EJS template, and EJS
        // compiles each into a new function: 2–3 ms of `rho --help`, whose summaries have no tag.
        // Text with neither `<%` nor `%>` (which EJS drops when unopened) renders as itself.
        from: 'return ejs_1.default.render(t, context);',
        to: "return t.includes('<%') || t.includes('%>') ? ejs_1.default.render(t, context) : t;",
      },
    ],
  },
  {
    // EJS renders only the update templates of oclif's plugin-update here.
    file: 'lib/config/config.js',
    replacements: [lazyModule('ejs_1', 'ejs')],
  },
  {
    // readline only reads a missing argument from a piped stdin, which rho's commands never ask for.
    file: 'lib/parser/parse.js',
    replacements: [lazyBuiltin('node_readline_1', 'node:readline', ['createInterface'])],
  },
  {
    // perf_hooks only records oclif's own timings, with DEBUG=oclif:perf.
    file: 'lib/performance.js',
    replacements: [lazyBuiltin('node_perf_hooks_1', 'node:perf_hooks', ['performance', 'PerformanceObserver'])],
  },
  {
    file: 'lib/util/os.js',
    replacements: [
      // child_process only asks PowerShell for the parent's name, on Windows.
      lazyBuiltin('node_child_process_1', 'node:child_process', ['execSync']),
      {
        // oclif tells WSL from Linux (loading wsl-utils, is-wsl, powershell-utils and reading
        // /proc/version on every start) only for its user agent, which rho's --version prints
        // with process.platform instead (bin/run.cjs); `windows` is still `platform === 'win32'`.
        from: "return (await import('wsl-utils')).isWsl ? 'wsl' : (0, node_os_1.platform)();",
        to: 'return (0, node_os_1.platform)();',
      },
    ],
  },
];

/**
 * A file's source with its patch applied. Throws, naming the file and the line, when the source
 * does not hold a line to replace exactly once.
 */
export function applyPatch(patch, source) {
  let patched = source;
  for (const { from, to } of patch.replacements) {
    if (patched.split(from).length !== 2) throw new Error(`@oclif/core/${patch.file}: expected one ${JSON.stringify(from)} to replace (scripts/oclif-patches.mjs)`);
    patched = patched.replace(from, () => to);
  }
  return patched;
}

/** The esbuild plugin that applies every patch to the @oclif/core files the bundle loads. */
export const oclifPatches = {
  name: 'oclif-patches',
  setup(bundler) {
    for (const patch of patches) {
      // The file's path with either separator; the paths have no regular-expression character but `.`.
      const filter = new RegExp(`/@oclif/core/${patch.file}$`.replaceAll('.', '\\.').replaceAll('/', '[\\\\/]'));
      bundler.onLoad({ filter }, async ({ path: file }) => ({ contents: applyPatch(patch, await readFile(file, 'utf8')), loader: 'js' }));
    }
  },
};
