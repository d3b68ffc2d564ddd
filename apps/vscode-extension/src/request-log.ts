import type { RequestEvent } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { OUTPUT_CHANNEL_NAME, REQUEST_LOG_MEMORY } from './constants.ts';

/** The level of a log line, as VS Code's log levels name them. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/**
 * The Output channel, a `LogOutputChannel`: VS Code adds time and level and drops lines below the
 * user's log level (Developer: Set Log Level…). One line per HTTP exchange, taken from the client's
 * already redacted `onRequest` events and passed once more through every known key's redactor;
 * nothing is sent anywhere else (no telemetry).
 */
export class RequestLog implements vscode.Disposable {
  private readonly channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
  private readonly recent: string[] = [];
  private readonly redactors = new Set<(text: string) => string>();
  private total = 0;

  /** The last lines written, as `level text`, redacted (for the command that shows them and for tests). */
  get lines(): readonly string[] {
    return this.recent;
  }

  /** How many lines were written since the log was created (`lines` keeps only the last ones). */
  get written(): number {
    return this.total;
  }

  /** The user's log level for this channel. */
  get level(): vscode.LogLevel {
    return this.channel.logLevel;
  }

  /** Adds a redactor, e.g. a client's; returns a disposable that removes it. */
  addRedactor(redact: (text: string) => string): vscode.Disposable {
    this.redactors.add(redact);
    return new vscode.Disposable(() => this.redactors.delete(redact));
  }

  /** Logs one request of a connection: failures as warnings, the rest as info. */
  request(connection: string, event: RequestEvent): void {
    const status = event.status === undefined ? '---' : String(event.status);
    const outcome = event.errorCode ? ` ${event.errorCode}` : '';
    this.write(
      event.errorCode ? 'warn' : 'info',
      `[${connection}] ${event.method} ${event.endpoint} ${status}${outcome} ${event.durationMs}ms ${event.url}`,
    );
  }

  /** Logs a line of the extension's own. */
  info(text: string): void {
    this.write('info', text);
  }

  /** Logs a failure the user was told about. */
  error(text: string): void {
    this.write('error', text);
  }

  /** Logs detail that helps only when debugging (shown when the user lowers the level). */
  debug(text: string): void {
    this.write('debug', text);
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }

  private write(level: LogLevel, text: string): void {
    let line = text;
    for (const redact of this.redactors) line = redact(line);
    if (!this.enabled(level)) return;
    this.recent.push(`${level} ${line}`);
    this.total += 1;
    if (this.recent.length > REQUEST_LOG_MEMORY)
      this.recent.splice(0, this.recent.length - REQUEST_LOG_MEMORY);
    this.channel[level](line);
  }

  private enabled(level: LogLevel): boolean {
    const current = this.channel.logLevel;
    if (current === vscode.LogLevel.Off) return false;
    const rank: Record<LogLevel, vscode.LogLevel> = {
      trace: vscode.LogLevel.Trace,
      debug: vscode.LogLevel.Debug,
      info: vscode.LogLevel.Info,
      warn: vscode.LogLevel.Warning,
      error: vscode.LogLevel.Error,
    };
    return rank[level] >= current;
  }
}
