/** Reading a worker's Prometheus endpoint in a benchmark. */

/** Sums the counters of `name` (every label set) at `url`. */
export async function counterSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(url)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name) && !l.startsWith('#'))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}
