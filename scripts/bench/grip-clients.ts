/**
 * One process of stream clients for the GRIP bench (a process may hold only
 * as many sockets as its file-descriptor limit allows):
 * `bun grip-clients.ts HOST PORT PATH COUNT`. It prints `connected N` once
 * every stream has its first message; then, for each `report REVISION` line
 * on stdin, one JSON line: the epoch-ms moment each client first saw that
 * revision or a later one (null for none).
 */
import { openStreams } from "./sse-clients.ts";

const [host = "127.0.0.1", port = "0", path = "/", count = "0"] = Bun.argv.slice(2);
// About 500 connections a second: Pushpin 1.36 answers a faster burst partly with 502s
// ("received message out of sequence" between its proxy and handler).
const clients = await openStreams(host, Number(port), path, Number(count), 5, 10);
const deadline = Date.now() + 40_000;
while (clients.latestIds.some((id) => id === 0) && Date.now() < deadline) await Bun.sleep(20);
console.log(`connected ${clients.latestIds.filter((id) => id > 0).length}`);

let pending = "";
for await (const chunk of Bun.stdin.stream()) {
  pending += new TextDecoder().decode(chunk);
  let end = pending.indexOf("\n");
  while (end !== -1) {
    const line = pending.slice(0, end).trim();
    pending = pending.slice(end + 1);
    end = pending.indexOf("\n");
    const [command, argument] = line.split(" ");
    // Streams refused while opening never had a message; they are reported as refused, not as missed pushes.
    if (command === "report") console.log(JSON.stringify(clients.arrivals(Number(argument)).filter((_, i) => (clients.latestIds[i] ?? 0) > 0)));
    if (command === "close") {
      clients.close();
      process.exit(0);
    }
  }
}
