/**
 * Exit codes of `tcr` and the errors that carry them. Commands throw these; the dispatcher
 * (src/cli/run.ts) prints the message and returns the code.
 */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  validation: 3,
  notFound: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class CliError extends Error {
  override readonly name: string = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.failure,
  ) {
    super(message);
  }
}

/** Wrong command line: unknown command or flag, missing argument, bad flag value. Exit 2. */
export class UsageError extends CliError {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly help?: string,
  ) {
    super(message, ExitCode.usage);
  }
}

export interface CliFieldError {
  path: string;
  message: string;
}

/** A bad input file or request: every field error, one per line. Nothing was started or sent. Exit 3. */
export class InputValidationError extends CliError {
  override readonly name = 'InputValidationError';
  constructor(
    readonly source: string,
    readonly errors: CliFieldError[],
  ) {
    super(
      `${source}: ${errors.length} field error${errors.length === 1 ? '' : 's'}, nothing was started\n${errors
        .map((e) => `  ${e.path || '(root)'}: ${e.message}`)
        .join('\n')}`,
      ExitCode.validation,
    );
  }
}

/** No workflow (or ingress) by that name. Exit 4. */
export class NotFoundError extends CliError {
  override readonly name = 'NotFoundError';
  constructor(message: string) {
    super(message, ExitCode.notFound);
  }
}
