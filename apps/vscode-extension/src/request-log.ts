import type { RequestEvent } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { OUTPUT_CHANNEL_NAME, REQUEST_LOG_MEMORY } from './constants.ts';

/**
 * The Output channel: one line per HTTP exchange, taken from the client's already redacted
 * `onRequest` events and passed once more through every known key's redactor. Nothing is sent
 * anywhere else (no telemetry).
 */
export class RequestLog implements vscode.Disposable {
  private readonly channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME);
  private readonly recent: string[] = [];
  private readonly redactors = new Set<(text: string) => string>();

  /** The last lines written, exactly as written (for the command that shows them and for tests). */
  get lines(): readonly string[] {
    return this.recent;
  }

  /** Adds a redactor, e.g. a client's; returns a disposable that removes it. */
  addRedactor(redact: (text: string) => string): vscode.Disposable {
    this.redactors.add(redact);
    return new vscode.Disposable(() => this.redactors.delete(redact));
  }

  /** Logs one request of a connection. */
  request(connection: string, event: RequestEvent): void {
    const status = event.status === undefined ? '---' : String(event.status);
    const outcome = event.errorCode ? ` ${event.errorCode}` : '';
    this.write(
      `[${connection}] ${event.method} ${event.endpoint} ${status}${outcome} ${event.durationMs}ms ${event.url}`,
    );
  }

  /** Logs a line of the extension's own. */
  info(text: string): void {
    this.write(text);
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }

  private write(text: string): void {
    let line = `${new Date().toISOString()} ${text}`;
    for (const redact of this.redactors) line = redact(line);
    this.recent.push(line);
    if (this.recent.length > REQUEST_LOG_MEMORY)
      this.recent.splice(0, this.recent.length - REQUEST_LOG_MEMORY);
    this.channel.appendLine(line);
  }
}
