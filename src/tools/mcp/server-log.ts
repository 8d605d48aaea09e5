import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';

/**
 * A server's log messages (`notifications/message`) as lines on the step whose call is running:
 * progress lines, which the host masks and bounds like any tool's. rho has no debug output, so
 * `debug` messages are left out; every other level is shown.
 */

/** The levels shown, as RFC 5424 orders them (MCP's logging levels), `info` and above. */
const shownLevels: ReadonlySet<LoggingLevel> = new Set(['info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
/** Longest log line kept before the host's own bound; a message past it is cut with a mark. */
const maxLogText = 2000;

export interface ServerLogMessage {
  level: LoggingLevel;
  logger?: string | undefined;
  data?: unknown;
}

/** The line a log message shows as, or undefined for one that is not shown. */
export function serverLogLine(server: string, message: ServerLogMessage): string | undefined {
  if (!shownLevels.has(message.level)) return undefined;
  const text = typeof message.data === 'string' ? message.data : (JSON.stringify(message.data) ?? '');
  const cut = text.length > maxLogText ? `${text.slice(0, maxLogText)}… (cut)` : text;
  const source = message.logger ? `${message.level}, ${message.logger}` : message.level;
  return `MCP server ${server} log (${source}): ${cut}`;
}

/** Shows each log message on the call it arrives during; with none or several running, it cannot be placed and is left out. */
export function installServerLog(client: Client, server: string, activeCall: () => { notice(message: string): void } | undefined): void {
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    const line = serverLogLine(server, notification.params);
    if (line !== undefined) activeCall()?.notice(line);
  });
}
