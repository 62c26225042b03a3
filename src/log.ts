/** Structured logging: one JSON object per line on standard output. */
import { writeSync } from "node:fs";
import type { LogLevel } from "./config/options.ts";

const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  readonly level: LogLevel;
  enabled(level: LogLevel): boolean;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export type LogSink = (line: string) => void;

/** Synchronous, so the last lines before an exit are never lost. */
const stdoutSink: LogSink = (line) => {
  writeSync(1, `${line}\n`);
};

function errorFields(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

export function createLogger(level: LogLevel, sink: LogSink = stdoutSink): Logger {
  const threshold = RANK[level];
  const write = (at: LogLevel, msg: string, fields?: LogFields): void => {
    if (RANK[at] < threshold) return;
    const record: Record<string, unknown> = { time: new Date().toISOString(), level: at, msg };
    if (fields) for (const [key, value] of Object.entries(fields)) record[key] = errorFields(value);
    sink(JSON.stringify(record));
  };
  return {
    level,
    enabled: (at) => RANK[at] >= threshold,
    debug: (msg, fields) => write("debug", msg, fields),
    info: (msg, fields) => write("info", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    error: (msg, fields) => write("error", msg, fields),
  };
}
