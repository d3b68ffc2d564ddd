// The part of the `vscode` API the pure modules touch, for their unit tests in plain Node: the
// English text of `l10n.t`, with `{0}`-style arguments filled in as VS Code fills them.

export const l10n = {
  t(message: string, ...args: unknown[]): string {
    return message.replace(/\{(\d+)\}/g, (whole, index: string) =>
      Number(index) < args.length ? String(args[Number(index)]) : whole,
    );
  },
};
