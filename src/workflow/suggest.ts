/** Edit distance counting insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** Lower case without `_` and `-`, so `readFile`, `read-file` and `read_file` compare equal. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .sort()
    .join(' ');
}

/** The part after the namespace dot of `<server>.<tool>`, or the whole name. */
function tail(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? name : name.slice(dot + 1);
}

/** Edits allowed between two names: about a third of the name's length, at least 2. */
function allowedEdits(name: string): number {
  return Math.max(2, Math.ceil(name.length / 3));
}

/**
 * How far a candidate is from an unknown name (0: the same up to case and separators), or
 * Infinity when it is not close. Each comparison has its own allowance: the whole names, the
 * words in any order (`file_read` for `read_file`), a namespaced tool named without or with a
 * mistyped namespace (`search` or `note.search` for `notes.search`), and one name containing
 * the other.
 */
function nameScore(unknown: string, candidate: string): number {
  const needle = normalize(unknown);
  const known = normalize(candidate);
  const scores: number[] = [];
  const compare = (a: string, b: string, extra = 0) => {
    const distance = editDistance(a, b) + extra;
    if (distance <= allowedEdits(a)) scores.push(distance);
  };
  if (!(unknown.includes('.') && candidate.includes('.'))) compare(needle, known);
  if (words(unknown) === words(candidate)) scores.push(1);
  if (candidate.includes('.')) {
    const [space, name] = [normalize(candidate.split('.')[0]!), normalize(tail(candidate))];
    if (!unknown.includes('.')) compare(needle, name);
    else {
      const spaceDistance = editDistance(normalize(unknown.split('.')[0]!), space);
      if (spaceDistance <= allowedEdits(space)) compare(normalize(tail(unknown)), name, spaceDistance);
    }
  }
  if (needle.length >= 3 && (known.includes(needle) || needle.includes(known))) scores.push(1);
  return Math.min(Infinity, ...scores);
}

/** The closest known names to an unknown one, best first (see nameScore for what counts as close). */
export function closestNames(unknown: string, known: readonly string[], limit = 3): string[] {
  return known
    .map((name) => ({ name, score: nameScore(unknown, name) }))
    .filter(({ score }) => Number.isFinite(score))
    .sort((x, y) => x.score - y.score || x.name.localeCompare(y.name))
    .slice(0, limit)
    .map(({ name }) => name);
}

/** Whether a step's tool belongs to a declared MCP server whose tools are not listed yet. */
export function isPendingServerTool(tool: string, pendingServers: readonly string[]): boolean {
  const dot = tool.indexOf('.');
  return dot > 0 && dot < tool.length - 1 && pendingServers.includes(tool.slice(0, dot));
}

/**
 * What people coming from shell scripts and other runners call rho's built-in tools: names no
 * edit distance would connect (`bash` is four edits from `shell`).
 */
const toolSynonyms: Readonly<Record<string, readonly string[]>> = {
  shell: ['bash', 'sh', 'zsh', 'script', 'run'],
  exec: ['command', 'cmd', 'spawn', 'process', 'run'],
  read_file: ['cat', 'read', 'open'],
  write_file: ['write', 'save', 'tee'],
  edit_file: ['edit', 'sed', 'replace', 'patch'],
  list_files: ['ls', 'glob', 'find', 'dir'],
  search_files: ['grep', 'rg', 'search'],
  http_request: ['curl', 'wget', 'fetch', 'http', 'request'],
  questionnaire: ['ask', 'prompt', 'input', 'question'],
  echo: ['print', 'log'],
};

/**
 * Suggestions for an unknown tool: a registered tool it is another name for, then the
 * registered tools (built-in, module, MCP) close to it, and for a namespaced name, the same tool
 * under each declared server whose tools are not listed yet.
 */
export function closestToolNames(unknown: string, registered: readonly string[], pendingServers: readonly string[] = []): string[] {
  const lower = unknown.toLowerCase();
  const synonyms = Object.entries(toolSynonyms)
    .filter(([tool, names]) => names.includes(lower) && registered.includes(tool))
    .map(([tool]) => tool);
  const guesses = unknown.includes('.') ? pendingServers.map((server) => `${server}.${tail(unknown)}`) : [];
  return [...new Set([...synonyms, ...closestNames(unknown, [...registered, ...guesses])])].slice(0, 3);
}
