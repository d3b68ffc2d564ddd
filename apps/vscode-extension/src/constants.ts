/** The extension's id in the marketplace form `publisher.name`. */
export const EXTENSION_ID = 'vaultline.vaultline-vscode';

/** Command ids; each one is also declared in package.json. */
export const COMMANDS = {
  connect: 'vaultline.connect',
  disconnect: 'vaultline.disconnect',
  refresh: 'vaultline.refresh',
  refreshNode: 'vaultline.refreshNode',
  retry: 'vaultline.retry',
  showAllItems: 'vaultline.showAllItems',
  search: 'vaultline.search',
  revealItem: 'vaultline.revealItem',
  insertField: 'vaultline.insertField',
  insertLogin: 'vaultline.insertLogin',
  insertPassword: 'vaultline.insertPassword',
  insertUrl: 'vaultline.insertUrl',
  insertEmail: 'vaultline.insertEmail',
  copyField: 'vaultline.copyField',
  copyLogin: 'vaultline.copyLogin',
  copyPassword: 'vaultline.copyPassword',
  copyUrl: 'vaultline.copyUrl',
  copyEmail: 'vaultline.copyEmail',
  addItem: 'vaultline.addItem',
  editItem: 'vaultline.editItem',
  deleteItem: 'vaultline.deleteItem',
  addFolder: 'vaultline.addFolder',
  editFolder: 'vaultline.editFolder',
  deleteFolder: 'vaultline.deleteFolder',
  generatePassword: 'vaultline.generatePassword',
  openAttachment: 'vaultline.openAttachment',
  saveAttachment: 'vaultline.saveAttachment',
  uploadAttachment: 'vaultline.uploadAttachment',
  togglePresentationMode: 'vaultline.togglePresentationMode',
  presentationModeOn: 'vaultline.presentationModeOn',
  presentationModeOff: 'vaultline.presentationModeOff',
  openWalkthrough: 'vaultline.openWalkthrough',
  runWithValues: 'vaultline.runWithValues',
  showLog: 'vaultline.showLog',
  insertReference: 'vaultline.insertReference',
  goToItem: 'vaultline.goToItem',
  copyReferencedValue: 'vaultline.copyReferencedValue',
  revealReferencedValue: 'vaultline.revealReferencedValue',
  explainPresentation: 'vaultline.explainPresentation',
  fixReference: 'vaultline.fixReference',
  storeSecret: 'vaultline.storeSecret',
  copyOneTimeCode: 'vaultline.copyOneTimeCode',
} as const;

/** VS Code's own Local History commands Vaultline runs. */
export const LOCAL_HISTORY_COMMANDS = {
  /** Deletes every copy of every file, after VS Code's own confirmation. */
  deleteAll: 'workbench.action.localHistory.deleteAll',
} as const;

/** The walkthrough's id as `publisher.name#id`, for `workbench.action.openWalkthrough`. */
export const WALKTHROUGH_ID = `${EXTENSION_ID}#vaultline.gettingStarted`;

/** View and container ids. */
export const VIEWS = {
  container: 'vaultline',
  tree: 'vaultline.tree',
} as const;

/** The configuration section and its keys. */
export const CONFIG_SECTION = 'vaultline';
export const CONFIG = {
  /** Machine-scoped list of `{ name, url, login }`: a workspace cannot redirect a key elsewhere. */
  connections: 'connections',
  clipboardClearSeconds: 'clipboardClearSeconds',
  presentationMode: 'presentationMode',
  searchDebounceMs: 'searchDebounceMs',
  requestTimeoutMs: 'requestTimeoutMs',
  treePageSize: 'treePageSize',
  secretDetectionEnabled: 'secretDetection.enabled',
  secretDetectionMaxFileSize: 'secretDetection.maxFileSize',
  /** Application-scoped: offer the connections to VS Code's agent as MCP servers (`vaultline mcp`). */
  assistantEnabled: 'assistant.enabled',
  /** Application-scoped: the command that runs the CLI (it receives the credentials). */
  assistantCommand: 'assistant.command',
} as const;

/** Context keys used in `when` clauses. */
export const CONTEXT_KEYS = {
  connectionCount: 'vaultline.connectionCount',
  /** True once at least one connection is configured (the walkthrough's first step). */
  connected: 'vaultline.connected',
  presentationMode: 'vaultline.presentationMode',
  /** True in the Node extension host, where the terminal with vault values exists (not on the web). */
  terminal: 'vaultline.terminal',
} as const;

/**
 * Where a connection's secrets live in SecretStorage, one entry each per connection name: what it
 * signs in with (the API key; on servers with per-user sign-in also the password, or a personal
 * access token instead of both) and the session token the client keeps between windows.
 */
export const SECRET_KEYS = {
  apiKey: 'vaultline.apiKey/',
  password: 'vaultline.password/',
  personalAccessToken: 'vaultline.accessToken/',
  sessionToken: 'vaultline.sessionToken/',
} as const;

/** The SecretStorage prefixes of what a connection signs in with (not its session token). */
export const CREDENTIAL_KEY_PREFIXES = [
  SECRET_KEYS.apiKey,
  SECRET_KEYS.password,
  SECRET_KEYS.personalAccessToken,
] as const;

/** globalState key set once the keyring warning was shown: it is shown once per installation. */
export const KEYRING_WARNED = 'vaultline.keyringWarned';

/** The URI scheme of read-only attachment documents (never backed up to disk, unlike untitled files). */
export const ATTACHMENT_SCHEME = 'vaultline-attachment';

/** The Output channel's name. */
export const OUTPUT_CHANNEL_NAME = 'Vaultline';

/** The item fields that can be inserted or copied. */
export const ITEM_FIELDS = ['login', 'password', 'url', 'email'] as const;
export type ItemField = (typeof ITEM_FIELDS)[number];

/** Defaults of the settings, repeated in package.json. */
export const DEFAULTS = {
  clipboardClearSeconds: 30,
  searchDebounceMs: 250,
  requestTimeoutMs: 10_000,
  treePageSize: 1000,
  /** Characters: larger documents get neither secret detection nor reference checks. */
  secretDetectionMaxFileSize: 1_000_000,
} as const;

/** globalState key: per language id, whether the last insert was a `reference` or a `value`. */
export const INSERT_CHOICES = 'vaultline.insertChoices';

/** The `source` and collection names of Vaultline's diagnostics. */
export const DIAGNOSTICS = {
  secrets: 'vaultline.secrets',
  references: 'vaultline.references',
  source: 'Vaultline',
} as const;

/** The longest a copied value may stay on the clipboard, in seconds (the setting's maximum). */
export const MAX_CLEAR_SECONDS = 600;

/** Shown instead of a login or URL in presentation mode. */
export const MASK = '••••••';

/** Attachment media types opened as text besides `text/*`. */
export const TEXT_MEDIA_TYPES = [
  'application/json',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/x-sh',
  'application/x-pem-file',
] as const;

/** The largest attachment opened in an editor, in bytes. */
export const MAX_TEXT_ATTACHMENT_BYTES = 5 * 1024 * 1024;

/** Lines kept in memory by the request log (the Output channel keeps its own copy). */
export const REQUEST_LOG_MEMORY = 2000;

/** A one-time code with fewer seconds left than this is not copied: the next one is, once it is there. */
export const ONE_TIME_CODE_MIN_SECONDS = 5;
