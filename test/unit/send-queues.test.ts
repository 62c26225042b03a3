/**
 * Stalled streams are found from the kernel's send queue (SPEC §16.3): the
 * tables of /proc/net/tcp{,6} read into queues by connection, and the rule
 * that drops a stream whose queue does not drain for the stall time or whose
 * unsent bytes pass 1 MiB.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Platform } from "../../src/domain/catalogue.ts";
import { connectionKey, DrainWatch, parseProcNetTcp, readSendQueues, type ConnectionId, type SendQueues } from "../../src/live/send-queues.ts";
import type { Published } from "../../src/live/store.ts";
import { MAX_UNSENT_BYTES, StreamHub } from "../../src/live/streams.ts";
import { scratchDirs } from "../helpers.ts";

const scratch = scratchDirs();

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 52447 1 000000009649cd1a 100 0 0 10 0
   1: 0100007F:0BB8 0100007F:D431 01 001A2B3C:00000000 01:00000014 00000000  1000        0 61234 1 0000000012345678 20 4 30 10 -1
   2: 0A00A8C0:0BB8 6400A8C0:C350 01 00000000:00000010 00:00000000 00000000  1000        0 61235 1 0000000012345679 20 4 30 10 -1
`;

const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:0BB8 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1060 1 00000000901e18b7 100 0 0 10 0
   1: 0000000000000000FFFF00000100007F:0BB8 0000000000000000FFFF00000200007F:9C40 01 00000400:00000000 01:00000014 00000000  1000        0 7001 1 000000008478f9b2 20 4 30 10 -1
   2: 00000000000000000000000001000000:0BB8 00000000000000000000000001000000:A000 01 0000FFFF:00000000 01:00000014 00000000  1000        0 7002 1 000000008478f9b3 20 4 30 10 -1
   3: B80D0120000000000000000001000000:0BB8 B80D0120000000000000000002000000:A001 01 00000007:00000000 01:00000014 00000000  1000        0 7003 1 000000008478f9b4 20 4 30 10 -1
`;

function queueOf(queues: SendQueues, id: ConnectionId): number | undefined {
  const key = connectionKey(id);
  return key === null ? undefined : queues.get(key);
}

describe("reading /proc/net/tcp{,6}", () => {
  test("IPv4 rows: addresses in the machine's byte order, ports and the tx_queue half of tx_queue:rx_queue in hex", () => {
    const queues = parseProcNetTcp(TCP, true);
    expect(queueOf(queues, { remoteAddress: "127.0.0.1", remotePort: 0xd431, localPort: 3000 })).toBe(0x1a2b3c);
    // rx_queue is not the send queue.
    expect(queueOf(queues, { remoteAddress: "192.168.0.100", remotePort: 50_000, localPort: 3000 })).toBe(0);
    expect(queues.size).toBe(3);
    expect(queueOf(queues, { remoteAddress: "127.0.0.1", remotePort: 0xd431, localPort: 3001 })).toBeUndefined();
    expect(queueOf(queues, { remoteAddress: "127.0.0.2", remotePort: 0xd431, localPort: 3000 })).toBeUndefined();
  });

  test("an IPv4 peer matches in either spelling, also when the hub's socket is IPv6 (IPv4-mapped rows of tcp6)", () => {
    const queues = parseProcNetTcp(TCP6, true);
    expect(queueOf(queues, { remoteAddress: "127.0.0.2", remotePort: 40_000, localPort: 3000 })).toBe(1024);
    expect(queueOf(queues, { remoteAddress: "::ffff:127.0.0.2", remotePort: 40_000, localPort: 3000 })).toBe(1024);
    expect(queueOf(parseProcNetTcp(TCP, true), { remoteAddress: "::ffff:127.0.0.1", remotePort: 0xd431, localPort: 3000 })).toBe(0x1a2b3c);
  });

  test("IPv6 rows: four 32-bit words, each in the machine's byte order", () => {
    const queues = parseProcNetTcp(TCP6, true);
    expect(queueOf(queues, { remoteAddress: "::1", remotePort: 0xa000, localPort: 3000 })).toBe(0xffff);
    expect(queueOf(queues, { remoteAddress: "2001:db8::2", remotePort: 0xa001, localPort: 3000 })).toBe(7);
    expect(queueOf(queues, { remoteAddress: "2001:0db8:0:0:0:0:0:2", remotePort: 0xa001, localPort: 3000 })).toBe(7);
  });

  test("a big-endian machine writes the words as they are", () => {
    const row = "   1: 7F000001:0BB8 7F000001:D431 01 00000010:00000000 01:00000014 00000000  1000        0 61234 1 0 20 4 30 10 -1";
    expect(queueOf(parseProcNetTcp(row, false), { remoteAddress: "127.0.0.1", remotePort: 0xd431, localPort: 3000 })).toBe(16);
  });

  test("lines that do not parse are skipped; the larger queue counts for a connection listed twice", () => {
    const text = [
      "garbage",
      "   1: 0100007F:0BB8 0100007F:D431 01 zz:00000000",
      "   2: 0100007F:0BB8 0100007F 01 00000010:00000000",
      "   3: 0100007F0:0BB8 0100007F:D431 01 00000010:00000000",
      "   4: 0100007F:0BB8 0100007F:D431 01 00000005:00000000",
      "   5: 0100007F:0BB8 0100007F:D431 06 00000000:00000000",
      "",
    ].join("\n");
    const queues = parseProcNetTcp(text, true);
    expect(queues.size).toBe(1);
    expect(queueOf(queues, { remoteAddress: "127.0.0.1", remotePort: 0xd431, localPort: 3000 })).toBe(5);
  });

  test("an address that is not one gives no key", () => {
    expect(connectionKey({ remoteAddress: "not-an-address", remotePort: 1, localPort: 2 })).toBeNull();
  });

  test("the tables are read together; none readable is null", async () => {
    const dir = scratch();
    const v4 = join(dir, "tcp");
    const v6 = join(dir, "tcp6");
    await Bun.write(v4, TCP);
    await Bun.write(v6, TCP6);
    const queues = await readSendQueues([v4, v6]);
    expect(queues?.size).toBe(7);
    expect(await readSendQueues([v4, join(dir, "missing")])).not.toBeNull();
    expect(await readSendQueues([join(dir, "missing"), join(dir, "missing6")])).toBeNull();
  });
});

describe("the drain rule", () => {
  test("a queue that stays non-empty without shrinking for the stall time has not drained, pings or pushes on top", () => {
    const watch = new DrainWatch(60_000);
    expect(watch.observe(4000, 0)).toBe(false);
    expect(watch.observe(4000, 15_000)).toBe(false);
    // A ping: 8 bytes and the chunk's framing.
    expect(watch.observe(4013, 30_000)).toBe(false);
    expect(watch.observe(9026, 59_999)).toBe(false);
    expect(watch.observe(9039, 60_000)).toBe(true);
  });

  test("an empty queue or a shrinking one drains; the stall time counts again from there", () => {
    const watch = new DrainWatch(60_000);
    expect(watch.observe(4000, 0)).toBe(false);
    expect(watch.observe(3000, 50_000)).toBe(false);
    expect(watch.observe(3000, 100_000)).toBe(false);
    expect(watch.observe(3000, 110_000)).toBe(true);
    const other = new DrainWatch(60_000);
    expect(other.observe(4000, 0)).toBe(false);
    expect(other.observe(0, 50_000)).toBe(false);
    expect(other.observe(8, 60_000)).toBe(false);
    expect(other.observe(16, 119_999)).toBe(false);
    expect(other.observe(16, 120_000)).toBe(true);
  });

  test("a reader on a slow link, with a push in flight at most sweeps, drains as long as its queue shrinks now and then", () => {
    const watch = new DrainWatch(60_000);
    for (let t = 0; t <= 600_000; t += 1000) expect(watch.observe(5000 + ((t / 1000) % 30) * 100, t)).toBe(false);
  });
});

describe("the stream hub's sweep", () => {
  const frame = new TextEncoder().encode("event: message\nid: 1\ndata: {}\n\n");
  const live = {
    onChange: () => () => undefined,
    current: (platform: Platform) => ({ platform, revision: 1, frame }) as unknown as Published,
  };
  const connection = (port: number): ConnectionId => ({ remoteAddress: "127.0.0.1", remotePort: port, localPort: 3000 });
  const queues = (entries: [number, number][]): SendQueues => new Map(entries.map(([port, bytes]) => [connectionKey(connection(port)) ?? "", bytes]));

  function hubAt(clock: { now: number }, read: () => Promise<SendQueues | null> = async () => null): StreamHub {
    return new StreamHub(live, 100, 60_000, () => clock.now, read);
  }

  function open(hub: StreamHub, port: number | null): void {
    hub.connect("Windows", { lastEventId: null, viewer: "127.0.0.1", maxPerClient: 100, signal: new AbortController().signal, connection: port === null ? null : connection(port) });
  }

  test("a stream whose kernel queue does not drain for the stall time is dropped and counted; one that drains stays", () => {
    const clock = { now: 0 };
    const hub = hubAt(clock);
    open(hub, 1001);
    open(hub, 1002);
    for (let t = 0; t <= 60_000; t += 1000) {
      clock.now = t;
      // 1001 got the first payload and a ping, never reads; 1002 reads everything between sweeps.
      hub.dropStalled(queues([[1001, t < 15_000 ? 4000 : 4008], [1002, t % 2000 === 0 ? 3000 : 0]]));
      expect(hub.droppedCount).toBe(t < 60_000 ? 0 : 1);
    }
    expect(hub.openCount).toBe(1);
    hub.dispose();
  });

  test("more than 1 MiB in the kernel's queue and the hub together is dropped at once", () => {
    const clock = { now: 0 };
    const hub = hubAt(clock);
    open(hub, 1001);
    open(hub, 1002);
    // Each stream still holds its first payload in the hub (nothing has read the response in-process).
    hub.dropStalled(queues([[1001, MAX_UNSENT_BYTES - frame.byteLength + 1], [1002, MAX_UNSENT_BYTES - frame.byteLength]]));
    expect(hub.droppedCount).toBe(1);
    expect(hub.openCount).toBe(1);
    hub.dispose();
  });

  test("a stream the kernel's tables do not list, or with none readable, keeps the older rule only", () => {
    const clock = { now: 0 };
    const hub = hubAt(clock);
    open(hub, 1001);
    open(hub, null);
    for (let t = 0; t <= 120_000; t += 1000) {
      clock.now = t;
      hub.dropStalled(t % 2000 === 0 ? null : queues([[1999, 5000]]));
    }
    expect(hub.droppedCount).toBe(0);
    expect(hub.openCount).toBe(2);
    hub.dispose();
  });

  test("a sweep reads the tables once for all streams, and not at all while no stream can be found in them", async () => {
    const clock = { now: 0 };
    let reads = 0;
    const hub = hubAt(clock, async () => {
      reads++;
      return queues([[1001, 10], [1002, 10]]);
    });
    open(hub, null);
    await hub.sweep();
    expect(reads).toBe(0);
    open(hub, 1001);
    open(hub, 1002);
    await hub.sweep();
    expect(reads).toBe(1);
    clock.now = 60_000;
    await hub.sweep();
    expect(reads).toBe(2);
    expect(hub.droppedCount).toBe(2);
    await hub.sweep();
    expect(reads).toBe(2);
    hub.dispose();
  });
});
