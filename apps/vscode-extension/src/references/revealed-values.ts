import type * as vscode from 'vscode';
import type { PresentationMode } from '../presentation-mode.ts';

/**
 * Values a reference's hover shows after "Reveal": kept in memory only, for the clipboard's clear
 * delay, then forgotten; all forgotten the moment presentation mode turns on (which also refuses a
 * reveal). Keyed by document and reference text.
 */
export class RevealedValues implements vscode.Disposable {
  private readonly values = new Map<
    string,
    { value: string; until: number; timer: ReturnType<typeof setTimeout> }
  >();
  private readonly listener: vscode.Disposable;

  constructor(presentation: PresentationMode) {
    this.listener = presentation.onDidChange((on) => {
      if (on) this.clear();
    });
  }

  /** Keeps a value for `seconds`. */
  reveal(uri: string, reference: string, value: string, seconds: number): void {
    const key = keyOf(uri, reference);
    clearTimeout(this.values.get(key)?.timer);
    const timer = setTimeout(() => this.values.delete(key), seconds * 1000);
    this.values.set(key, { value, until: Date.now() + seconds * 1000, timer });
  }

  /** The revealed value of a reference in a document, and the seconds it has left. */
  get(uri: string, reference: string): { value: string; secondsLeft: number } | undefined {
    const entry = this.values.get(keyOf(uri, reference));
    if (!entry || entry.until <= Date.now()) return undefined;
    return { value: entry.value, secondsLeft: Math.ceil((entry.until - Date.now()) / 1000) };
  }

  /** Forgets every value. */
  clear(): void {
    for (const entry of this.values.values()) clearTimeout(entry.timer);
    this.values.clear();
  }

  dispose(): void {
    this.clear();
    this.listener.dispose();
  }
}

function keyOf(uri: string, reference: string): string {
  return `${uri}\u0000${reference}`;
}
