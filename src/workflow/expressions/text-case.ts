/**
 * The words of a name as case conversions see them: runs of letters and digits, split where a
 * lower-case letter or digit meets an upper-case one (`fooBar` → foo, Bar) and before the last
 * capital of an acronym that starts a word (`HTTPServer` → HTTP, Server). Everything else
 * (spaces, `-`, `_`, `.`, `/`) only separates words.
 */
export function wordsOf(text: string): string[] {
  return text
    .split(/[^\p{L}\p{N}]+/u)
    .flatMap((run) => run.split(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u))
    .filter((word) => word !== '');
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

/** The case conversions rho's expression functions offer, by the name after `rho_`. */
export const caseConversions = {
  uppercase: (text: string) => text.toUpperCase(),
  lowercase: (text: string) => text.toLowerCase(),
  snakecase: (text: string) =>
    wordsOf(text)
      .map((word) => word.toLowerCase())
      .join('_'),
  kebabcase: (text: string) =>
    wordsOf(text)
      .map((word) => word.toLowerCase())
      .join('-'),
  camelcase: (text: string) =>
    wordsOf(text)
      .map((word, index) => (index === 0 ? word.toLowerCase() : capitalized(word)))
      .join(''),
  pascalcase: (text: string) => wordsOf(text).map(capitalized).join(''),
} as const;

export const caseDescriptions: Readonly<Record<keyof typeof caseConversions, string>> = {
  uppercase: 'rho_uppercase(text): text in upper case',
  lowercase: 'rho_lowercase(text): text in lower case',
  snakecase: 'rho_snakecase(text): the words of text in lower case, joined by _ (FooBar baz → foo_bar_baz)',
  kebabcase: 'rho_kebabcase(text): the words of text in lower case, joined by - (FooBar baz → foo-bar-baz)',
  camelcase: 'rho_camelcase(text): the words of text joined, each but the first capitalized (foo_bar baz → fooBarBaz)',
  pascalcase: 'rho_pascalcase(text): the words of text joined, each capitalized (foo_bar baz → FooBarBaz)',
};
