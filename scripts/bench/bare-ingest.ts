/**
 * The ingest baseline: a bare Bun.serve that parses each posted JSON reading
 * and inserts it into SQLite with the hub's pragmas, with no checks at all.
 * The fourth argument sets `synchronous` (the hub's FULL by default), so the
 * bench can show what FULL costs against NORMAL. With a fifth argument
 * `group`, readings that arrive in one turn of the event loop share one
 * transaction and are answered after its commit, as the hub's group commit
 * does; otherwise each insert commits on its own.
 */
import { Database } from "bun:sqlite";

const path = process.argv[2] ?? ":memory:";
const port = Number(process.argv[3] ?? 0);
const synchronous = process.argv[4] === "NORMAL" ? "NORMAL" : "FULL";
const group = process.argv[5] === "group";
const db = new Database(path, { create: true });
db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous}; PRAGMA busy_timeout = 5000`);
db.exec("CREATE TABLE IF NOT EXISTS readings (id INTEGER PRIMARY KEY, region TEXT, platform TEXT, survivor INTEGER, killer INTEGER, ratio REAL, measured_at INTEGER, received_at INTEGER)");
const insert = db.query("INSERT INTO readings (region, platform, survivor, killer, ratio, measured_at, received_at) VALUES (?, ?, ?, ?, ?, ?, ?)");

interface Posted {
  readonly region: string;
  readonly platform: string;
  readonly survivor: number;
  readonly killer: number;
  readonly ratio: number;
  readonly measuredAt: string;
}

function store(body: Posted): void {
  insert.run(body.region, body.platform, body.survivor, body.killer, body.ratio, Date.parse(body.measuredAt), Date.now());
}

const waiting: { readonly body: Posted; readonly done: () => void }[] = [];
let flushScheduled = false;

function flush(): void {
  flushScheduled = false;
  const batch = waiting.splice(0);
  db.exec("BEGIN IMMEDIATE");
  for (const item of batch) store(item.body);
  db.exec("COMMIT");
  for (const item of batch) item.done();
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  async fetch(request) {
    if (request.method !== "POST") return new Response("ok");
    const body = (await request.json()) as Posted;
    if (!group) store(body);
    else {
      await new Promise<void>((done) => {
        waiting.push({ body, done });
        if (!flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
      });
    }
    return Response.json({ live: true }, { status: 201 });
  },
});
console.log(`listening ${server.port}`);

export {};
