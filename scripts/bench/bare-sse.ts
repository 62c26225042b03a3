/**
 * The stream baseline: a bare Bun.serve that keeps a list of event-stream
 * controllers and, on POST /publish, writes one pre-encoded frame to all.
 */
const size = Number(process.argv[2] ?? 3000);
const port = Number(process.argv[3] ?? 0);
const controllers = new Set<ReadableStreamDefaultController<Uint8Array>>();
let revision = Date.now();
const encoder = new TextEncoder();
const frame = () => encoder.encode(`event: message\nid: ${++revision}\nretry: 3000\ndata: ${"x".repeat(size)}\n\n`);

const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  idleTimeout: 0,
  fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/stream") {
      let own: ReadableStreamDefaultController<Uint8Array> | null = null;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          own = controller;
          controllers.add(controller);
          controller.enqueue(encoder.encode(`event: message\nid: ${revision}\n\n`));
        },
        cancel() {
          if (own) controllers.delete(own);
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    }
    if (url.pathname === "/publish") {
      const bytes = frame();
      for (const controller of controllers) controller.enqueue(bytes);
      return new Response(String(revision), { status: 201 });
    }
    return new Response("ok");
  },
});
console.log(`listening ${server.port}`);

export {};
