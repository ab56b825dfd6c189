// Preloaded into a benchmark's worker process (node --require): writes the process's memory usage
// to the file named by BENCH_MEMORY_FILE every second, so the benchmark can read the worker's heap
// from outside. Benchmark-only; the product does not load it.
const { writeFileSync } = require('node:fs');

const file = process.env.BENCH_MEMORY_FILE;
if (file) {
  const write = () => {
    try {
      writeFileSync(file, JSON.stringify({ at: Date.now(), ...process.memoryUsage() }));
    } catch {
      // the benchmark removed the folder: nothing to report to
    }
  };
  setInterval(write, 1000).unref();
  write();
}
