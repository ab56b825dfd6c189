// Preloaded into a benchmark's worker process (node --require): writes the process's memory usage
// to the file named by BENCH_MEMORY_FILE every second, so the benchmark can read the worker's heap
// from outside. Benchmark-only; the product does not load it.
// A worker thread (the SDK runs workflow code in one) has a heap of its own: it writes its heap to
// `{file}.thread-{threadId}`; when a file `{file}.take-snapshot` appears, each worker thread writes
// one heap snapshot to `{file}.thread-{threadId}.heapsnapshot`.
const { existsSync, writeFileSync } = require('node:fs');
const { getHeapStatistics, writeHeapSnapshot } = require('node:v8');
const { isMainThread, threadId } = require('node:worker_threads');

const mainFile = process.env.BENCH_MEMORY_FILE;
const file = mainFile && !isMainThread ? `${mainFile}.thread-${threadId}` : mainFile;
if (file) {
  const write = () => {
    try {
      const usage = isMainThread ? process.memoryUsage() : threadHeap();
      writeFileSync(file, JSON.stringify({ at: Date.now(), ...usage }));
    } catch {
      // the benchmark removed the folder: nothing to report to
    }
  };
  const threadHeap = () => {
    const heap = getHeapStatistics();
    return { heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size, external: heap.external_memory };
  };
  if (!isMainThread) {
    const snapshot = `${file}.heapsnapshot`;
    const takeSnapshot = setInterval(() => {
      if (existsSync(`${mainFile}.take-snapshot`) && !existsSync(snapshot)) {
        writeHeapSnapshot(snapshot);
        clearInterval(takeSnapshot);
      }
    }, 1000);
    takeSnapshot.unref();
  }
  setInterval(write, 1000).unref();
  write();
}

// BENCH_CPU_PROFILE=file.cpuprofile (with BENCH_CPU_PROFILE_AFTER_S, default 60, and
// BENCH_CPU_PROFILE_FOR_S, default 30): a CPU profile of the main thread over that window, written
// while the process runs (a SIGKILLed worker never writes a --cpu-prof profile).
const profileFile = process.env.BENCH_CPU_PROFILE;
if (profileFile) {
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  const after = Number(process.env.BENCH_CPU_PROFILE_AFTER_S ?? 60) * 1000;
  const span = Number(process.env.BENCH_CPU_PROFILE_FOR_S ?? 30) * 1000;
  setTimeout(() => {
    session.post('Profiler.enable', () =>
      session.post('Profiler.start', () =>
        setTimeout(
          () =>
            session.post('Profiler.stop', (error, result) => {
              if (!error) writeFileSync(profileFile, JSON.stringify(result.profile));
            }),
          span,
        ).unref(),
      ),
    );
  }, after).unref();
}
