/**
 * The ingest baseline: a bare Bun.serve that parses each posted JSON reading
 * and inserts it into SQLite with the hub's pragmas, with no checks at all.
 * The fourth argument sets `synchronous` (the hub's FULL by default), so the
 * bench can show what FULL costs against NORMAL.
 */
import { Database } from "bun:sqlite";

const path = process.argv[2] ?? ":memory:";
const port = Number(process.argv[3] ?? 0);
const synchronous = process.argv[4] === "NORMAL" ? "NORMAL" : "FULL";
const db = new Database(path, { create: true });
db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous}; PRAGMA busy_timeout = 5000`);
db.exec("CREATE TABLE IF NOT EXISTS readings (id INTEGER PRIMARY KEY, region TEXT, platform TEXT, survivor INTEGER, killer INTEGER, ratio REAL, measured_at INTEGER, received_at INTEGER)");
const insert = db.query("INSERT INTO readings (region, platform, survivor, killer, ratio, measured_at, received_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  async fetch(request) {
    if (request.method !== "POST") return new Response("ok");
    const body = (await request.json()) as { region: string; platform: string; survivor: number; killer: number; ratio: number; measuredAt: string };
    insert.run(body.region, body.platform, body.survivor, body.killer, body.ratio, Date.parse(body.measuredAt), Date.now());
    return Response.json({ live: true }, { status: 201 });
  },
});
console.log(`listening ${server.port}`);

export {};
