import { ToolError } from './errors.js';

/**
 * What a tool result carries beside its text: images, audio and resources. Built-in tools (read_file)
 * and MCP servers produce the same values, so a step, its events and the library see one shape.
 */

/** An image a tool returned. The bytes stay in the result: events and logs only see `ImageSummary`. */
export interface ImageContent {
  /** `image/png`, `image/jpeg`, ... */
  mediaType: string;
  /** base64 */
  data: string;
}

/** An audio clip a tool returned (an MCP audio block), kept as images are: events and logs only see its summary. */
export interface AudioContent {
  /** `audio/wav`, `audio/mpeg`, ... */
  mediaType: string;
  /** base64 */
  data: string;
}

/** A resource a tool returned (an MCP embedded resource): text or a base64 blob, with its MIME type. */
export type ResourceContent = { uri: string; mediaType?: string } & ({ text: string } | { blob: string });

/** What events and reports say about an image or an audio clip: its type and size, never its bytes. */
export interface ImageSummary {
  mediaType: string;
  bytes: number;
}

const mediaTypePattern = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;
const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/;

function checkMediaType(mediaType: string, expected: string): string {
  if (!mediaTypePattern.test(mediaType)) throw new ToolError('execution_failed', `${JSON.stringify(mediaType.slice(0, 80))} is not a ${expected} media type`);
  return mediaType.toLowerCase();
}

function checkBase64(data: string, what: string): string {
  if (data.length % 4 !== 0 || !base64Pattern.test(data)) throw new ToolError('execution_failed', `the ${what} is not base64 data`);
  return data;
}

/** An image from raw bytes (read_file). */
export function imageFromBytes(mediaType: string, bytes: Buffer): ImageContent {
  return { mediaType: checkMediaType(mediaType, 'image'), data: bytes.toString('base64') };
}

/** Media from base64 text another program sent (an MCP server), checked: a `KIND/*` type and base64 data. */
function mediaFromBase64(kind: 'image' | 'audio', mediaType: string, data: string): { mediaType: string; data: string } {
  const checked = checkMediaType(mediaType, kind);
  if (!checked.startsWith(`${kind}/`)) throw new ToolError('execution_failed', `an ${kind} block has the media type ${checked}, not ${kind}/*`);
  return { mediaType: checked, data: checkBase64(data, kind) };
}

export function imageFromBase64(mediaType: string, data: string): ImageContent {
  return mediaFromBase64('image', mediaType, data);
}

export function audioFromBase64(mediaType: string, data: string): AudioContent {
  return mediaFromBase64('audio', mediaType, data);
}

/** A resource another program sent, checked the same way; a blob must be base64. */
export function resourceContent(raw: { uri: string; mimeType?: string; text?: string; blob?: string }): ResourceContent {
  const mediaType = raw.mimeType === undefined ? {} : { mediaType: checkMediaType(raw.mimeType, 'resource') };
  if (raw.blob !== undefined) return { uri: raw.uri, ...mediaType, blob: checkBase64(raw.blob, `blob of ${raw.uri}`) };
  return { uri: raw.uri, ...mediaType, text: raw.text ?? '' };
}

/** The decoded size of base64 data, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

export function summarizeImages(media: readonly (ImageContent | AudioContent)[]): ImageSummary[] {
  return media.map((item) => ({ mediaType: item.mediaType, bytes: base64Bytes(item.data) }));
}
