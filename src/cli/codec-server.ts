/**
 * `tcr codec-server`: the remote codec endpoint for the Temporal Web UI and the `temporal` CLI
 * (src/codec/codec-server.ts), configured from the environment, until SIGINT / SIGTERM.
 */
import { parseCodecServerConfig, startCodecServer } from '../codec/index.js';
import { messageOf } from '../common/error-message.js';
import { parseCommand } from './args.js';
import { localStackKeysFile } from './cli-keys.js';
import type { CliCommand } from './command.js';
import { CliError, ExitCode } from './errors.js';
import { stopSignal } from './events.js';
import { help } from './output.js';

export const codecServerHelp = `tcr codec-server: decode (and encode) encrypted payloads for the Web UI and the temporal CLI

Serves Temporal's remote codec protocol: POST /encode, POST /decode, GET /healthz.
Every codec call needs a token: 'Authorization: Bearer <token>', or the token as a path prefix
(<url>/t/<token>) for a Web UI that cannot send a header. docs/operations.md, "Data protection".

Configuration (environment; flags override):
  TCR_PAYLOAD_KEYS_FILE or TCR_PAYLOAD_KEYS   the payload keys (required; the workers' key file)
  TCR_CODEC_SERVER_TOKENS                     accepted tokens, comma-separated (or TCR_CODEC_SERVER_TOKEN_FILE,
                                              one a line); at least 16 characters each (required)
  TCR_CODEC_SERVER_ALLOWED_ORIGINS            browser origins allowed (CORS), e.g. the Web UI's https://temporal-ui.example.com
  TCR_CODEC_SERVER_HOST                       listen address (default 127.0.0.1)
  TCR_CODEC_SERVER_PORT                       listen port (default 8234)
  TCR_CODEC_SERVER_BODY_LIMIT                 largest request body in bytes (default 4194304; 413 above)

Options:
  --host HOST   listen address (overrides TCR_CODEC_SERVER_HOST)
  --port N      listen port (overrides TCR_CODEC_SERVER_PORT)
  -h, --help    this text`;

export const codecServerCommand: CliCommand = {
  summary: 'serve the remote codec (decrypt payloads) for the Web UI and the temporal CLI',
  help: codecServerHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: codecServerHelp,
      options: { host: { type: 'string' }, port: { type: 'string' } },
      json: false,
      connection: false,
    });
    if (parsed === 'help') return help(ctx, codecServerHelp);
    const env = { ...ctx.env };
    if (parsed.values.host) env.TCR_CODEC_SERVER_HOST = parsed.values.host;
    if (parsed.values.port) env.TCR_CODEC_SERVER_PORT = parsed.values.port;
    let config: ReturnType<typeof parseCodecServerConfig>;
    try {
      config = parseCodecServerConfig(env);
    } catch (error) {
      const message = messageOf(error);
      // Without keys, say where the local stack keeps its own.
      const hint = /TCR_PAYLOAD_KEYS_FILE or TCR_PAYLOAD_KEYS: required/.test(message)
        ? ` (the local stack's key file: ${localStackKeysFile(ctx.env)})`
        : '';
      throw new CliError(`${message}${hint}`, ExitCode.usage);
    }
    const server = await startCodecServer({
      ...config,
      onError: (message) => ctx.io.err(message),
    });
    // Key ids and origins only: never a key or a token.
    ctx.io.err(
      `codec server on ${server.url} (current key ${config.keyring.currentId}; ${config.keyring.ids().length} key(s); ${config.tokens.length} token(s); origins: ${config.allowedOrigins.join(', ') || 'none'})`,
    );
    const stop = stopSignal(ctx);
    await new Promise<void>((resolve) => {
      if (stop.aborted) resolve();
      else stop.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
    ctx.io.err('codec server stopped');
    return 0;
  },
};
