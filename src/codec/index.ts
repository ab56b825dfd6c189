export { onUnboundDecode, unboundDecodeCount } from '../common/unbound-decodes.js';
export {
  buildCodecServer,
  type CodecServerOptions,
  DEFAULT_CODEC_BODY_LIMIT,
  type RunningCodecServer,
  startCodecServer,
} from './codec-server.js';
export {
  type CodecServerConfig,
  CodecServerConfigError,
  DEFAULT_CODEC_SERVER_PORT,
  parseCodecServerConfig,
} from './codec-server-config.js';
export {
  type DataConverterOptions,
  dataConverter,
  encryptsPayloads,
  failureConverterPath,
  workflowBundleConverterOptions,
} from './data-converter.js';
export {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  isEncrypted,
  KEY_ID_METADATA,
  PayloadDecryptionError,
  payloadKeyId,
  SealingCodec,
} from './encryption-codec.js';
export {
  ensureKeyFile,
  KEYS_FILE_VARIABLE,
  KEYS_VARIABLE,
  keyringFromEnv,
  readKeyFile,
  writeKeyFile,
} from './key-file.js';
export { type KeyFile, Keyring, KeyringError, newKeyId } from './keyring.js';
export {
  PUBLIC_KEYS_FILE_VARIABLE,
  PublicKeys,
  readPublicKeyFile,
  writePublicKeyFile,
} from './public-keys.js';
export {
  BINDING_METADATA,
  BOUND_NAMESPACE_METADATA,
  BOUND_WORKFLOW_METADATA,
  forScheduleAction,
  type WorkflowBinding,
} from './workflow-binding.js';
