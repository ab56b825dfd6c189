import { SearchAttributeType } from '@temporalio/common';
import { allSearchAttributeKeys } from '../workflows/search-attributes.js';

const cliTypeNames: Record<string, string> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

/** `--search-attribute Name=Type` arguments that register the project's attributes with a dev server. */
export function searchAttributeFlags(): string[] {
  return allSearchAttributeKeys.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${cliTypeNames[key.type]}`,
  ]);
}

export interface DevServerOptions {
  ip: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** SQLite file that keeps workflows across restarts. */
  dbFile: string;
}

/** Arguments for `temporal server start-dev` with persistence, the Web UI and our search attributes. */
export function devServerArgs(opts: DevServerOptions): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    opts.ip,
    '--port',
    String(opts.port),
    '--ui-port',
    String(opts.uiPort),
    '--namespace',
    opts.namespace,
    '--db-filename',
    opts.dbFile,
    '--log-format',
    'pretty',
    '--log-level',
    'warn',
    ...searchAttributeFlags(),
  ];
}
