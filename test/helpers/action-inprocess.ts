import { afterAll, beforeAll } from 'vitest';
import { actionScene, bundleInProcess, type ActionScene } from './action-bundle.js';
import { startServeIn } from './mac-inprocess.js';
import type { Served } from './serve.js';

/**
 * The cases of an action-* integration file run at once and the runs of the Action take turns: a
 * case waits for the runs of the others, and under load takes minutes, which a hang detector must allow.
 */
export const ACTION_TIMEOUT = 300_000;

/** What an action-* integration file shares: one in-process service and the scene of each case. */
export interface ActionFile {
  /** The service, started before the file's cases. */
  serve: Served;
  /** A case's scene (fake GitHub, repositories, the bundle run in process) against the service, ended with the case. */
  scene(onTestFinished: (fn: () => Promise<void>) => void): Promise<ActionScene>;
}

/** Starts the file's service (no runs, no rate limit) before its cases and stops it after them; call at the top of the file. */
export function actionFile(): ActionFile {
  const file: ActionFile = {
    serve: undefined as unknown as Served,
    scene: (onTestFinished) => actionScene(file.serve, bundleInProcess, onTestFinished),
  };
  beforeAll(async () => {
    file.serve = await startServeIn(['--rate-limit', '0/60', '--no-runs']);
  });
  afterAll(async () => {
    await file.serve?.stop();
  });
  return file;
}
