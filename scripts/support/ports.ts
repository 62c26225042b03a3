/** Loopback ports for the processes that tests and benchmarks start. */

/** A TCP port that was free a moment ago (the kernel's pick for port 0). */
export async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port;
  await probe.stop(true);
  if (port === undefined) throw new Error("no free port");
  return port;
}
