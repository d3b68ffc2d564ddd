import * as vscode from 'vscode';
import type { ConnectionSettings, ConnectionStore } from './connections.ts';

/** What the four steps collect. */
export interface ConnectAnswers {
  settings: ConnectionSettings;
  apiKey: string;
}

interface Step {
  prompt: string;
  placeholder?: string;
  value: string;
  password?: boolean;
  validate: (text: string) => string | vscode.InputBoxValidationMessage | undefined;
}

const TOTAL_STEPS = 4;

/**
 * The connect dialog: four titled steps (name, URL, login, API key) with Back, each saying what it
 * asks for and where it comes from. What was typed (never the key) is kept when a connection fails,
 * and the next run starts from it.
 */
export class ConnectFlow implements vscode.Disposable {
  /** The input box while a step is open: lets scripts and tests type into it. */
  active: vscode.InputBox | undefined;
  /** The last attempt that failed, without its key: the prefill of the next run. */
  private draft: ConnectionSettings | undefined;
  private readonly connections: ConnectionStore;

  constructor(connections: ConnectionStore) {
    this.connections = connections;
  }

  /** The values the next run starts from. */
  get prefill(): ConnectionSettings | undefined {
    return this.draft;
  }

  /** Keeps what was typed after a failed attempt. */
  remember(settings: ConnectionSettings): void {
    this.draft = { ...settings };
  }

  /** Forgets it after a success. */
  forget(): void {
    this.draft = undefined;
  }

  /**
   * Asks for whatever `known` does not give, starting from `start` (a previous attempt or an
   * existing connection).
   *
   * @param replacing The connection this run gives a new key to: its name is not flagged as taken.
   *
   * @returns The answers, or `undefined` when the user cancelled.
   */
  async ask(
    known: Partial<ConnectionSettings>,
    start: Partial<ConnectionSettings> = {},
    replacing?: string,
  ): Promise<ConnectAnswers | undefined> {
    const values = { name: '', url: '', login: '', apiKey: '', ...start, ...known };
    const existing = new Set(this.connections.list().map((c) => c.name));
    const steps: Array<{ key: keyof typeof values; step: () => Step }> = [
      {
        key: 'name',
        step: () => ({
          prompt: vscode.l10n.t('A name for this connection: it is the root of the Vault view.'),
          value: values.name || (existing.has('vault') ? '' : 'vault'),
          validate: (text) => {
            if (text.trim() === '') return vscode.l10n.t('Enter a name.');
            if (existing.has(text.trim()) && text.trim() !== replacing)
              return {
                message: vscode.l10n.t(
                  'A connection named "{0}" exists: you will be asked before it is replaced.',
                  text.trim(),
                ),
                severity: vscode.InputBoxValidationSeverity.Warning,
              };
            return undefined;
          },
        }),
      },
      {
        key: 'url',
        step: () => ({
          prompt: vscode.l10n.t(
            "The vault's base URL: where its API answers (TeamPass: the site's address).",
          ),
          placeholder: 'https://vault.example.com',
          value: values.url,
          validate: (text) =>
            /^https?:\/\/\S+$/i.test(text.trim())
              ? undefined
              : vscode.l10n.t('Enter an http:// or https:// URL.'),
        }),
      },
      {
        key: 'login',
        step: () => ({
          prompt: vscode.l10n.t(
            'The login the view acts for: the vault user whose folders and rights the tree shows (an admin key can act for any user).',
          ),
          value: values.login,
          validate: (text) => (text.trim() === '' ? vscode.l10n.t('Enter a login.') : undefined),
        }),
      },
      {
        key: 'apiKey',
        step: () => ({
          prompt: vscode.l10n.t(
            'The API key. Vaultline server: `vaultline-server keys create --user {0}` prints one. TeamPass: an administrator creates one under Settings → API.',
            values.login || '<login>',
          ),
          value: '',
          password: true,
          validate: (text) => (text.trim() === '' ? vscode.l10n.t('Enter the API key.') : undefined),
        }),
      },
    ];
    const todo = steps.filter(({ key }) => known[key as keyof ConnectionSettings] === undefined);
    for (let i = 0; i < todo.length; ) {
      const { key, step } = todo[i]!;
      const answer = await this.input(step(), i + 1, todo.length === TOTAL_STEPS ? TOTAL_STEPS : todo.length);
      if (answer === undefined) return undefined;
      if (answer === 'back') {
        i = Math.max(0, i - 1);
        continue;
      }
      values[key] = answer.trim();
      i++;
    }
    return {
      settings: { name: values.name.trim(), url: values.url.trim(), login: values.login.trim() },
      apiKey: values.apiKey.trim(),
    };
  }

  dispose(): void {
    this.active?.dispose();
  }

  private input(step: Step, index: number, total: number): Promise<string | 'back' | undefined> {
    const box = vscode.window.createInputBox();
    this.active = box;
    box.title = vscode.l10n.t('Connect to a Vault');
    box.step = index;
    box.totalSteps = total;
    box.prompt = step.prompt;
    box.placeholder = step.placeholder;
    box.value = step.value;
    box.password = step.password === true;
    box.ignoreFocusOut = true;
    box.buttons = index > 1 ? [vscode.QuickInputButtons.Back] : [];
    const check = () => {
      box.validationMessage = step.validate(box.value);
    };
    // Before anything is typed only a warning shows (a name that exists): an empty box is not yet
    // an error. Once the value changes, or on Enter, everything is judged.
    const initial = step.validate(box.value);
    if (
      initial !== undefined &&
      typeof initial !== 'string' &&
      initial.severity !== vscode.InputBoxValidationSeverity.Error
    )
      box.validationMessage = initial;
    return new Promise((resolve) => {
      let done = false;
      const finish = (value: string | 'back' | undefined) => {
        if (done) return;
        done = true;
        resolve(value);
        box.dispose();
        if (this.active === box) this.active = undefined;
      };
      box.onDidChangeValue(check);
      box.onDidTriggerButton((button) => {
        if (button === vscode.QuickInputButtons.Back) finish('back');
      });
      box.onDidAccept(() => {
        const problem = step.validate(box.value);
        if (
          problem !== undefined &&
          (typeof problem === 'string' || problem.severity === vscode.InputBoxValidationSeverity.Error)
        ) {
          box.validationMessage = problem;
          return;
        }
        finish(box.value);
      });
      box.onDidHide(() => finish(undefined));
      box.show();
    });
  }
}
