/** The shape of one CLI command: its flags, its help, and what it does. */
import type { CommandHelp } from "../config/help.ts";
import type { Config, ParsedArgs } from "../config/load.ts";

export interface CommandInput {
  readonly config: Config;
  readonly args: ParsedArgs;
  /** Standard input, for --password-stdin. */
  readonly stdin: () => Promise<string>;
  readonly out: (line: string) => void;
  /**
   * Worker scripts, located from the program's entry point: inside the
   * compiled executable, embedded files are found relative to it only.
   */
  readonly workers: { readonly checkpointer: URL; readonly fieldImporter: URL; readonly backup: URL };
}

export interface Command extends CommandHelp {
  /** How many words (not flags) it takes at most: `hub backup FILE` one, `hub serve` none. A word more is refused. */
  readonly words: number;
  run(input: CommandInput): Promise<number>;
}

/** A failure the CLI reports as one line and exit code 1. */
export class CommandError extends Error {
  override readonly name = "CommandError";
}
