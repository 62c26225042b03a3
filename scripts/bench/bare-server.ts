/** The baseline: a bare Bun.serve answering every request with a fixed string of the given size. */
const size = Number(process.argv[2] ?? 1000);
const port = Number(process.argv[3] ?? 0);
const body = "x".repeat(size);
const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  fetch: () => new Response(body, { headers: { "content-type": "application/json; charset=utf-8" } }),
});
console.log(`listening ${server.port}`);

export {};
