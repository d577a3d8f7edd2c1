import { inertStrings } from './inert.js';

/** Structured logs: one JSON object per line on stderr, so log pipelines need no parsing rules. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

export interface JsonLoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
  now?: () => number;
  fields?: LogFields;
}

export const isLogLevel = (s: string): s is LogLevel => s in RANK;

/**
 * Errors become their message (and code), never a stack trace in the middle of a JSON line; every
 * string is inert (JSON escapes C0 controls, not DEL, C1 or bidi overrides, which a log tail shows).
 */
function plain(value: unknown): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return inertStrings(code === undefined ? value.message : `${value.message} (${String(code)})`);
  }
  return inertStrings(value);
}

export function jsonLogger(opts: JsonLoggerOptions = {}): Logger {
  const min = RANK[opts.level ?? 'info'];
  const write = opts.write ?? ((line: string) => process.stderr.write(line));
  const now = opts.now ?? Date.now;
  const base = opts.fields ?? {};
  const emit = (level: LogLevel, msg: string, fields: LogFields = {}): void => {
    if (RANK[level] < min) return;
    const record: LogFields = { ts: new Date(now()).toISOString(), level, msg: inertStrings(msg) };
    for (const [k, v] of Object.entries({ ...base, ...fields })) record[k] = plain(v);
    write(`${JSON.stringify(record)}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => jsonLogger({ ...opts, fields: { ...base, ...fields } }),
  };
}
