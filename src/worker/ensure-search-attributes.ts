import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { WSMIGRATE_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';

/**
 * Registers wsmigrate's custom search attributes on the namespace (idempotent). The dev server
 * started by `make demo` gets them on its command line; a production server needs this once.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = WSMIGRATE_SEARCH_ATTRIBUTES.filter((sa) => !(sa.name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return;
  const searchAttributes: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const sa of missing) searchAttributes[sa.name] = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (err) {
    // Another worker may have registered them between our list and add.
    if (!/already exists/i.test((err as Error).message)) throw err;
  }
}
