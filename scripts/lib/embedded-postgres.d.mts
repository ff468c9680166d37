/** A PostgreSQL server started by a test or a bench (scripts/lib/embedded-postgres.mjs), stopped by its pid. */
export interface EmbeddedPostgres {
  /** `postgres://postgres:PASSWORD@127.0.0.1:PORT` (no database: add `/NAME`). */
  base: string;
  /** `base` with the database `name`. */
  url(name: string): string;
  readonly pid: number;
  /** Stops the server by its pid and removes its data directory. */
  stop(): Promise<void>;
  /** Stops the server (by its pid), keeping its data directory: an outage. */
  halt(): Promise<void>;
  /** Starts it again on the same port and data directory, after `halt`. */
  resume(): Promise<void>;
}

export function startPostgres(options?: { fsync?: boolean; maxConnections?: number }): Promise<EmbeddedPostgres>;
