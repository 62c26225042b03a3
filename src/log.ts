/** Structured logging: one JSON object per line on standard output. */
import { writeSync } from "node:fs";
import { format } from "node:util";
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

/**
 * The most of one error message, stack or library text a log line carries:
 * some libraries put the whole offending value into a message (Elysia's
 * validation errors do), which must not turn one request into megabytes of log.
 */
export const MAX_LOGGED_TEXT = 4000;

function bounded(text: string): string {
  return text.length > MAX_LOGGED_TEXT ? `${text.slice(0, MAX_LOGGED_TEXT)}… (${text.length - MAX_LOGGED_TEXT} more characters)` : text;
}

function errorFields(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: bounded(value.message), stack: value.stack === undefined ? undefined : bounded(value.stack) };
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

/**
 * Sends whatever libraries print through the console into the log as JSON
 * lines (Elysia's static analysis, for one, prints multi-line warnings with
 * source code there), so the log stream stays one JSON object per line. The
 * hub itself never uses the console, so all of it is a library's, at warn.
 */
export function captureConsole(log: Logger): void {
  const wrap =
    (method: string) =>
    (...args: unknown[]): void => {
      log.warn("library output", { via: `console.${method}`, text: bounded(format(...args)) });
    };
  for (const method of ["log", "info", "debug", "warn", "error", "trace"] as const) console[method] = wrap(method);
}
