import {
  type CredentialFields,
  type CredentialKind,
  type CredentialsNeeded,
  type DialectDetection,
  detectDialect,
} from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionSettings, ConnectionStore } from './connections.ts';
import { CONFIG, CONFIG_SECTION, DEFAULTS } from './constants.ts';

/** What the steps collect. */
export interface ConnectAnswers {
  /** Name, URL, login, and the dialect the URL's server was detected to speak (when it answered). */
  settings: ConnectionSettings;
  /** What the server signs in with, as typed (the login is in the settings). */
  credentials: CredentialFields;
}

/** What detection learnt of a URL, for the steps that follow it. */
export interface ServerProfile {
  /** The URL it was learnt for. */
  url: string;
  /** What signing in needs; `api-key` when the server could not be told (the check says why later). */
  credentials: CredentialsNeeded;
  /** Whether the login only names whom the view acts for (a key may read any user's rights). */
  otherUsers: boolean;
  /** The detection itself; `detected: false` when no usable answer came. */
  detection: DialectDetection;
}

type StepKey = 'name' | 'url' | 'login' | 'method' | 'password' | 'apiKey' | 'personalAccessToken';

interface InputStep {
  kind: 'input';
  prompt: string;
  placeholder?: string;
  value: string;
  password?: boolean;
  validate: (text: string) => string | vscode.InputBoxValidationMessage | undefined;
  /** Runs on Enter once the value is valid (the box shows it is busy meanwhile). */
  accept?: (text: string) => Promise<void>;
}

interface PickStep {
  kind: 'pick';
  placeholder: string;
  items: readonly (vscode.QuickPickItem & { value: string })[];
  value: string;
}

/** What one run of the dialog knows while it asks: the answers so far and the server's profile. */
interface AskState {
  /** The answers so far (the prefill before a step is answered). */
  readonly values: Record<StepKey, string>;
  /** What the caller gave: those steps are not asked. */
  readonly known: Partial<ConnectionSettings>;
  /** The names of the stored connections. */
  readonly existing: ReadonlySet<string>;
  /** The connection this run gives new credentials to: its name is not flagged as taken. */
  readonly replacing: string | undefined;
  /** What detection learnt of the URL, once asked. */
  profile: ServerProfile | undefined;
}

/** Whether the server signs each user in (password and API key, or a personal access token). */
const signsIn = (state: AskState) => state.profile?.credentials === 'password';
/** Whether the user chose to sign in with a personal access token. */
const byToken = (state: AskState) =>
  state.values.method === ('personal-access-token' satisfies CredentialKind);
/** The login, for the prompts. */
const loginOf = (state: AskState) => state.values.login.trim() || '<login>';

/**
 * One step of the dialog: what it asks (the box or the pick, with its prompt and prefill), when it
 * applies, how the answer is checked (`validate`) and what it stores (its key of the answers).
 */
interface DialogStep {
  /** The answer it stores. */
  readonly key: StepKey;
  /** When it applies: what the caller gave, what the server signs in with, the method chosen. */
  readonly when: (state: AskState) => boolean;
  /** What it asks, and how the answer is checked. */
  readonly asks: (state: AskState, detect: (url: string) => Promise<void>) => InputStep | PickStep;
  /** Stored as typed (a password); other answers are trimmed. */
  readonly asTyped?: boolean;
}

/** The steps, in order; {@link ConnectFlow.ask} asks those that apply. */
const DIALOG_STEPS: readonly DialogStep[] = [
  {
    key: 'name',
    when: (state) => state.known.name === undefined,
    asks: ({ values, existing, replacing }) => ({
      kind: 'input',
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
    when: (state) => state.known.url === undefined,
    asks: ({ values }, detect) => ({
      kind: 'input',
      prompt: vscode.l10n.t("The vault's base URL: where its API answers (TeamPass: the site's address)."),
      placeholder: 'https://vault.example.com',
      value: values.url,
      validate: (text) =>
        /^https?:\/\/\S+$/i.test(text.trim())
          ? undefined
          : vscode.l10n.t('Enter an http:// or https:// URL.'),
      // The server tells what it signs in with: the steps that follow depend on it.
      accept: detect,
    }),
  },
  {
    key: 'login',
    when: (state) => state.known.login === undefined,
    asks: ({ values, profile }) => ({
      kind: 'input',
      prompt:
        profile?.otherUsers === false
          ? vscode.l10n.t(
              'Your login on this vault: every request runs as this user, with the rights the vault gives them.',
            )
          : vscode.l10n.t(
              'The login the view acts for: the vault user whose folders and rights the tree shows (an admin key can act for any user).',
            ),
      value: values.login,
      validate: (text) => (text.trim() === '' ? vscode.l10n.t('Enter a login.') : undefined),
    }),
  },
  {
    key: 'method',
    when: signsIn,
    asks: (state) => ({
      kind: 'pick',
      placeholder: vscode.l10n.t('How does {0} sign in to this vault?', loginOf(state)),
      value: state.values.method,
      items: [
        {
          value: 'password' satisfies CredentialKind,
          label: vscode.l10n.t('$(key) Password and API key'),
          detail: vscode.l10n.t(
            "{0}'s password, and the personal API key of their profile page.",
            loginOf(state),
          ),
        },
        {
          value: 'personal-access-token' satisfies CredentialKind,
          label: vscode.l10n.t('$(shield) Personal access token'),
          detail: vscode.l10n.t(
            'Where the site allows them (single sign-on accounts): a token created in the profile.',
          ),
        },
      ],
    }),
  },
  {
    key: 'password',
    when: (state) => signsIn(state) && !byToken(state),
    asTyped: true,
    asks: (state) => ({
      kind: 'input',
      prompt: vscode.l10n.t(
        "{0}'s password on this vault. Kept in VS Code's SecretStorage: the vault's sessions run out, and signing in again needs it.",
        loginOf(state),
      ),
      value: '',
      password: true,
      validate: (text) => (text === '' ? vscode.l10n.t('Enter the password.') : undefined),
    }),
  },
  {
    key: 'personalAccessToken',
    when: (state) => signsIn(state) && byToken(state),
    asks: (state) => ({
      kind: 'input',
      prompt: vscode.l10n.t(
        "{0}'s personal access token (created in the vault's profile page, where the administrator allows them).",
        loginOf(state),
      ),
      value: '',
      password: true,
      validate: (text) => (text.trim() === '' ? vscode.l10n.t('Enter the token.') : undefined),
    }),
  },
  {
    key: 'apiKey',
    when: (state) => !signsIn(state) || !byToken(state),
    asks: (state) => ({
      kind: 'input',
      prompt: signsIn(state)
        ? vscode.l10n.t(
            "{0}'s personal API key: the vault's profile page shows it (TeamPass: your profile → API key).",
            loginOf(state),
          )
        : vscode.l10n.t(
            "The API key. Vaultline server: an administrator's `vaultline-server keys create --user {0}` prints one (with the embedded store, while the server is stopped); the quick start's admin key (.data/vault/quickstart-admin.key) works too. TeamPass: an administrator creates one under Settings → API.",
            loginOf(state),
          ),
      value: state.values.apiKey,
      password: true,
      validate: (text) => (text.trim() === '' ? vscode.l10n.t('Enter the API key.') : undefined),
    }),
  },
];

/**
 * The connect dialog: titled steps with Back, each saying what it asks for and where it comes
 * from: a name, the URL (whose server is then detected with one keyless request, `detectDialect`),
 * the login, and what that server signs in with (`capabilities.credentials`): an API key; or the
 * user's password and personal API key, or a personal access token instead. What was typed (never
 * a secret) is kept when a connection fails, and the next run starts from it.
 */
export class ConnectFlow implements vscode.Disposable {
  /** The input box while a step that asks for text is open: lets scripts and tests type into it. */
  active: vscode.InputBox | undefined;
  /** The pick while a step that offers choices is open (how to sign in). */
  activePick: vscode.QuickPick<vscode.QuickPickItem & { value: string }> | undefined;
  /** The last attempt that failed, without its secrets: the prefill of the next run. */
  private draft: ConnectionSettings | undefined;
  /** The API key of the last failed sign-in with a password, for the next run's API key step. */
  private draftApiKey: string | undefined;
  private readonly connections: ConnectionStore;

  constructor(connections: ConnectionStore) {
    this.connections = connections;
  }

  /** The values the next run starts from. */
  get prefill(): ConnectionSettings | undefined {
    return this.draft;
  }

  /**
   * Keeps what was typed after a failed attempt. A vault that signs each user in (TeamPass 3)
   * refuses a wrong password and a wrong API key alike: the key is kept too, in memory only, and
   * the next run's API key step starts from it (masked), so Retry asks again for the password
   * alone.
   */
  remember(settings: ConnectionSettings, signInApiKey?: string): void {
    this.draft = { ...settings };
    this.draftApiKey = signInApiKey;
  }

  /** Forgets it after a success. */
  forget(): void {
    this.draft = undefined;
    this.draftApiKey = undefined;
  }

  /**
   * Detects what the server at a URL speaks and what it signs in with: one keyless request (two
   * when the first answer tells neither). Never throws: a server that does not answer is asked for
   * an API key, and the connection check then says why it failed.
   */
  static async profile(url: string): Promise<ServerProfile> {
    const timeoutMs = vscode.workspace
      .getConfiguration(CONFIG_SECTION)
      .get<number>(CONFIG.requestTimeoutMs, DEFAULTS.requestTimeoutMs);
    const detection = await detectDialect({ baseUrl: url, timeoutMs }).catch(
      (error: unknown): DialectDetection => ({
        detected: false,
        dialect: undefined,
        capabilities: undefined,
        evidence: String(error instanceof Error ? error.message : error).slice(0, 200),
      }),
    );
    return {
      url,
      credentials: detection.capabilities?.credentials ?? 'api-key',
      otherUsers: detection.capabilities?.otherUsers ?? true,
      detection,
    };
  }

  /**
   * Asks for whatever `known` does not give, starting from `start` (a previous attempt or an
   * existing connection).
   *
   * @param replacing The connection this run gives new credentials to: its name is not flagged as taken.
   *
   * @returns The answers, or `undefined` when the user cancelled.
   */
  async ask(
    known: Partial<ConnectionSettings>,
    start: Partial<ConnectionSettings> = {},
    replacing?: string,
  ): Promise<ConnectAnswers | undefined> {
    const values: Record<StepKey, string> = {
      name: start.name ?? '',
      url: start.url ?? '',
      login: start.login ?? '',
      method: 'password' satisfies CredentialKind,
      password: '',
      // Retry after a refused sign-in: the key typed then, not asked again from nothing.
      apiKey: start === this.draft ? (this.draftApiKey ?? '') : '',
      personalAccessToken: '',
    };
    if (known.name !== undefined) values.name = known.name;
    if (known.url !== undefined) values.url = known.url;
    if (known.login !== undefined) values.login = known.login;
    const state: AskState = {
      values,
      known,
      existing: new Set(this.connections.list().map((c) => c.name)),
      replacing,
      profile: undefined,
    };
    const detect = async (url: string) => {
      if (state.profile?.url !== url.trim()) state.profile = await ConnectFlow.profile(url.trim());
    };
    const plan = () => DIALOG_STEPS.filter((step) => step.when(state));

    for (let i = 0; i < plan().length; ) {
      const step = plan()[i]!;
      // A URL given by the caller is detected before the first step that depends on it.
      if (step.key !== 'name' && step.key !== 'url') await detect(values.url);
      const current = step.asks(state, detect);
      const answer =
        current.kind === 'pick'
          ? await this.pick(current, i + 1, plan().length)
          : await this.input(current, i + 1, plan().length);
      if (answer === undefined) return undefined;
      if (answer === 'back') {
        i = Math.max(0, i - 1);
        continue;
      }
      values[step.key] = step.asTyped ? answer : answer.trim();
      i++;
    }
    await detect(values.url);
    const detection = state.profile?.detection;
    const settings: ConnectionSettings = {
      name: values.name.trim(),
      url: values.url.trim(),
      login: values.login.trim(),
      ...(detection?.detected ? { dialect: detection.dialect } : {}),
    };
    const credentials: CredentialFields = !signsIn(state)
      ? { apiKey: values.apiKey }
      : byToken(state)
        ? { personalAccessToken: values.personalAccessToken }
        : { password: values.password, apiKey: values.apiKey };
    return { settings, credentials };
  }

  dispose(): void {
    this.active?.dispose();
    this.activePick?.dispose();
  }

  private input(step: InputStep, index: number, total: number): Promise<string | 'back' | undefined> {
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
      let accepting = false;
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
        if (accepting) return;
        const problem = step.validate(box.value);
        if (
          problem !== undefined &&
          (typeof problem === 'string' || problem.severity === vscode.InputBoxValidationSeverity.Error)
        ) {
          box.validationMessage = problem;
          return;
        }
        if (!step.accept) {
          finish(box.value);
          return;
        }
        accepting = true;
        box.busy = true;
        box.enabled = false;
        const value = box.value;
        void step.accept(value).finally(() => finish(value));
      });
      box.onDidHide(() => finish(undefined));
      box.show();
    });
  }

  private pick(step: PickStep, index: number, total: number): Promise<string | 'back' | undefined> {
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { value: string }>();
    this.activePick = pick;
    pick.title = vscode.l10n.t('Connect to a Vault');
    pick.step = index;
    pick.totalSteps = total;
    pick.placeholder = step.placeholder;
    pick.items = step.items;
    pick.activeItems = step.items.filter((item) => item.value === step.value);
    pick.ignoreFocusOut = true;
    pick.buttons = index > 1 ? [vscode.QuickInputButtons.Back] : [];
    return new Promise((resolve) => {
      let done = false;
      const finish = (value: string | 'back' | undefined) => {
        if (done) return;
        done = true;
        resolve(value);
        pick.dispose();
        if (this.activePick === pick) this.activePick = undefined;
      };
      pick.onDidTriggerButton((button) => {
        if (button === vscode.QuickInputButtons.Back) finish('back');
      });
      pick.onDidAccept(() => {
        const [chosen] = pick.selectedItems.length > 0 ? pick.selectedItems : pick.activeItems;
        if (chosen) finish(chosen.value);
      });
      pick.onDidHide(() => finish(undefined));
      pick.show();
    });
  }
}
