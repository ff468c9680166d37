/**
 * Parses a project's YAML files on more than one core: worker threads take files from one queue
 * while the main thread takes them too, one file at a time, so that the requests a plan started
 * meanwhile are still answered between files. Every file is parsed by the same function
 * (parseYamlData) wherever it runs, and the results are handed over in file order (to a consumer
 * as soon as each is ready, or all at the end), so the loaded project is the same with or
 * without threads.
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
 * A thread costs CPU (its start, a second isolate warming up the parser, copying its results
 * back): on a machine whose cores are all busy it makes the load slower (measured: 2 cores at a
 * load of 20 to 30, the bench project's 3.5 MB loaded in 1.4 s more CPU and longer), so none is
 * started then.
 */
export function parseWorkers(bytes: number, cores = availableParallelism(), load = loadavg()[0]): number {
  if (bytes < PARALLEL_MIN_BYTES) return 0;
  const idle = Math.round(cores - 1 - load);
  return Math.max(0, Math.min(idle, cores - 1, MAX_WORKERS));
}

/**
 * Takes each parsed file, in file order, as soon as it and every file before it are parsed
 * (undefined for an input that was undefined). The project loads from it while later files are
 * still being parsed.
 */
export type ParsedConsumer = (index: number, parsed: ParsedYamlFile | undefined) => void | Promise<void>;

/**
 * Parses `inputs` (undefined entries are skipped, as unreadable files) with `workers` threads
 * besides the main thread; resolves to one result per input, in order. `between` runs on the main
 * thread after each file it parses or consumes (the plan lets its requests progress there). With
 * 0 workers, or when a thread cannot start, the main thread parses everything.
 *
 * With `consume`, each result is handed to it in file order as soon as it can be (see
 * ParsedConsumer) and not kept (the returned array is then all undefined): the main thread
 * consumes whenever the next file is ready, and parses a file itself only when it is not, so the
 * threads parse while the main thread loads what they parsed.
 */
export async function parseYamlFiles(
  inputs: ReadonlyArray<YamlInput | undefined>,
  workers: number,
  between?: () => Promise<void>,
  /** Counts of the files each side parsed (filled in; for tests and benches). */
  counts: { main: number; threads: number } = { main: 0, threads: 0 },
  consume?: ParsedConsumer,
): Promise<Array<ParsedYamlFile | undefined>> {
  const results: Array<ParsedYamlFile | undefined> = new Array(inputs.length).fill(undefined);
  // done[i]: file i is parsed (or has nothing to parse).
  const done: boolean[] = inputs.map((input) => input === undefined);
  let next = 0;
  // Files a thread took but could not parse: the main thread parses them, before any new one.
  const retry: number[] = [];
  const take = (): number | undefined => {
    if (retry.length > 0) return retry.shift();
    while (next < inputs.length) {
      const i = next++;
      if (inputs[i] !== undefined) return i;
    }
    return undefined;
  };
  // Wakes the main thread when a thread answers, hands files back, or ends.
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const deliver = (i: number, parsed: ParsedYamlFile) => {
    results[i] = parsed;
    done[i] = true;
    counts.threads++;
    notify();
  };
  const giveBack = (lost: Iterable<number>) => {
    retry.push(...lost);
    notify();
  };
  const url = workers > 0 ? workerUrl() : undefined;
  const threads = url ? Array.from({ length: workers }, () => runWorker(url, inputs, take, deliver, giveBack)) : [];
  let running = threads.length;
  for (const t of threads) void t.then(() => (running--, notify()));
  // The main thread yields after each file, so that the threads' answers (and their next files)
  // are taken then.
  const yieldNow = between ?? (threads.length > 0 ? () => new Promise<void>((r) => setImmediate(r)) : undefined);
  const parseHere = (i: number) => {
    const input = inputs[i]!;
    results[i] = parseYamlData(input.text, input.file);
    done[i] = true;
    counts.main++;
  };
  let consumed = 0;
  while (consumed < inputs.length) {
    if (consume && done[consumed]) {
      const parsed = results[consumed];
      results[consumed] = undefined;
      await consume(consumed++, parsed);
      if (yieldNow) await yieldNow();
      continue;
    }
    const i = take();
    if (i !== undefined) {
      parseHere(i);
      if (yieldNow) await yieldNow();
      continue;
    }
    if (!consume) {
      // Every file is parsed or with a thread: wait for the threads.
      if (running === 0 && done.every(Boolean)) break;
    }
    if (running === 0 && retry.length === 0) {
      // No thread left and nothing to take: every file is parsed (a thread hands back what it
      // could not parse before it ends). Guard against waiting forever all the same.
      if (!consume) break;
      for (let j = consumed; j < inputs.length; j++) if (!done[j]) parseHere(j);
      continue;
    }
    await new Promise<void>((r) => (wake = r));
  }
  await Promise.all(threads);
  return results;
}

/**
 * Feeds one worker files from the shared queue until it is empty, handing each parsed file to
 * `deliver`. A file it cannot parse (the thread could not start, or died) goes to `giveBack`,
 * before the promise resolves; then the thread ends.
 */
function runWorker(
  url: URL,
  inputs: ReadonlyArray<YamlInput | undefined>,
  take: () => number | undefined,
  deliver: (i: number, parsed: ParsedYamlFile) => void,
  giveBack: (lost: Iterable<number>) => void,
): Promise<void> {
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(url);
    } catch {
      resolve();
      return;
    }
    // Two files in flight, so that the thread has the next one while the main thread is busy.
    const inFlight = new Set<number>();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      worker.removeAllListeners();
      worker.on('error', () => undefined);
      void worker.terminate();
      resolve();
    };
    const send = () => {
      while (inFlight.size < 2) {
        const i = take();
        if (i === undefined) break;
        const input = inputs[i]!;
        try {
          worker.postMessage({ id: i, text: input.text, file: input.file });
          inFlight.add(i);
        } catch {
          // A message the thread cannot take: this file and those it holds go back, and it ends.
          giveBack([i]);
          lost();
          return;
        }
      }
      if (inFlight.size === 0) finish();
    };
    worker.on('message', (msg: { id: number; parsed?: ParsedYamlFile; error?: string }) => {
      inFlight.delete(msg.id);
      if (msg.parsed) deliver(msg.id, msg.parsed);
      else giveBack([msg.id]);
      send();
    });
    // A thread that dies hands its files back; the rest of the queue goes to the others.
    function lost(): void {
      const files = [...inFlight];
      inFlight.clear();
      giveBack(files);
      finish();
    }
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
