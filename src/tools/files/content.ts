/** How many leading bytes decide whether a file is binary or an image. */
export const sniffLength = 8192;

const signatures: readonly { mediaType: string; matches(head: Buffer): boolean }[] = [
  { mediaType: 'image/png', matches: (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { mediaType: 'image/jpeg', matches: (head) => head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff },
  { mediaType: 'image/gif', matches: (head) => /^GIF8[79]a/.test(head.subarray(0, 6).toString('latin1')) },
  {
    mediaType: 'image/webp',
    matches: (head) => head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

/** The media type of an image file, judged by its leading bytes rather than its name. */
export function imageMediaType(head: Buffer): string | undefined {
  return signatures.find((signature) => signature.matches(head))?.mediaType;
}

/** A NUL byte among the leading bytes marks a file as binary (the heuristic git and grep use). */
export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, sniffLength).includes(0);
}
