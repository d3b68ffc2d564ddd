import * as vscode from 'vscode';
import type { ItemField } from './constants.ts';

/** How a field is called in the UI ("Login", "Password", …), translated. */
export function fieldLabel(field: ItemField): string {
  switch (field) {
    case 'login':
      return vscode.l10n.t('Login');
    case 'password':
      return vscode.l10n.t('Password');
    case 'url':
      return vscode.l10n.t('URL');
    case 'email':
      return vscode.l10n.t('Email');
  }
}

/** The sentence for an item without a value in that field. */
export function noValueMessage(field: ItemField): string {
  switch (field) {
    case 'login':
      return vscode.l10n.t('the item has no login.');
    case 'password':
      return vscode.l10n.t('the item has no password.');
    case 'url':
      return vscode.l10n.t('the item has no URL.');
    case 'email':
      return vscode.l10n.t('the item has no email.');
  }
}
