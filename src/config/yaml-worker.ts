import { parentPort } from 'node:worker_threads';
import { parseYamlData } from './yaml-source.js';

/**
 * A thread of the parallel YAML parse (yaml-parallel.ts): parses one definition file at a time
 * into plain data and diagnostics, exactly as the main thread would (the same function), and
 * sends them back.
 */
interface Task {
  id: number;
  text: string;
  file: string;
}

parentPort!.on('message', (task: Task) => {
  try {
    parentPort!.postMessage({ id: task.id, parsed: parseYamlData(task.text, task.file) });
  } catch (err) {
    parentPort!.postMessage({ id: task.id, error: err instanceof Error ? err.message : String(err) });
  }
});
