/**
 * The migrations, in order, embedded into the program (and so into the
 * compiled binary) as text. Append only: a shipped migration is never edited.
 */
import init from "../../migrations/0001_init.sql" with { type: "text" };

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [{ version: 1, name: "0001_init", sql: init }];
