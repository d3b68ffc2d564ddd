import * as vscode from 'vscode';
import { userMessage } from '../error-messages.ts';
import type { Notifier } from '../notifier.ts';
import { envFileReferences, referenceTexts, substituteReferences } from './env-references.ts';
import type { ReferenceResolver } from './reference-resolver.ts';

/** The part of a launch configuration this provider reads. */
interface LaunchEnv {
  env?: Record<string, unknown>;
  envFile?: unknown;
}

/**
 * Resolves references in the `env` and `envFile` of launch configurations of any debug type, at
 * launch (after VS Code substituted `${…}` variables). The values go into the configuration the
 * debug adapter receives, in memory: launch.json and the env files keep their references. A
 * variable of the env file that holds references is set in `env`, which debug adapters apply over
 * `envFile`. A reference that does not resolve stops the launch with a message that names it.
 */
export class DebugReferences implements vscode.DebugConfigurationProvider {
  private readonly resolver: ReferenceResolver;
  private readonly notifier: Notifier;

  constructor(resolver: ReferenceResolver, notifier: Notifier) {
    this.resolver = resolver;
    this.notifier = notifier;
  }

  async resolveDebugConfigurationWithSubstitutedVariables(
    folder: vscode.WorkspaceFolder | undefined,
    configuration: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    const launch = configuration as vscode.DebugConfiguration & LaunchEnv;
    const written: Record<string, string> = {};
    for (const file of envFiles(launch.envFile)) {
      let text: string;
      try {
        // A relative envFile is taken relative to the workspace folder.
        const uri =
          /^([A-Za-z]:)?[\\/]/.test(file) || !folder
            ? vscode.Uri.file(file)
            : vscode.Uri.joinPath(folder.uri, file);
        text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      } catch {
        continue; // The debug adapter reports a missing env file in its own words.
      }
      for (const { name, value } of envFileReferences(text)) written[name] = value;
    }
    for (const [name, value] of Object.entries(launch.env ?? {})) {
      if (typeof value === 'string') written[name] = value;
      else delete written[name];
    }
    const withReferences = Object.entries(written).filter(([, value]) => referenceTexts([value]).length > 0);
    if (withReferences.length === 0) return configuration;

    const texts = referenceTexts(withReferences.map(([, value]) => value));
    let outcomes: Awaited<ReturnType<ReferenceResolver['resolve']>>;
    try {
      outcomes = await this.resolver.resolve(texts);
    } catch (error) {
      this.notifier.error(
        userMessage(error, vscode.l10n.t('Resolve the references of "{0}"', configuration.name)),
      );
      return undefined;
    }
    const failed = outcomes.flatMap(({ result }) => (result.ok ? [] : [result.error.message]));
    if (failed.length > 0) {
      this.notifier.error(
        vscode.l10n.t('Vaultline did not start "{0}": {1}', configuration.name, failed.join(' ')),
      );
      return undefined;
    }
    const values = new Map<string, string>();
    outcomes.forEach(({ result }, index) => {
      if (result.ok) values.set(texts[index]!, result.value);
    });
    const env: Record<string, unknown> = { ...(launch.env ?? {}) };
    for (const [name, value] of withReferences) env[name] = substituteReferences(value, values);
    return { ...configuration, env };
  }
}

function envFiles(envFile: unknown): string[] {
  if (typeof envFile === 'string' && envFile !== '') return [envFile];
  if (Array.isArray(envFile)) return envFile.filter((file): file is string => typeof file === 'string');
  return [];
}
