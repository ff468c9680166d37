/**
 * Parses a project's YAML files on more than one core: worker threads take files from one queue
 * while the main thread takes them too, one file at a time, so that the requests a plan started
 * meanwhile are still answered between files. Every file is parsed by the same function
 * (parseYamlData) wherever it runs, and the results come back in file order, so the loaded
 * project is the same with or without threads.
 */
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { parseYamlData, type ParsedYamlFile } from './yaml-source.js';

/**
 * Below this many bytes of YAML, threads are not started: starting one (and loading the YAML
 * package in it) costs about as much as parsing a megabyte or so.
 */
export const PARALLEL_MIN_BYTES = 2 * 1024 * 1024;

/** At most this many parse threads besides the main thread. */
const MAX_WORKERS = 3;

/** One YAML file to parse: its text and its path relative to the project. */
export interface YamlInput {
  text: string;
  file: string;
}

/**
 * How many parse threads to start for `bytes` of YAML: one per core that is idle besides the
 * main thread's (by the last minute's load average), at most MAX_WORKERS; 0 for a small project.
 * A thread costs CPU (its start, and copying its results back): on a machine whose cores are
 * all busy it makes the load slower, so none is started then.
 */
export function parseWorkers(bytes: number, cores = availableParallelism(), load = loadavg()[0]): number {
  if (bytes < PARALLEL_MIN_BYTES) return 0;
  const idle = Math.round(cores - 1 - load);
  return Math.max(0, Math.min(idle, cores - 1, MAX_WORKERS));
}

/**
 * Parses `inputs` (undefined entries are skipped, as unreadable files) with `workers` threads
 * besides the main thread; resolves to one result per input, in order. `between` runs on the main
 * thread after each file it parses (the plan lets its requests progress there). With 0 workers,
 * or when a thread cannot start, the main thread parses everything.
 */
export async function parseYamlFiles(
  inputs: ReadonlyArray<YamlInput | undefined>,
  workers: number,
  between?: () => Promise<void>,
  /** Counts of the files each side parsed (filled in; for tests and benches). */
  counts: { main: number; threads: number } = { main: 0, threads: 0 },
): Promise<Array<ParsedYamlFile | undefined>> {
  const results: Array<ParsedYamlFile | undefined> = new Array(inputs.length).fill(undefined);
  let next = 0;
  const take = (): number | undefined => {
    while (next < inputs.length) {
      const i = next++;
      if (inputs[i] !== undefined) return i;
    }
    return undefined;
  };
  const url = workers > 0 ? workerUrl() : undefined;
  const threads = url ? Array.from({ length: workers }, () => runWorker(url, inputs, take, results, counts)) : [];
  // The main thread parses too, one file at a time, and yields after each: the threads' answers
  // (and their next files) are taken then.
  const yieldNow = between ?? (threads.length > 0 ? () => new Promise<void>((r) => setImmediate(r)) : undefined);
  for (let i = take(); i !== undefined; i = take()) {
    const input = inputs[i]!;
    results[i] = parseYamlData(input.text, input.file);
    counts.main++;
    if (yieldNow) await yieldNow();
  }
  // A file a thread failed on (it could not start, or died) is parsed here: never lost.
  const failed = (await Promise.all(threads)).flat();
  for (const i of failed) {
    const input = inputs[i]!;
    results[i] = parseYamlData(input.text, input.file);
    counts.main++;
  }
  return results;
}

/**
 * Feeds one worker files from the shared queue until it is empty. Resolves to the indexes of the
 * files it took but could not parse (the caller parses them), then ends the thread.
 */
function runWorker(
  url: URL,
  inputs: ReadonlyArray<YamlInput | undefined>,
  take: () => number | undefined,
  results: Array<ParsedYamlFile | undefined>,
  counts: { threads: number },
): Promise<number[]> {
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(url);
    } catch {
      resolve([]);
      return;
    }
    // Two files in flight, so that the thread has the next one while the main thread is busy.
    const inFlight = new Set<number>();
    const failed: number[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      worker.removeAllListeners();
      worker.on('error', () => undefined);
      void worker.terminate();
      resolve(failed);
    };
    const send = () => {
      while (inFlight.size < 2) {
        const i = take();
        if (i === undefined) break;
        inFlight.add(i);
        const input = inputs[i]!;
        worker.postMessage({ id: i, text: input.text, file: input.file });
      }
      if (inFlight.size === 0) finish();
    };
    worker.on('message', (msg: { id: number; parsed?: ParsedYamlFile; error?: string }) => {
      inFlight.delete(msg.id);
      if (msg.parsed) {
        results[msg.id] = msg.parsed;
        counts.threads++;
      } else failed.push(msg.id);
      send();
    });
    // A thread that dies hands its files back; the rest of the queue goes to the others.
    const lost = () => {
      failed.push(...inFlight);
      inFlight.clear();
      finish();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    send();
  });
}

/** The worker module: beside this one when built, else the built one (tests run the sources). */
function workerUrl(): URL | undefined {
  const beside = new URL('./yaml-worker.js', import.meta.url);
  if (existsSync(beside)) return beside;
  const built = new URL('../../dist/config/yaml-worker.js', import.meta.url);
  if (existsSync(built)) return built;
  return undefined;
}
