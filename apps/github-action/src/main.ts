// The Action's entry: what `runs.main` starts (bundled into dist/index.mjs).
import { runAction } from './action.ts';

await runAction();
