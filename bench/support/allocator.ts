/**
 * Which malloc the benchmark's worker processes ran with (they inherit the environment): jemalloc when
 * LD_PRELOAD names it (scripts/setup-jemalloc.sh; the image preloads it), with its MALLOC_CONF;
 * otherwise glibc's, with MALLOC_ARENA_MAX if set.
 */
export function allocatorInUse(env: NodeJS.ProcessEnv = process.env) {
  if ((env.LD_PRELOAD ?? '').includes('jemalloc'))
    return { allocator: 'jemalloc', mallocConf: env.MALLOC_CONF ?? "jemalloc's defaults" };
  return { allocator: 'glibc', mallocArenaMax: env.MALLOC_ARENA_MAX ?? "glibc's default" };
}
